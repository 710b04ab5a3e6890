"""Step objects: how one Cell runs on one batch in each execution mode.

``EagerStep`` calls it op by op (PyNative); ``CompiledStep`` traces and compiles it once
per input signature (graph mode's ``JitFunction``) and then runs the compiled function.
Both report the call's wall time with any tracing + compilation time split off, so
callbacks can show the first graph-mode step's compile time on its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

import framework as ms
from framework import Tensor
from framework.graph_mode import JitFunction

from .context import mode_name


@dataclass
class StepTiming:
    seconds: float  # run time, compilation excluded
    compile_seconds: float = 0.0  # trace + compile (0.0 unless this call compiled)
    cache_hit: bool | None = None  # compiled library loaded from the disk cache
    stages: dict[str, float] | None = None  # compile stage -> seconds (when this call compiled)


def _to_tensor(value: Any) -> Any:
    if isinstance(value, Tensor) or not isinstance(value, np.ndarray | np.generic | list):
        return value
    return Tensor(np.asarray(value))


@contextmanager
def _context_mode(mode: int) -> Iterator[None]:
    previous = ms.get_context("mode")
    if previous == mode:
        yield
        return
    ms.set_context(mode=mode)
    try:
        yield
    finally:
        ms.set_context(mode=previous)


class Step:
    """Run ``cell`` on a batch: ``outputs, timing = step(x, y)``."""

    mode: str = ""

    def __init__(self, cell: Any) -> None:
        self.cell = cell

    def __call__(self, *inputs: Any) -> tuple[Any, StepTiming]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self.cell).__name__})"


class EagerStep(Step):
    """PyNative: the cell runs op by op, whatever the global context says."""

    mode = "pynative"

    def __call__(self, *inputs: Any) -> tuple[Any, StepTiming]:
        args = [_to_tensor(a) for a in inputs]
        start = time.perf_counter()
        with _context_mode(ms.PYNATIVE_MODE):
            out = self.cell(*args)
            _sync(out)
        return out, StepTiming(time.perf_counter() - start)


class CompiledStep(Step):
    """Graph mode: ``ms.jit(cell.construct)``, one compiled function per input signature.

    The compiled function is kept across calls (and across ``Model.train`` calls), so
    only a new signature (first step, another batch shape, train/eval flags) compiles.
    """

    mode = "graph"

    def __init__(self, cell: Any) -> None:
        super().__init__(cell)
        self.function = JitFunction(cell.construct, name=type(cell).__name__, cell=cell)

    def __call__(self, *inputs: Any) -> tuple[Any, StepTiming]:
        args = [_to_tensor(a) for a in inputs]
        start = time.perf_counter()
        out = self.function(*args)
        _sync(out)
        total = time.perf_counter() - start
        if not self.function.last_call_compiled:
            return out, StepTiming(total)
        summary = self.function.last_summary or {}
        compile_s = sum(float(summary.get(k, 0.0)) for k in
                        ("backend_import_seconds", "trace_seconds", "compile_seconds"))
        compile_s = min(compile_s, total)
        optimize = float(summary.get("optimize_seconds", 0.0))  # included in trace_seconds
        stages = {"load backend": float(summary.get("backend_import_seconds", 0.0)),
                  "trace": max(float(summary.get("trace_seconds", 0.0)) - optimize, 0.0),
                  "optimize": optimize, "lower + build": float(summary.get("compile_seconds", 0.0))}
        return out, StepTiming(total - compile_s, compile_s, summary.get("cache_hit"), stages)

    @property
    def summary(self) -> dict[str, Any] | None:
        """The JitFunction summary of the latest compilation (nodes, passes, seconds)."""
        return self.function.last_summary


def _sync(out: Any) -> None:
    """Bring outputs to the host so that the measured time includes the computation."""
    for leaf in out if isinstance(out, tuple | list) else (out,):
        if isinstance(leaf, Tensor):
            leaf.asnumpy()


def make_step(cell: Any, mode: int | str) -> Step:
    """The step object for ``mode`` (``ms.GRAPH_MODE``/``ms.PYNATIVE_MODE`` or a name)."""
    return CompiledStep(cell) if mode_name(mode) == "graph" else EagerStep(cell)
