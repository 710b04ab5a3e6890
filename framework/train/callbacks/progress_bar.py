"""ProgressBar: a tqdm bar per epoch; graph-mode compilation shown as its own phase."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TextIO

from tqdm.auto import tqdm

from ..context import RunContext
from .base import Callback

# tqdm's own rate (step/s) is left out: the speed shown is samples/s from the wall clock of
# the steps (Timings.step_wall_seconds), the same figure as MLflow's and the summary's.
BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]"
DONE_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"  # a finished bar: no ETA
MIN_BAR = 4  # columns the bar itself keeps when the line is fitted to the terminal


def validation_view(metrics: dict[str, float]) -> list[tuple[str, str]]:
    """The default names of the validation results on the bar: ``val_<name>``, sorted."""
    return sorted((f"val_{k[5:]}", f"{v:.4g}") for k, v in metrics.items() if k.startswith("eval_"))


class ProgressBar(Callback):
    """``ProgressBar(leave=True, file=None, disable=None, eval=True, label="")``.

    One bar per training epoch (steps, the step's loss, samples/s) and one per
    evaluation. ``samples/s`` is wall-clock (``Timings.step_wall_seconds``), as every
    speed figure of the trainer. In graph mode the first step traces and compiles the
    train step: that is its own phase, a ``compiling graph`` spinner with the elapsed
    seconds, then one line naming the stages and their seconds; the epoch bar (and so its
    ETA) starts after it. At the epoch's end the validation results are added to the
    postfix as ``val_<name>`` (the training ``loss`` keeps its meaning; ``metrics_view``
    maps ``run_context.metrics`` to the ``(name, text)`` pairs shown, in order, and
    ``loss_name`` names the loss). The postfix is fitted to the terminal's width: items
    are dropped from its end (speed and learning rate go first) rather than cut. ``label``
    prefixes every description (``train compare`` shows ``graph`` and ``pynative``).
    ``disable=None`` hides the bars when the output is not a terminal (tqdm's rule).

    ``whole_run=True`` shows one bar over all the run's steps instead (a run counted in
    steps, such as a language model's, whose "epochs" are evaluation intervals);
    ``unit``/``unit_per_sample`` name the speed (``tokens``, ``block_size`` per sample);
    ``show_lr`` adds the learning rate the step used.
    """

    def __init__(self, leave: bool = True, file: TextIO | None = None, disable: bool | None = None,
                 eval: bool = True, mininterval: float = 0.1, label: str = "", *,
                 whole_run: bool = False, unit: str = "samples", unit_per_sample: int = 1,
                 show_lr: bool = False, loss_name: str = "loss",
                 metrics_view: Callable[[dict[str, float]], list[tuple[str, str]]] = validation_view) -> None:
        self.whole_run, self.show_lr = whole_run, show_lr
        self.loss_name, self.metrics_view = loss_name, metrics_view
        self.unit, self.unit_per_sample = unit, unit_per_sample
        self.leave = leave
        self.file = file
        self.disable = disable
        self.show_eval = eval
        self.mininterval = mininterval
        self.label = f"{label} " if label else ""
        self.bar: Any = None
        self._eval_bar: Any = None
        self._spinner: Any = None
        self._stop_spin = threading.Event()
        self._compiled_once = False
        self._samples = 0
        self._seconds = 0.0
        self._postfix: list[tuple[str, str]] = []

    def _make(self, total: int | None, initial: int, desc: str, leave: bool, **kw: Any) -> Any:
        kw.setdefault("bar_format", BAR_FORMAT)
        return tqdm(total=total, initial=initial, desc=desc, unit="step", leave=leave, file=self.file,
                    disable=self.disable, mininterval=self.mininterval, dynamic_ncols=True, **kw)

    def _desc(self, ctx: RunContext) -> str:
        if self.whole_run:
            return self.label + "step"
        epoch = f"epoch {ctx.epoch}/{ctx.epoch_num}" if ctx.epoch_num else f"epoch {ctx.epoch}"
        return self.label + epoch

    def _new_bar(self, ctx: RunContext, done: int) -> Any:
        """The bar from ``done`` steps (of the epoch, or of the run with ``whole_run``)."""
        if self.whole_run:
            total = ctx.steps_per_epoch * ctx.epoch_num if ctx.steps_per_epoch else None
            return self._make(total, ctx.global_step - (ctx.step - done), self._desc(ctx), self.leave)
        return self._make(ctx.steps_per_epoch, done, self._desc(ctx), self.leave)

    def _compiling(self, ctx: RunContext) -> bool:
        return ctx.mode == "graph" and not self._compiled_once

    # -- training ------------------------------------------------------------------------------
    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        if self.whole_run and self.bar is not None:
            return
        self._close()
        self._samples, self._seconds = 0, 0.0
        if not self._compiling(run_context):  # else the bar starts once the graph is compiled
            self.bar = self._new_bar(run_context, run_context.step)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        if self._compiling(run_context) and self._spinner is None:
            self._spinner = self._make(None, 0, f"{self.label}compiling graph "
                                       "(load backend, trace, optimize, lower + build)", False,
                                       bar_format="{desc}: {elapsed}")
            if not self._spinner.disable:
                self._stop_spin = threading.Event()
                threading.Thread(target=self._spin, daemon=True).start()

    def _spin(self) -> None:
        spinner, stop = self._spinner, self._stop_spin
        while not stop.wait(0.25):
            spinner.refresh()  # tqdm's own lock keeps this apart from the main thread

    def _end_compile(self, run_context: RunContext) -> None:
        self._compiled_once = True
        self._stop_spin.set()
        if self._spinner is not None:
            shown = not self._spinner.disable
            self._spinner.close()
            self._spinner = None
            t = run_context.timings
            if shown and t.compile_seconds > 0:
                stages = ", ".join(f"{k} {v:.2f} s" for k, v in (t.compile_stages or {}).items())
                cached = " (kernels from the compile cache)" if t.compile_cache_hit else ""
                who = self.label or "graph "  # train compare labels the graph run "graph"
                tqdm.write(f"{who}compiled in {t.compile_seconds:.2f} s{cached}: {stages}", file=self.file)
        self.bar = self._new_bar(run_context, run_context.step - 1)

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self._compiling(run_context):
            self._end_compile(run_context)
        if self.bar is None:
            return
        t = run_context.timings
        self._samples += run_context.batch_size
        self._seconds += t.step_wall_seconds
        loss = f"{run_context.loss:.4f}" if run_context.loss is not None else "-"
        speed = []
        if self._seconds > 0:
            speed = [(f"{self.unit}/s", f"{self._samples * self.unit_per_sample / self._seconds:.0f}")]
        lr = []
        if self.show_lr and hasattr(run_context.optimizer, "last_lr"):
            lr = [("lr", f"{run_context.optimizer.last_lr():.3g}")]
        self._postfix = [(self.loss_name, loss), *speed, *lr]
        self.bar.update(1)
        self.bar.set_postfix_str(self._fit(self._postfix), refresh=False)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        if self.bar is not None:
            self.bar.unpause()  # its rate and elapsed time count training steps, not validation
            evals = self.metrics_view(run_context.metrics)
            if evals:
                if self.bar.total and self.bar.n >= self.bar.total:
                    self.bar.bar_format = DONE_FORMAT
                self.bar.set_postfix_str(self._fit([*self._postfix[:1], *evals, *self._postfix[1:]]),
                                         refresh=True)
        if not self.whole_run:
            self._close()

    def _fit(self, items: list[tuple[str, str]]) -> str:
        """``name=value`` items joined, as many (from the start) as the terminal's width
        leaves room for beside the rest of the line and a bar of ``MIN_BAR`` columns."""
        texts = [f"{name}={value}" for name, value in items]
        if self.bar.disable:
            return ", ".join(texts)
        meter = dict(self.bar.format_dict)
        width = meter.pop("ncols")
        if not width:
            return ", ".join(texts)
        for keep in range(len(texts), 1, -1):
            line = tqdm.format_meter(**{**meter, "ncols": None, "postfix": ", ".join(texts[:keep])})
            if len(line) - (10 - MIN_BAR) <= width:  # format_meter draws a 10-column bar
                return ", ".join(texts[:keep])
        return texts[0] if texts else ""

    def on_train_end(self, run_context: RunContext) -> None:
        self._stop_spin.set()
        if self._spinner is not None:
            self._spinner.close()
            self._spinner = None
        self._close()

    # -- evaluation ------------------------------------------------------------------------------
    def on_eval_begin(self, run_context: RunContext) -> None:
        if self.bar is not None:
            self.bar.refresh()  # the epoch bar's clock stops here (unpause() skips the validation)
        if self.show_eval:
            self._eval_bar = self._make(run_context.steps_per_epoch, 0, f"{self.label}eval", leave=False)

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
