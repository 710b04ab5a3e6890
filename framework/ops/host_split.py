"""Ops whose output shape depends on their input's values, in both modes: the positions
they pick (``masked_select``, ``nonzero``, ``unique``, ``x[mask]``) are computed on the
host by a NumPy function, and the op's result is made from them with ordinary primitives
(``Gather``), so gradients flow as they do for any gather.

PyNative (and a traced op on constant inputs) runs the NumPy function at once. While
tracing for graph mode, the function's inputs are traced tensors with no values yet, so
the graph is *split* there, as MindSpore's graph mode runs such ops on their own:

- the first trace reaching the op stops with :class:`HostSplit`; what was traced so far,
  with the op's inputs as its outputs, is compiled as the segment before the split;
- each call runs that segment, then the NumPy function on its outputs (the host answer);
- the function is traced again with the answer's *shapes* known: the op's results become
  graph inputs of kind ``host`` (:meth:`host_computed`), and the segment after the split is
  compiled once per answer shape (the count of selected elements), so calls with the same
  count reuse it (:mod:`framework.graph_split` runs the segments).

An op inside a tensor-valued ``if``/``while`` body cannot split the graph (the body is one
region of the compiled function): that stops with one line naming the op and its line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..errors import SourceLocation, user_location, with_location
from ..interpreters import current
from ..ir.graph import GraphModeError, Value

Compute = Callable[..., Sequence[np.ndarray]]

_FIX = "run it in PyNative mode (set_context(mode=PYNATIVE_MODE), or call it without ms.jit)"


class HostSplit(GraphModeError):
    """Tracing reached a value-dependent op (the ``index``-th of the trace) whose host
    answer is not known yet: the graph is split before it. The trace that raised it sets
    ``graph`` and ``interp``, the graph traced so far."""

    def __init__(self, op: str, location: SourceLocation | None, compute: Compute,
                 inputs: list[Value | np.ndarray], index: int) -> None:
        super().__init__(with_location(
            f"{op}: its output shape depends on tensor values, so graph mode splits the graph "
            "here, which a single traced graph (an export) cannot hold; export a function "
            f"without it, or {_FIX}", location))
        self.op, self.location, self.compute, self.inputs, self.index = (
            op, location, compute, inputs, index)
        self.graph: Any = None
        self.interp: Any = None


@dataclass(frozen=True)
class HostStep:
    """One split of a traced function: the op, its source line, the host inputs standing for
    its answer."""

    op: str
    location: str
    outputs: tuple[Value, ...]


def _concrete(data: Any) -> bool:
    return isinstance(data, np.ndarray | np.generic)


def host_computed(op: str, compute: Compute, *tensors: Any) -> tuple[Any, ...]:
    """``compute`` (NumPy arrays -> a sequence of arrays, shapes depending on the values) on
    ``tensors``' values, as Tensors: computed now in PyNative or on constants; while tracing,
    graph inputs holding the answer that each call computes between the graph's segments
    (see the module doc)."""
    interp = current()
    data = [t._data if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
    if not interp.tracing or all(_concrete(d) for d in data):
        return tuple(Tensor(np.ascontiguousarray(a)) for a in compute(*[np.asarray(d) for d in data]))
    location = user_location()
    if interp.scope is not interp.root:
        raise GraphModeError(with_location(
            f"{op}: its output shape depends on tensor values, and graph mode cannot split the "
            "graph inside a tensor-valued if/while body; compute it before the branch or loop, "
            f"or {_FIX}", location))
    inputs: list[Value | np.ndarray] = [
        np.asarray(d) if _concrete(d) else interp.value_of(t) for d, t in zip(data, tensors)]
    index = len(interp.host_steps)
    if index >= len(interp.host_answers):
        raise HostSplit(op, location, compute, inputs, index)
    graph = interp.root.graph
    outputs = []
    for j, array in enumerate(interp.host_answers[index]):
        value = graph.add_input(tuple(array.shape), array.dtype, "host", f"{op}{index}_{j}")
        interp.root.defined.add(value.id)
        outputs.append(value)
    where = f"{location.shown} in {location.function}" if location is not None else "?"
    interp.host_steps.append(HostStep(op, where, tuple(outputs)))
    return tuple(Tensor._wrap(v) for v in outputs)
