"""MindIR conversions of the transformer-style and selection primitives (LayerNorm, GELU,
SiLU, batched products, sums and maxima, powers, comparisons, Select, Gather, Slice,
BroadcastTo, Rsqrt, Square); merged into :data:`.writer.CONVERTERS`. Same contract as the
converters of :mod:`.writer`; each writes the primitive with MindSpore 2.10's input order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import Node, ValueKind
from ..ops import activations as act
from ..ops import elementwise as ew
from ..ops import math_unary as mu
from ..ops import reduce as rd
from ..ops import shape_ops as sh
from ..ops._utils import normalize_axes, normalize_axis
from ..ops.batch_matmul import BatchMatMul
from ..ops.layer_norm import LayerNorm
from ..ops.scatter_gather import Gather


def _operands(w: Any, node: Node, names: tuple[str, ...], dtype: Any) -> list[str]:
    """Constants written in ``dtype`` (MindSpore's operands share one dtype)."""
    out = []
    for v, name in zip(node.inputs, names):
        if v.kind == ValueKind.CONST:
            name = w.value(v, dtype)
        elif np.dtype(v.dtype) != np.dtype(dtype):
            w.fail(node, f"mixes {np.dtype(v.dtype)} and {np.dtype(dtype)} operands; cast first")
        out.append(name)
    return out


def convert_layer_norm(w: Any, node: Node, x: str, gamma: str, beta: str) -> tuple[str, str, str]:
    p = node.prim
    used = {v.id for n in w.captured.graph.nodes for v in n.inputs} | {
        o.id for o in w.captured.outputs if not isinstance(o, np.ndarray)}
    if node.outputs[1].id in used or node.outputs[2].id in used:
        w.fail(node, "its mean/variance outputs are used (MindSpore's LayerNorm gives mean and "
                     "rstd); only the normalized output is exported")
    ndim = len(node.inputs[0].shape)
    norm_axis, params_axis = p.axes(ndim)
    out = w.call("LayerNorm", [x, gamma, beta, w.const(norm_axis), w.const(params_axis),
                               w.const(float(p.epsilon))], instance="layer_norm")
    return w.call("TupleGetItem", [out, w.const(0)], function=False), "", ""


def convert_gelu(w: Any, node: Node, x: str) -> str:
    if node.prim.approximate == "tanh":
        return w.call("GeLU", [x])
    dtype = np.dtype(node.outputs[0].dtype)  # x * (erf(x / sqrt 2) + 1) / 2
    erf = w.call("Erf", [w.call("Mul", [x, w.const(np.asarray(1 / math.sqrt(2), dtype))])])
    half = w.call("Mul", [x, w.const(np.asarray(0.5, dtype))])
    return w.call("Mul", [half, w.call("Add", [erf, w.const(np.asarray(1.0, dtype))])])


def convert_batch_matmul(w: Any, node: Node, a: str, b: str) -> str:
    p = node.prim
    return w.call("BatchMatMul", [a, b, w.const(bool(p.transpose_a)), w.const(bool(p.transpose_b))])


def reduction(op: str) -> Any:
    def convert(w: Any, node: Node, x: str) -> str:
        axes = tuple(normalize_axes(node.prim.axis, len(node.inputs[0].shape))) or tuple(
            range(len(node.inputs[0].shape)))
        extra = [w.const(False)] if op == "ReduceSum" else []  # skip_mode
        return w.call(op, [x, w.const(axes), w.const(bool(node.prim.keep_dims)), *extra])
    return convert


def compare(op: str) -> Any:
    def convert(w: Any, node: Node, x: str, y: str) -> str:
        dtypes = [np.dtype(v.dtype) for v in node.inputs if v.kind != ValueKind.CONST]
        return w.call(op, _operands(w, node, (x, y), dtypes[0] if dtypes else node.inputs[0].dtype))
    return convert


def convert_select(w: Any, node: Node, cond: str, x: str, y: str) -> str:
    """MindSpore's Select broadcasts; constants are written in the output's dtype."""
    dtype = np.dtype(node.outputs[0].dtype)
    names = [cond]
    for v, name in zip(node.inputs[1:], (x, y)):
        names.append(w.value(v, dtype) if v.kind == ValueKind.CONST else name)
    return w.call("Select", names)


def convert_gather(w: Any, node: Node, x: str, indices: str) -> str:
    axis = normalize_axis(node.prim.axis, len(node.inputs[0].shape))
    return w.call("Gather", [x, indices, w.const(axis), w.const(0)])  # batch_dims 0


def convert_slice(w: Any, node: Node, x: str) -> str:
    dims = w.captured.shape(node.inputs[0])
    begin, size = tuple(node.prim.begin), list(node.prim.size)
    for axis, d in enumerate(dims):
        if not isinstance(d, int):
            if begin[axis] != 0 or size[axis] != node.inputs[0].shape[axis]:
                w.fail(node, "slices the batch axis; export with a fixed batch")
            size[axis] = -1  # to the end: any batch size
    return w.call("Slice", [x, w.const(begin), w.const(tuple(size))])


def convert_broadcast_to(w: Any, node: Node, x: str) -> str:
    return w.call("BroadcastTo", [x, w.const(w.batch_shape(node, w.captured.shape(node.outputs[0])))])


def convert_pow(w: Any, node: Node, x: str, y: str) -> str:
    return w.call("Pow", _operands(w, node, (x, y), node.outputs[0].dtype))


CONVERTERS: dict[type, Any] = {
    LayerNorm: convert_layer_norm,
    act.GeLU: convert_gelu,
    act.SiLU: lambda w, node, x: w.call("SiLU", [x]),
    act.Erf: lambda w, node, x: w.call("Erf", [x]),
    mu.Rsqrt: lambda w, node, x: w.call("Rsqrt", [x]),
    mu.Square: lambda w, node, x: w.call("Square", [x]),
    BatchMatMul: convert_batch_matmul,
    rd.ReduceSum: reduction("ReduceSum"),
    rd.ReduceMax: reduction("ReduceMax"),
    ew.Pow: convert_pow,
    ew.Greater: compare("Greater"), ew.GreaterEqual: compare("GreaterEqual"),
    ew.Less: compare("Less"), ew.LessEqual: compare("LessEqual"),
    ew.Equal: compare("Equal"), ew.NotEqual: compare("NotEqual"),
    ew.Select: convert_select,
    Gather: convert_gather,
    sh.Slice: convert_slice,
    sh.BroadcastTo: convert_broadcast_to,
}
