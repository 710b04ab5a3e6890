"""BestCheckpoint: keep the checkpoint of the best epoch by a monitored metric."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..checkpoint import save_train_state
from ..context import RunContext
from .base import Callback
from .model_checkpoint import ModelCheckpoint, state_from_context


class BestCheckpoint(Callback):
    """``BestCheckpoint(checkpoint, monitor="eval_accuracy", mode="auto")``.

    At each epoch end where ``run_context.metrics`` holds ``monitor`` (``eval_<metric>``,
    ``loss``, ``train_accuracy``), a value better than every earlier one (``mode`` ``max``,
    ``min``, or ``auto``: max for names containing "acc") rewrites
    ``<directory>/<prefix>-best.ckpt`` atomically (the folder and run prefix of
    ``checkpoint``, a :class:`ModelCheckpoint`). The file is a full training checkpoint
    (resumable, loadable by ``train eval``); ``best``/``best_epoch`` survive a resume.
    ``path`` is the file once written.
    """

    order = 95  # after the metrics are filled in, before ModelCheckpoint (100)

    def __init__(self, checkpoint: ModelCheckpoint, monitor: str = "eval_accuracy",
                 mode: str = "auto") -> None:
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"BestCheckpoint: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.checkpoint, self.monitor = checkpoint, monitor
        self.mode = ("max" if "acc" in monitor.lower() else "min") if mode == "auto" else mode
        self.best: float | None = None
        self.best_epoch = 0
        self.path: Path | None = None

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        value = run_context.metrics.get(self.monitor)
        if value is None or math.isnan(float(value)):
            return
        value = float(value)
        better = self.best is None or (value > self.best if self.mode == "max" else value < self.best)
        if not better:
            return
        self.best, self.best_epoch = value, run_context.epoch
        ckpt = self.checkpoint
        path = ckpt.directory / f"{ckpt.prefix}-best.ckpt"
        state = state_from_context(run_context)
        save_train_state(path, run_context.train_network, state,
                         {"monitor": self.monitor, "value": value, "epoch": run_context.epoch})
        self.path = path

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best = state.get("best")
        self.best_epoch = int(state.get("best_epoch", 0))
