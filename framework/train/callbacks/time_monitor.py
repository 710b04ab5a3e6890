"""TimeMonitor: epoch time and mean step time, with graph-mode compilation shown apart."""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm.auto import tqdm

from ..context import RunContext
from .base import Callback


class TimeMonitor(Callback):
    """Prints MindSpore's ``Train epoch time: 812.300 ms, per step time: 2.600 ms`` after each
    epoch (and ``Eval epoch time: ...`` after an evaluation pass).

    The per-step time is wall-clock (data loading included, see ``Timings``) and excludes
    compilation: a graph-mode step that traced and compiled
    (the first one, or one with a new batch shape) is reported on its own line,
    ``graph compiled in 2.31 s (trace + TVM build; first step ran in 3.1 ms)``.
    ``data_size`` is accepted for MindSpore compatibility (the step count is measured).
    ``records`` keeps ``{"epoch", "epoch_ms", "step_ms", "steps", "compile_s"}`` per epoch.
    """

    def __init__(self, data_size: int | None = None, file: TextIO | None = None) -> None:
        self.data_size = data_size
        self.file = file
        self.records: list[dict[str, float]] = []
        self._steps = 0
        self._step_seconds = 0.0
        self._compile_seconds = 0.0
        self._eval_steps, self._eval_seconds = 0, 0.0

    def _print(self, text: str) -> None:
        out = self.file or sys.stdout
        tqdm.write(text, file=out)  # above any progress bar, never through it
        out.flush()

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self._steps, self._step_seconds, self._compile_seconds = 0, 0.0, 0.0

    def on_train_step_end(self, run_context: RunContext) -> None:
        t = run_context.timings
        self._steps += 1
        self._step_seconds += t.step_wall_seconds  # wall clock, as every speed figure
        if t.compile_seconds > 0:
            self._compile_seconds += t.compile_seconds
            cached = " from the compile cache" if t.compile_cache_hit else ""
            self._print(f"graph compiled{cached} in {t.compile_seconds:.2f} s (trace + TVM build; "
                        f"step {run_context.global_step} then ran in {t.step_seconds * 1000:.1f} ms)")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        epoch_ms = run_context.timings.epoch_seconds * 1000
        step_ms = self._step_seconds * 1000 / max(self._steps, 1)
        self.records.append({"epoch": run_context.epoch, "epoch_ms": epoch_ms, "step_ms": step_ms,
                             "steps": self._steps, "compile_s": self._compile_seconds})
        self._print(f"Train epoch time: {epoch_ms:5.3f} ms, per step time: {step_ms:5.3f} ms")

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self._eval_steps, self._eval_seconds = 0, 0.0

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self._eval_steps += 1
        self._eval_seconds += run_context.timings.step_seconds

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        epoch_ms = run_context.timings.eval_seconds * 1000
        step_ms = self._eval_seconds * 1000 / max(self._eval_steps, 1)
        self._print(f"Eval epoch time: {epoch_ms:5.3f} ms, per step time: {step_ms:5.3f} ms")
