"""EarlyStopping: stop training when a monitored value stops improving."""

from __future__ import annotations

import math
import sys
import warnings
from typing import Any

import numpy as np

from ..context import RunContext
from .base import Callback


class EarlyStopping(Callback):
    """``EarlyStopping(monitor="eval_loss", patience=0, min_delta=0, mode="auto")``.

    After each epoch, reads ``run_context.metrics[monitor]``: ``"loss"`` is the epoch's
    mean training loss and ``"eval_<metric>"`` a validation result of ``fit`` (``"accuracy"``
    is looked up as ``"eval_accuracy"`` too). A change counts as an improvement when it
    beats the best value by more than ``min_delta``; after ``patience`` epochs without one,
    training stops (``run_context.request_stop()``). ``mode``: ``"min"``, ``"max"`` or
    ``"auto"`` (max for names containing "acc", else min). ``baseline``: a value to beat
    from the start. ``restore_best_weights`` puts the best epoch's weights back on stop.
    """

    def __init__(self, monitor: str = "eval_loss", patience: int = 0, min_delta: float = 0.0,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False,
                 verbose: bool = False) -> None:
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: patience must be an int >= 0, got {patience!r}")
        self.monitor = monitor
        self.patience = patience
        self.min_delta = abs(float(min_delta))
        if mode == "auto":
            mode = "max" if "acc" in monitor.lower() else "min"
        self.mode = mode
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.verbose = verbose
        self.best: float | None = baseline
        self.best_epoch = 0
        self.wait = 0
        self.stopped_epoch = 0
        self._best_weights: dict[str, np.ndarray] | None = None
        self._warned = False

    def _improved(self, value: float) -> bool:
        if self.best is None:
            return True
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def _value(self, run_context: RunContext) -> float | None:
        metrics = run_context.metrics
        for key in (self.monitor, f"eval_{self.monitor}"):
            if key in metrics:
                return float(metrics[key])
        if not self._warned:
            self._warned = True
            warnings.warn(f"EarlyStopping: {self.monitor!r} is not among the epoch's metrics "
                          f"({', '.join(sorted(metrics)) or 'none'}); use fit(..., valid_dataset=...) "
                          "for eval_* values", stacklevel=2)
        return None

    def on_train_begin(self, run_context: RunContext) -> None:
        self.stopped_epoch = 0

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        value = self._value(run_context)
        if value is None:
            return
        if not math.isnan(value) and self._improved(value):
            self.best, self.best_epoch, self.wait = value, run_context.epoch, 0
            if self.restore_best_weights and run_context.network is not None:
                self._best_weights = {name: p.asnumpy().copy()
                                      for name, p in run_context.network.parameters_and_names()}
            return
        self.wait += 1
        if self.wait >= max(self.patience, 1):
            self.stopped_epoch = run_context.epoch
            run_context.request_stop()
            if self.verbose:
                print(f"EarlyStopping: {self.monitor} has not improved on {self.best:.6g} (epoch "
                      f"{self.best_epoch}) for {self.wait} epoch(s); stopping after epoch "
                      f"{run_context.epoch}", file=sys.stderr, flush=True)
            if self._best_weights is not None:
                for name, p in run_context.network.parameters_and_names():
                    p.set_data(self._best_weights[name])

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "best_epoch": self.best_epoch, "wait": self.wait}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best = state.get("best", self.best)
        self.best_epoch = int(state.get("best_epoch", 0))
        self.wait = int(state.get("wait", 0))
