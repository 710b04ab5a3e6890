"""The ONNX graph under construction, and what a converter sees of it.

A converter (one per primitive class, in :mod:`.onnx_ops`) is called as
``convert(ctx, *inputs) -> str | tuple[str, ...]``:

- ``inputs`` are the ONNX names of the IR node's inputs (parameters are initializers named
  after the Parameter, constants are initializers, a constant whose shape follows the batch
  is a ``ConstantOfShape``);
- ``ctx`` is a :class:`NodeContext`: ``ctx.prim`` (the attributes), ``ctx.in_specs`` /
  ``ctx.out_specs`` (shapes and NumPy dtypes as traced, at the traced batch size),
  ``ctx.in_dims`` / ``ctx.out_dims`` (the same shapes with the batch-dependent dimensions as
  :class:`.capture.BatchDim`), and helpers to emit ONNX nodes (``emit``), constants
  (``const``, ``ints``, ``scalar``), shape tensors that follow the batch (``shape``) and casts;
- it returns one ONNX name per node output, with exactly the IR output's dtype (the ONNX
  shape equals the IR shape, batch dimensions symbolic), or ``""`` for an output that
  ``ctx.used(k)`` says nothing reads. It never re-runs the shape rule.

A converter that cannot express its node calls ``ctx.fail(reason)``: an
:class:`.capture.ExportError` naming the primitive and the user's source line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..ir import Node, Value, ValueKind
from ..primitive import Spec
from .capture import BatchDim, Captured, Dim, ExportError


def onnx_dtype(dtype: Any) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class OnnxGraph:
    """Nodes and initializers of the graph being built, and the names of IR values."""

    def __init__(self, captured: Captured) -> None:
        self.captured = captured
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.names: dict[int, str] = {}  # IR value id -> ONNX name
        self.used: set[int] = set()  # ids of the IR values a node or an output reads
        self._taken: set[str] = set()
        self._dims: dict[BatchDim, str] = {}  # a batch dimension as a (1,) int64 tensor

    def fresh(self, hint: str) -> str:
        name, k = hint, 1
        while name in self._taken:
            k += 1
            name = f"{hint}_{k}"
        self._taken.add(name)
        return name

    def emit(self, op: str, inputs: Sequence[str], outputs: int | Sequence[str] = 1,
             **attrs: Any) -> Any:
        """Append one ONNX node; its output name (a tuple of them for several outputs)."""
        if isinstance(outputs, int):
            stem = op.lower()
            outputs = [self.fresh(stem) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs),
                                           name=self.fresh(f"n_{op}"), **attrs))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def const(self, array: Any, hint: str = "const") -> str:
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def ints(self, values: Sequence[int], hint: str = "ints") -> str:
        return self.const(np.asarray(list(values), np.int64), hint)

    # -- the batch size at run time -----------------------------------------------------
    def batch_dim(self, dim: BatchDim) -> str:
        """``dim`` of this run as a 1-element int64 tensor (from the first batched input)."""
        if dim in self._dims:
            return self._dims[dim]
        if BatchDim(1) not in self._dims:
            position, axis = self.captured.batch_inputs[0]
            source = self.names[self.captured.input_values()[position].id]
            self._dims[BatchDim(1)] = self.emit("Shape", [source], start=axis, end=axis + 1)
        name = self._dims[BatchDim(1)]
        if dim.scale != 1:
            name = self.emit("Mul", [name, self.ints([dim.scale], "scale")])
        if dim.offset:
            name = self.emit("Add", [name, self.ints([dim.offset], "offset")])
        self._dims[dim] = name
        return name

    def shape(self, dims: Sequence[Dim]) -> str:
        """A 1-D int64 shape tensor: a constant, or a Concat where dimensions follow the batch."""
        if not any(isinstance(d, BatchDim) for d in dims):
            return self.ints([int(d) for d in dims], "shape")
        parts: list[str] = []
        static: list[int] = []
        for d in dims:
            if isinstance(d, BatchDim):
                if static:
                    parts.append(self.ints(static, "shape"))
                    static = []
                parts.append(self.batch_dim(d))
            else:
                static.append(int(d))
        if static:
            parts.append(self.ints(static, "shape"))
        return self.emit("Concat", parts, axis=0)

    # -- IR values ----------------------------------------------------------------------
    def value(self, v: Value) -> str:
        """The ONNX name of an IR value (a constant becomes an initializer on first use)."""
        name = self.names.get(v.id)
        if name is not None:
            return name
        if v.kind != ValueKind.CONST:
            raise AssertionError(f"IR value {v!r} used before it is defined")
        data = np.asarray(v.data)
        dims = self.captured.shape(v)
        if dims == v.shape:
            name = self.const(data, "const")
        else:  # a constant shaped by the batch: only a uniform fill can follow it
            flat = data.reshape(-1)
            if flat.size == 0 or not (flat == flat[0]).all():
                raise ExportError(f"export: a constant of shape {v.shape} depends on the batch size "
                                  "and is not a uniform fill; export with batch_axis=None")
            name = self.emit("ConstantOfShape", [self.shape(dims)],
                             value=numpy_helper.from_array(flat[:1].copy()))
        self.names[v.id] = name
        return name


class NodeContext:
    """What a converter sees of one IR node (see the module docstring)."""

    def __init__(self, graph: OnnxGraph, node: Node) -> None:
        self.graph = graph
        self.node = node
        self.prim = node.prim
        self.in_specs = tuple(Spec(v.shape, v.dtype) for v in node.inputs)
        self.out_specs = tuple(Spec(v.shape, v.dtype) for v in node.outputs)
        self.in_dims = tuple(graph.captured.shape(v) for v in node.inputs)
        self.out_dims = tuple(graph.captured.shape(v) for v in node.outputs)

    def emit(self, op: str, inputs: Sequence[str], outputs: int | Sequence[str] = 1,
             **attrs: Any) -> Any:
        return self.graph.emit(op, inputs, outputs, **attrs)

    def const(self, array: Any) -> str:
        return self.graph.const(array)

    def ints(self, values: Sequence[int]) -> str:
        return self.graph.ints(values)

    def scalar(self, value: float, dtype: Any) -> str:
        return self.graph.const(np.asarray(value, np.dtype(dtype)), "scalar")

    def shape(self, dims: Sequence[Dim]) -> str:
        return self.graph.shape(dims)

    def out_shape(self, k: int = 0) -> str:
        return self.shape(self.out_dims[k])

    def cast(self, name: str, src: Any, dst: Any) -> str:
        if np.dtype(src) == np.dtype(dst):
            return name
        return self.emit("Cast", [name], to=onnx_dtype(dst))

    def cast_all(self, names: Sequence[str], dtype: Any) -> list[str]:
        """Every input cast to ``dtype`` (ONNX operands must agree; ours promote)."""
        return [self.cast(n, s.dtype, dtype) for n, s in zip(names, self.in_specs)]

    def used(self, k: int) -> bool:
        """Is output ``k`` read by a later node or an output? (Unused ones may be ``""``.)"""
        return self.node.outputs[k].id in self.graph.used

    def symbolic_axes(self, i: int) -> set[int]:
        """Axes of input ``i`` whose size follows the batch."""
        return {a for a, d in enumerate(self.in_dims[i]) if isinstance(d, BatchDim)}

    def fail(self, reason: str) -> None:
        raise ExportError(node_error(self.node, reason))


def node_error(node: Node, reason: str) -> str:
    where = f" (at {node.location})" if node.location is not None else ""
    return f"export to ONNX: primitive {node.prim.name}: {reason}{where}"
