"""ProgressBar: a tqdm bar per epoch with the loss and samples/s; compilation shown as such."""

from __future__ import annotations

from typing import Any, TextIO

from tqdm.auto import tqdm

from ..context import RunContext
from .base import Callback


class ProgressBar(Callback):
    """``ProgressBar(leave=True, file=None, disable=None, eval=True)``.

    One bar per training epoch (steps, loss, samples/s measured without compilation)
    and one per evaluation. In graph mode the first step traces and compiles the train
    step: the bar says ``compiling graph ...`` meanwhile and then shows the compile time.
    ``disable=None`` hides the bar when the output is not a terminal (tqdm's rule).
    """

    def __init__(self, leave: bool = True, file: TextIO | None = None, disable: bool | None = None,
                 eval: bool = True, mininterval: float = 0.1) -> None:
        self.leave = leave
        self.file = file
        self.disable = disable
        self.show_eval = eval
        self.mininterval = mininterval
        self.bar: Any = None
        self._eval_bar: Any = None
        self._compiled_once = False
        self._samples = 0
        self._seconds = 0.0
        self._compile_note = ""
        self._postfix: dict[str, str] = {}

    def _make(self, total: int | None, initial: int, desc: str, leave: bool) -> Any:
        return tqdm(total=total, initial=initial, desc=desc, unit="step", leave=leave, file=self.file,
                    disable=self.disable, mininterval=self.mininterval, dynamic_ncols=True)

    def _desc(self, ctx: RunContext) -> str:
        return f"epoch {ctx.epoch}/{ctx.epoch_num}" if ctx.epoch_num else f"epoch {ctx.epoch}"

    # -- training ------------------------------------------------------------------------------
    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self._close()
        self._samples, self._seconds = 0, 0.0
        self.bar = self._make(run_context.steps_per_epoch, run_context.step, self._desc(run_context),
                              self.leave)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        if self.bar is not None and run_context.mode == "graph" and not self._compiled_once:
            self.bar.set_description_str(f"{self._desc(run_context)} (compiling graph ...)")
            self.bar.refresh()

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self.bar is None:
            return
        t = run_context.timings
        if run_context.mode == "graph" and not self._compiled_once:
            self._compiled_once = True
            self.bar.set_description_str(self._desc(run_context))
        if t.compile_seconds > 0:
            self._compile_note = f"{t.compile_seconds:.1f}s" + (" (cached)" if t.compile_cache_hit else "")
        self._samples += run_context.batch_size
        self._seconds += t.step_seconds
        postfix = {"loss": f"{run_context.loss:.4f}" if run_context.loss is not None else "-"}
        if self._seconds > 0:
            postfix["samples/s"] = f"{self._samples / self._seconds:.0f}"
        if self._compile_note:
            postfix["compile"] = self._compile_note
        self._postfix = postfix
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(1)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        if self.bar is not None:
            evals = {k[5:]: f"{v:.4g}" for k, v in run_context.metrics.items() if k.startswith("eval_")}
            if evals:
                self.bar.set_postfix({**self._postfix, **evals}, refresh=True)
        self._close()

    def on_train_end(self, run_context: RunContext) -> None:
        self._close()

    # -- evaluation ------------------------------------------------------------------------------
    def on_eval_begin(self, run_context: RunContext) -> None:
        if self.show_eval:
            self._eval_bar = self._make(run_context.steps_per_epoch, 0, "eval", leave=False)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        if self._eval_bar is not None:
            self._eval_bar.update(1)

    def on_eval_end(self, run_context: RunContext) -> None:
        if self._eval_bar is not None:
            self._eval_bar.close()
            self._eval_bar = None

    def _close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
