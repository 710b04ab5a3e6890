"""EarlyStopping: stop training when a monitored value stops improving."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from ..context import RunContext
from .monitor import Monitor


class EarlyStopping(Monitor):
    """``EarlyStopping(monitor="eval_loss", patience=0, min_delta=0, mode="auto")``.

    After each epoch, reads ``run_context.metrics[monitor]``: ``"loss"`` is the epoch's
    mean training loss and ``"eval_<metric>"`` a validation result of ``fit`` (``"accuracy"``
    is looked up as ``"eval_accuracy"`` too). A change counts as an improvement when it
    beats the best value by more than ``min_delta``; after ``patience`` epochs without one,
    training stops (``run_context.request_stop()``). ``mode``: ``"min"``, ``"max"`` or
    ``"auto"`` (max for names containing "acc", else min). ``baseline``: a value to beat
    from the start. ``restore_best_weights`` puts the best epoch's weights back on stop.
    """

    state_key = "early_stopping"

    def __init__(self, monitor: str = "eval_loss", patience: int = 0, min_delta: float = 0.0,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False,
                 verbose: bool = False) -> None:
        super().__init__(monitor, mode, min_delta, baseline)
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: patience must be an int >= 0, got {patience!r}")
        self.patience = patience
        self.restore_best_weights = restore_best_weights
        self.verbose = verbose
        self.wait = 0
        self.stopped_epoch = 0
        self._best_weights: dict[str, np.ndarray] | None = None
        self._warned = False

    def _value(self, run_context: RunContext) -> float | None:
        metrics = run_context.metrics
        if self.monitor not in metrics and f"eval_{self.monitor}" not in metrics:
            if not self._warned:
                self._warned = True
                warnings.warn(f"EarlyStopping: {self.monitor!r} is not among the epoch's metrics "
                              f"({', '.join(sorted(metrics)) or 'none'}); use fit(..., valid_dataset=...) "
                              "for eval_* values", stacklevel=3)
            return None
        value = self.value(run_context)
        return float("nan") if value is None else value  # NaN: no improvement

    def on_train_begin(self, run_context: RunContext) -> None:
        self.stopped_epoch = 0

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        value = self._value(run_context)
        if value is None:
            return
        if value == value and self.improves(value):
            self.record(value, run_context.epoch)
            self.wait = 0
            if self.restore_best_weights and run_context.network is not None:
                self._best_weights = {name: p.asnumpy().copy()
                                      for name, p in run_context.network.parameters_and_names()}
            return
        self.wait += 1
        if self.wait >= max(self.patience, 1):
            self.stopped_epoch = run_context.epoch
            run_context.request_stop()
            if self.verbose:
                best = "any value" if self.best is None else f"{self.best:.6g} (epoch {self.best_epoch})"
                print(f"EarlyStopping: {self.monitor} has not improved on {best} "
                      f"for {self.wait} epoch(s); stopping after epoch "
                      f"{run_context.epoch}", file=sys.stderr, flush=True)
            if self._best_weights is not None:
                for name, p in run_context.network.parameters_and_names():
                    p.set_data(self._best_weights[name])

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "wait": self.wait}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.wait = int(state.get("wait", 0))
