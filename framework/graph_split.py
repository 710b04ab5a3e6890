"""A compiled function split around its value-dependent ops (``masked_select``, ``nonzero``,
``unique``, ``x[mask]``: :mod:`framework.ops.host_split`), as MindSpore's graph mode runs
such ops on their own.

One input signature whose trace met such an op is a :class:`Segmented` entry of the
:class:`framework.graph_mode.JitFunction` cache. Its segments are keyed by the shapes of the
host answers computed before them:

- key ``()``: a :class:`Stage`, the graph up to the first value-dependent op, returning that
  op's inputs; the op's NumPy function then gives the first answer on the host;
- key ``(shapes of answer 1,)``: the graph traced again from the start with that answer's
  shapes, taking the answer as inputs: the final segment when no other value-dependent op
  follows (it returns the outputs, updates Parameters), else the Stage before the next one.

So calls whose answers have the same shapes (the same count of selected elements) reuse
every segment, and a new count compiles only the segments after the split. Each segment
runs the code before its split again (it is traced from the start): no tensor crosses
between segments but the answers, and a random mask drawn for one segment is reused by the
next (they draw in the same order) so every segment sees the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ir.graph import Value
from .ops.host_split import Compute


@dataclass
class Stage:
    """The segment before a value-dependent op: a compiled graph returning that op's traced
    inputs (``inputs``: a graph output each, or a constant array), and the op's NumPy
    function (``compute``)."""

    compiled: Any  # graph_mode.CompiledGraph
    compute: Compute
    inputs: list[Value | np.ndarray]
    op: str

    @property
    def report(self) -> Any:
        return self.compiled.report

    def valid(self, aliases: Any = None) -> bool:
        return self.compiled.valid(None)

    def answer(self, args: list[Any], draws: list[np.ndarray],
               host: list[np.ndarray]) -> tuple[np.ndarray, ...]:
        results = iter(self.compiled.outputs(args, draws, host))
        arrays = [v if isinstance(v, np.ndarray) else next(results) for v in self.inputs]
        return tuple(np.ascontiguousarray(a) for a in self.compute(*arrays))


def answer_key(answer: tuple[np.ndarray, ...]) -> tuple:
    return tuple((a.shape, a.dtype.str) for a in answer)


class Segmented:
    """One input signature compiled in segments (see the module doc)."""

    aliases = None  # like Interpreted: the segments check their own cells

    def __init__(self, first: Stage) -> None:
        self.segments: dict[tuple, Any] = {(): first}
        self.latest: Any = first

    @property
    def report(self) -> Any:
        return self.latest.report

    def valid(self, aliases: Any = None) -> bool:
        """Whether the cells every segment went through are still as traced (a segment that
        writes arguments back checks it against the aliasing it was traced for)."""
        return all(segment.valid(getattr(segment, "aliases", None))
                   for segment in self.segments.values())

    def call(self, args: list[Any], compile_segment: Callable[[list[tuple[np.ndarray, ...]]], Any],
             compiled_now: Callable[[Any], None]) -> Any:
        """Run the segments in turn on the call's tensors ``args``; ``compile_segment(answers)``
        traces and compiles the one a new answer shape needs (``compiled_now`` is told)."""
        draws: list[np.ndarray] = []
        answers: list[tuple[np.ndarray, ...]] = []
        key: tuple = ()
        while True:
            segment = self.segments.get(key)
            if segment is None:
                segment = self.segments[key] = compile_segment(answers)
                self.latest = segment
                compiled_now(segment)
            host = [a for answer in answers for a in answer]
            if not isinstance(segment, Stage):
                return segment.run(args, draws, host)
            answer = segment.answer(args, draws, host)
            answers.append(answer)
            key += (answer_key(answer),)


def split_entry(step: Any) -> dict[str, Any]:
    """A split as the compile report shows it: the op, its source line, why, and the shapes
    of its host answer this segment was compiled for (a :class:`HostStep`), or none yet (the
    op a segment stops before: a :class:`HostSplit`)."""
    location = getattr(step, "location", None)
    where = location if isinstance(location, str) else (
        f"{location.shown} in {location.function}" if location is not None else "?")
    outputs = getattr(step, "outputs", None)
    return {"op": step.op, "at": where, "why": "its output shape depends on tensor values",
            "answer_shapes": [list(v.shape) for v in outputs] if outputs is not None else None}
