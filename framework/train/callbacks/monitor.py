"""The monitor shared by the callbacks that watch one metric (Keras's ``monitor``/``mode``/
``min_delta``/``baseline``): :class:`EarlyStopping`, :class:`BestCheckpoint`, and a sweep's
direction (:func:`direction_of`).

Contract: ``value(run_context)`` reads ``run_context.metrics[monitor]`` (or
``eval_<monitor>``); ``improves(value)`` compares it with the best so far under ``mode``
(``min``/``max``; ``auto`` is max for names with "acc" in them, else min) and ``min_delta``;
``record(value, epoch)`` makes it the best. ``best``/``best_epoch`` are the monitor's
state (kept in checkpoints by the subclasses' ``state_dict``).
"""

from __future__ import annotations

import math
from typing import Any

from ..context import RunContext
from .base import Callback


def direction_of(monitor: str, mode: str = "auto") -> str:
    """``"min"`` or ``"max"`` for a metric name under ``mode``."""
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode != "auto":
        return mode
    return "max" if "acc" in monitor.lower() else "min"


class Monitor(Callback):
    """Base of callbacks that follow the best value of one metric, per epoch."""

    phase = "monitor"

    def __init__(self, monitor: str, mode: str = "auto", min_delta: float = 0.0,
                 baseline: float | None = None) -> None:
        try:
            self.mode = direction_of(monitor, mode)
        except ValueError as error:
            raise ValueError(f"{type(self).__name__}: {error}") from None
        self.monitor = monitor
        self.min_delta = abs(float(min_delta))
        self.baseline = baseline
        self.best: float | None = baseline
        self.best_epoch = 0

    def value(self, run_context: RunContext) -> float | None:
        """The monitored value of this epoch (None when the epoch has none, or it is NaN)."""
        metrics = run_context.metrics
        for key in (self.monitor, f"eval_{self.monitor}"):
            if key in metrics:
                value = float(metrics[key])
                return None if math.isnan(value) else value
        return None

    def improves(self, value: float) -> bool:
        if self.best is None:
            return True
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def record(self, value: float, epoch: int) -> None:
        self.best, self.best_epoch = value, epoch

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best = state.get("best", self.best)
        self.best_epoch = int(state.get("best_epoch", 0))
