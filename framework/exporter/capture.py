"""Capture a network for export: its inference function traced into our IR, with the batch
axis made symbolic.

:func:`capture` puts every cell of ``net`` in eval mode (and back afterwards), traces
``net.construct`` on the sample inputs with graph mode's tracer (:func:`framework.staging.trace`),
keeps only the user's outputs (range-check flags, Parameter updates and prints are left
out: a deployed model has no host to report to), and runs the IR passes (folding, CSE, DCE).

The IR has static shapes. To learn which dimensions follow the batch size, the network is
traced a second time with another batch size; the two graphs must have the same nodes in
the same order, and every dimension that differs between them is an affine function of the
batch, ``scale * batch + offset`` (a :class:`BatchDim`): ``(B, 400)`` after a flatten,
``(T * B, H)`` in an unrolled recurrent layer. Static dimensions stay ints. The exporter
reads these through :attr:`Captured.dims`, keyed by the id of a Value of the first graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import staging
from ..common.tensor import Tensor
from ..ir import Graph, Value, ValueKind
from ..ir import optimize as run_passes
from ..ops.debug import PrintOp
from ..signature import flatten


class ExportError(ValueError):
    """A network that cannot be exported as asked (one line: what, where, and the fix)."""


@dataclass(frozen=True)
class BatchDim:
    """A dimension equal to ``scale * batch + offset``."""

    scale: int
    offset: int = 0

    def at(self, batch: int) -> int:
        return self.scale * batch + self.offset

    def __str__(self) -> str:
        text = "batch" if self.scale == 1 else f"{self.scale}*batch"
        return text + (f"{self.offset:+d}" if self.offset else "")


Dim = int | BatchDim


@dataclass
class Captured:
    """The traced inference function, ready for a converter."""

    name: str
    graph: Graph  # inputs: PARAM values, then one INPUT per tensor argument, in order
    params: dict[int, Any]  # PARAM value id -> the Parameter
    outputs: list[Value | np.ndarray]  # per output leaf: a graph value or a constant
    batch: int  # the batch size the graph was traced with
    batch_inputs: list[tuple[int, int]]  # (input position, axis) holding the batch size
    dims: dict[int, tuple[Dim, ...]] = field(default_factory=dict)  # value id -> its dims

    def shape(self, value: Value) -> tuple[Dim, ...]:
        return self.dims.get(value.id, value.shape)

    def input_values(self) -> list[Value]:
        return [v for v in self.graph.inputs if v.kind == ValueKind.INPUT]


def capture(net: Any, inputs: Sequence[Any], batch_axis: Any = 0) -> Captured:
    """Trace ``net`` in eval mode on ``inputs``; with ``batch_axis`` (an axis for every
    tensor input, or one per input, ``None`` for an input without one; ``None``: a
    static graph) the batch dimension becomes symbolic."""
    arrays = [_array(x) for x in inputs]
    axes = _batch_axes(arrays, batch_axis)
    batch = _batch_size(arrays, axes)
    first = _trace(net, list(inputs))
    if batch is None:
        return first
    # a second trace at another batch size tells the batch-dependent dimensions apart;
    # batch 1 is avoided (size-1 axes may trace differently: squeeze, broadcasting)
    other = batch + 1 if batch > 1 else 3
    if batch == 1:
        first = _trace(net, _with_batch(inputs, arrays, axes, 2))
        batch = 2
    second = _trace(net, _with_batch(inputs, arrays, axes, other))
    first.batch = batch
    first.batch_inputs = [(i, a) for i, a in enumerate(axes) if a is not None]
    first.dims = _symbolic_dims(first, second, batch, other)
    return first


def _array(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, np.ndarray):
        return x
    return None  # a Python constant: baked into the graph


def _batch_axes(arrays: list[Any], batch_axis: Any) -> list[int | None]:
    if batch_axis is None:
        return [None] * len(arrays)
    if isinstance(batch_axis, int):
        batch_axis = [batch_axis] * len(arrays)
    axes = list(batch_axis)
    if len(axes) != len(arrays):
        raise ExportError(f"export: batch_axis has {len(axes)} entries for {len(arrays)} inputs; "
                          "give one per input (None for an input without a batch axis)")
    out: list[int | None] = []
    for i, (a, x) in enumerate(zip(axes, arrays)):
        if a is None or x is None or x.ndim == 0:
            out.append(None)
        elif not -x.ndim <= a < x.ndim:
            raise ExportError(f"export: batch_axis {a} is out of range for input {i} of shape "
                              f"{x.shape}")
        else:
            out.append(a % x.ndim)
    return out


def _batch_size(arrays: list[Any], axes: list[int | None]) -> int | None:
    sizes = {x.shape[a] for x, a in zip(arrays, axes) if a is not None}
    if len(sizes) > 1:
        raise ExportError(f"export: the inputs disagree on the batch size ({sorted(sizes)} along "
                          "batch_axis); pass inputs of one batch size, or batch_axis=None")
    return sizes.pop() if sizes else None


def _with_batch(inputs: Sequence[Any], arrays: list[Any], axes: list[int | None], batch: int) -> list:
    out = []
    for x, array, axis in zip(inputs, arrays, axes):
        if axis is None:
            out.append(x)
            continue
        shape = list(array.shape)
        shape[axis] = batch
        # zeros of the same dtype: tracing reads shapes and dtypes, never the values
        out.append(Tensor(np.zeros(shape, array.dtype)))
    return out


def _trace(net: Any, inputs: list[Any]) -> Captured:
    flags = [(cell, cell.training) for _, cell in net.cells_and_names()]
    net.set_train(False)
    try:
        leaves, _, rebuild = flatten(inputs)
        name = type(net).__name__
        traced = staging.trace(net.construct, net, leaves, rebuild, name, None)
    finally:
        for cell, flag in flags:
            object.__setattr__(cell, "training", flag)
    graph = traced.graph
    outputs: list[Value | np.ndarray] = []
    for leaf in traced.out_leaves:
        if isinstance(leaf, Tensor):
            outputs.append(leaf._data if isinstance(leaf._data, Value) else np.asarray(leaf._data))
        elif isinstance(leaf, np.ndarray | int | float | bool):
            outputs.append(np.asarray(leaf))
        else:
            raise ExportError(f"export: {name}.construct returns a {type(leaf).__name__}; an "
                              "exported network returns tensors (or tuples/lists of them)")
    graph.outputs = [v for v in outputs if isinstance(v, Value)]
    graph.nodes = [n for n in graph.nodes if not isinstance(n.prim, PrintOp)]
    graph.inputs.sort(key=lambda v: v.kind != ValueKind.PARAM)
    run_passes(graph)  # folding, CSE, DCE (the flags and updates left out above go)
    params = {value.id: param for param, value in traced.interp.params.values()}
    return Captured(name, graph, params, outputs, batch=0, batch_inputs=[])


def _pairs(a: Captured, b: Captured) -> list[tuple[Value, Value]]:
    ga, gb = a.graph, b.graph
    differ = len(ga.nodes) != len(gb.nodes) or len(ga.inputs) != len(gb.inputs) or any(
        type(x.prim) is not type(y.prim) or len(x.inputs) != len(y.inputs)
        for x, y in zip(ga.nodes, gb.nodes))
    if differ or len(a.outputs) != len(b.outputs):
        raise ExportError(f"export: {a.name} traces to different graphs at two batch sizes (Python "
                          "code branching on the batch size?), so its batch axis cannot be "
                          "symbolic; export with batch_axis=None for a fixed batch size")
    pairs = list(zip(ga.inputs, gb.inputs))
    for x, y in zip(ga.nodes, gb.nodes):
        pairs += [(u, v) for u, v in zip(x.inputs, y.inputs) if u.kind == ValueKind.CONST]
        pairs += list(zip(x.outputs, y.outputs))
    return pairs


def _symbolic_dims(a: Captured, b: Captured, batch_a: int, batch_b: int) -> dict[int, tuple[Dim, ...]]:
    dims: dict[int, tuple[Dim, ...]] = {}
    for u, v in _pairs(a, b):
        if u.shape == v.shape:
            continue
        if len(u.shape) != len(v.shape):
            raise ExportError(f"export: {a.name}: a value's rank depends on the batch size "
                              f"({u.shape} vs {v.shape}); export with batch_axis=None")
        out: list[Dim] = []
        for da, db in zip(u.shape, v.shape):
            scale, rest = divmod(db - da, batch_b - batch_a)
            if da == db:
                out.append(da)
            elif rest or scale <= 0:
                raise ExportError(f"export: {a.name}: a dimension is not a multiple of the batch "
                                  f"size ({u.shape} at batch {batch_a}, {v.shape} at batch "
                                  f"{batch_b}); export with batch_axis=None")
            else:
                out.append(BatchDim(scale, da - scale * batch_a))
        dims[u.id] = tuple(out)
    return dims
