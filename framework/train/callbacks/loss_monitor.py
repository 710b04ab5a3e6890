"""LossMonitor: print the training loss every N steps; stop on a NaN or infinite loss."""

from __future__ import annotations

import math
import sys
from typing import TextIO

from tqdm.auto import tqdm

from ..context import RunContext
from .base import Callback


class InvalidLossError(FloatingPointError, ValueError):
    """The training loss became NaN or infinite (a ValueError too, as MindSpore raises)."""


class LossMonitor(Callback):
    """``LossMonitor(per_print_times=1)``: prints ``epoch: 1 step: 125, loss is 0.13012345``
    (MindSpore's line: ``step`` is the step within the epoch, the loss printed as a Python
    float). A NaN or infinite loss raises :class:`InvalidLossError` at once, naming the
    epoch and step (every step is checked, printed or not). In ``fit``, each validated
    epoch prints ``Eval result: epoch 1, metrics: {'Accuracy': 0.98...}``.
    """

    def __init__(self, per_print_times: int = 1, file: TextIO | None = None) -> None:
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, got {per_print_times!r}")
        self.per_print_times = per_print_times
        self.file = file

    def _print(self, text: str) -> None:
        """One line, as MindSpore's ``print(..., flush=True)``: to the stream that is
        ``sys.stdout`` now (pytest's capture, ``redirect_stdout``); through ``tqdm.write``
        only while a progress bar is open, so the line goes above the bar."""
        out = self.file or sys.stdout
        if getattr(tqdm, "_instances", None):
            tqdm.write(text, file=out)
            out.flush()
        else:
            print(text, file=out, flush=True)

    def on_train_step_end(self, run_context: RunContext) -> None:
        loss = run_context.loss
        if loss is None:
            return
        if not math.isfinite(loss):
            raise InvalidLossError(
                f"loss is {loss} at epoch {run_context.epoch}, step {run_context.step} (global step "
                f"{run_context.global_step}); training stopped. Lower the learning rate, check the "
                "data for NaN/Inf values, or resume from an earlier checkpoint")
        if self.per_print_times and run_context.global_step % self.per_print_times == 0:
            self._print(f"epoch: {run_context.epoch} step: {run_context.step}, loss is {loss}")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        evals = {k[5:]: v for k, v in run_context.metrics.items() if k.startswith("eval_")}
        if evals and self.per_print_times:
            self._print(f"Eval result: epoch {run_context.epoch}, metrics: {evals}")
