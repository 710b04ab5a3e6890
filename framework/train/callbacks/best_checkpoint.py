"""BestCheckpoint: keep the checkpoint of the best epoch by a monitored metric."""

from __future__ import annotations

from pathlib import Path

from ..checkpoint import save_train_state
from ..context import RunContext
from .model_checkpoint import ModelCheckpoint, state_from_context
from .monitor import Monitor


class BestCheckpoint(Monitor):
    """``BestCheckpoint(checkpoint, monitor="eval_accuracy", mode="auto")``.

    At each epoch end where ``run_context.metrics`` holds ``monitor`` (``eval_<metric>``,
    ``loss``, ``train_accuracy``), a value better than every earlier one (``mode`` ``max``,
    ``min``, or ``auto``: max for names containing "acc") rewrites
    ``<directory>/<prefix>-best.ckpt`` atomically (the folder and run prefix of
    ``checkpoint``, a :class:`ModelCheckpoint`). The file is a full training checkpoint
    (resumable, loadable by ``train eval``); ``best``/``best_epoch`` survive a resume.
    ``path`` is the file once written. A monitor: it runs after the epoch's metrics are
    filled in and before the checkpoints are saved.
    """

    state_key = "keep_best"

    def __init__(self, checkpoint: ModelCheckpoint, monitor: str = "eval_accuracy",
                 mode: str = "auto") -> None:
        super().__init__(monitor, mode)
        self.checkpoint = checkpoint
        self.path: Path | None = None

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        value = self.value(run_context)
        if value is None or not self.improves(value):
            return
        self.record(value, run_context.epoch)
        ckpt = self.checkpoint
        path = ckpt.directory / f"{ckpt.prefix}-best.ckpt"
        state = state_from_context(run_context)
        save_train_state(path, run_context.train_network, state,
                         {"monitor": self.monitor, "value": value, "epoch": run_context.epoch})
        self.path = path
