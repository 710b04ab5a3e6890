"""Step objects: how one Cell runs on one batch in each execution mode, the one place of
the training core that knows modes (``Model`` holds the mode as a value and asks
:func:`make_step` for the step of it; nothing reads or writes the global context's mode).

``EagerStep`` calls it op by op (``with ms.pynative()``); ``CompiledStep`` compiles it
with the public ``ms.jit`` once per input signature and then runs the compiled function.
Both report the call's wall time with the compilation split off (from the typed
:class:`~framework.compile_report.CompileReport`), so callbacks can show the first
graph-mode step's compile time on its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

import framework as ms
from framework import Tensor
from framework.compile_report import CompileReport

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
        with ms.pynative():
            out = self.cell(*args)
            _sync(out)
        return out, StepTiming(time.perf_counter() - start)


class CompiledStep(Step):
    """Graph mode: ``ms.jit(cell.construct)``, one compiled function per input signature.

    The compiled function is kept across calls (and across ``Model.train`` calls), so
    only a new signature (first step, train/eval flags) compiles. The batch axis is
    dynamic: a last partial batch or evaluation at another batch size runs on the same
    compiled function where the network allows it (:mod:`framework.dynamic_shapes`; the
    report's ``symbolic_fallback`` says why not). ``dynamic="sequence"`` (text) also makes
    the sequence axis of token ids dynamic: one compiled function for every length.
    """

    mode = "graph"

    def __init__(self, cell: Any, dynamic: bool | str = True) -> None:
        super().__init__(cell)
        self.function = ms.jit(cell.construct)
        self.function.dynamic_batch = dynamic

    def __call__(self, *inputs: Any) -> tuple[Any, StepTiming]:
        args = [_to_tensor(a) for a in inputs]
        start = time.perf_counter()
        out = self.function(*args)
        _sync(out)
        total = time.perf_counter() - start
        if not self.function.last_call_compiled:
            return out, StepTiming(total)
        report = self.function.last_report
        compile_s = min(report.total_seconds, total)
        return out, StepTiming(total - compile_s, compile_s, report.cache_hit, report.stages)

    @property
    def report(self) -> CompileReport | None:
        """The report of the latest compilation (stages, nodes, seconds)."""
        return self.function.last_report


def _sync(out: Any) -> None:
    """Bring outputs to the host so that the measured time includes the computation."""
    for leaf in out if isinstance(out, tuple | list) else (out,):
        if isinstance(leaf, Tensor):
            leaf.asnumpy()


def make_step(cell: Any, mode: int | str, dynamic: bool | str = True) -> Step:
    """The step object for ``mode`` (``ms.GRAPH_MODE``/``ms.PYNATIVE_MODE`` or a name);
    ``dynamic``: graph mode's dynamic axes (:class:`CompiledStep`)."""
    return CompiledStep(cell, dynamic) if mode_name(mode) == "graph" else EagerStep(cell)
