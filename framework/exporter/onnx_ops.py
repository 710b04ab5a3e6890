"""ONNX conversions of the elementwise, reduction and shape primitives, and the table of
every conversion (``CONVERTERS``: primitive class -> converter; the neural-network
families are in :mod:`.onnx_nn`). The converter contract is in :mod:`.onnx_context`.

ONNX operands of one node must agree in dtype where ours promote (``int32 + float32``):
converters cast to the IR output's dtype first. Opset 18 (``Split(num_outputs)``, axes as
inputs of the reductions).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from onnx import numpy_helper

from ..ops import elementwise as ew
from ..ops import reduce as rd
from ..ops import shape_ops as sh
from ..ops._utils import normalize_axes, normalize_axis, result_dtype
from ..ops.scan import CumSum
from ..ops.split_rows import SplitRows
from ..primitive import Primitive
from . import onnx_nn
from .onnx_context import NodeContext, onnx_dtype

Converter = Callable[..., str | tuple[str, ...]]


# -- elementwise --------------------------------------------------------------------------
def arithmetic(op: str) -> Converter:
    """A broadcasting binary op, operands cast to the result's dtype."""
    def convert(ctx: NodeContext, x: str, y: str) -> str:
        return ctx.emit(op, ctx.cast_all([x, y], ctx.out_specs[0].dtype))
    return convert


def unary(op: str) -> Converter:
    """A unary op in the output's dtype (float ops of integers compute in float32)."""
    def convert(ctx: NodeContext, x: str) -> str:
        return ctx.emit(op, [ctx.cast(x, ctx.in_specs[0].dtype, ctx.out_specs[0].dtype)])
    return convert


def convert_div(ctx: NodeContext, x: str, y: str) -> str:
    """True division; mixed or integer operands divide in float64, as the kernel does."""
    out = ctx.out_specs[0].dtype
    a, b = ctx.in_specs
    if a.dtype == b.dtype == out:
        return ctx.emit("Div", [x, y])
    q = ctx.emit("Div", ctx.cast_all([x, y], np.float64))
    return ctx.cast(q, np.float64, out)


def floor_family(mod: bool) -> Converter:
    """FloorDiv / FloorMod rounding toward -inf (the divisor's sign for mod); floats as
    MindSpore's (framework/ops/floor_float.py): ``floor(x / y)``, ``x - floor(x / y) * y``
    in float64 (a division by zero stays IEEE's here)."""
    def convert(ctx: NodeContext, x: str, y: str) -> str:
        dtype = ctx.out_specs[0].dtype
        if dtype.kind in "iu":
            x, y = ctx.cast_all([x, y], dtype)
            r = ctx.emit("Mod", [x, y], fmod=0)  # integer Mod: Python's sign convention
            return r if mod else ctx.emit("Div", [ctx.emit("Sub", [x, r]), y])  # exact
        x, y = ctx.cast_all([x, y], np.float64)
        q = ctx.emit("Floor", [ctx.emit("Div", [x, y])])
        return ctx.cast(ctx.emit("Sub", [x, ctx.emit("Mul", [q, y])]) if mod else q, np.float64, dtype)
    return convert


def compare(op: str, negate: bool = False) -> Converter:
    def convert(ctx: NodeContext, x: str, y: str) -> str:
        dtype = result_dtype(*(s.dtype for s in ctx.in_specs))
        if dtype == np.bool_ and op != "Equal":
            dtype = np.dtype(np.int32)  # ONNX orders numbers only
        out = ctx.emit(op, ctx.cast_all([x, y], dtype))
        return ctx.emit("Not", [out]) if negate else out
    return convert


def convert_select(ctx: NodeContext, cond: str, x: str, y: str) -> str:
    dtype = ctx.out_specs[0].dtype
    _, sx, sy = ctx.in_specs
    return ctx.emit("Where", [cond, ctx.cast(x, sx.dtype, dtype), ctx.cast(y, sy.dtype, dtype)])


def convert_cast(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Cast", [x], to=onnx_dtype(ctx.out_specs[0].dtype))


# -- reductions ---------------------------------------------------------------------------
def reduction(op: str) -> Converter:
    def convert(ctx: NodeContext, x: str) -> str:
        axes = normalize_axes(ctx.prim.axis, len(ctx.in_specs[0].shape))
        if not axes:
            return ctx.emit("Identity", [x])
        return ctx.emit(op, [x, ctx.ints(axes)], keepdims=int(ctx.prim.keep_dims))
    return convert


def truth(op: str) -> Converter:
    """ReduceAll / ReduceAny: min / max of the bools as int32."""
    def convert(ctx: NodeContext, x: str) -> str:
        axes = normalize_axes(ctx.prim.axis, len(ctx.in_specs[0].shape))
        if not axes:
            return ctx.emit("Identity", [x])
        ints = ctx.cast(x, np.bool_, np.int32)
        out = ctx.emit(op, [ints, ctx.ints(axes)], keepdims=int(ctx.prim.keep_dims))
        return ctx.cast(out, np.int32, np.bool_)
    return convert


def convert_argmax(ctx: NodeContext, x: str) -> str:
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    out = ctx.emit("ArgMax", [x], axis=axis, keepdims=0, select_last_index=0)
    return ctx.cast(out, np.int64, ctx.out_specs[0].dtype)


def convert_cumsum(ctx: NodeContext, x: str) -> str:
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    return ctx.emit("CumSum", [x, ctx.const(np.asarray(axis, np.int64))],
                    exclusive=int(ctx.prim.exclusive), reverse=int(ctx.prim.reverse))


# -- shapes -------------------------------------------------------------------------------
def convert_reshape(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Reshape", [x, ctx.out_shape()])


def convert_broadcast_to(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Expand", [x, ctx.out_shape()])


def convert_transpose(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Transpose", [x], perm=list(ctx.prim.perm))


def convert_expand_dims(ctx: NodeContext, x: str) -> str:
    axis = normalize_axis(ctx.prim.axis, len(ctx.out_specs[0].shape))
    return ctx.emit("Unsqueeze", [x, ctx.ints([axis])])


def convert_squeeze(ctx: NodeContext, x: str) -> str:
    axes = ctx.prim._axes(ctx.in_specs[0].shape)
    if set(axes) & ctx.symbolic_axes(0):
        ctx.fail("squeezes the batch axis; export with batch_axis=None")
    return ctx.emit("Squeeze", [x, ctx.ints(axes)]) if axes else ctx.emit("Identity", [x])


def convert_concat(ctx: NodeContext, *xs: str) -> str:
    axis = normalize_axis(ctx.prim.axis, len(ctx.out_specs[0].shape))
    return ctx.emit("Concat", ctx.cast_all(xs, ctx.out_specs[0].dtype), axis=axis)


def convert_split_rows(ctx: NodeContext, x: str) -> tuple[str, ...]:
    return ctx.emit("Split", [x], outputs=ctx.prim.parts, axis=0, num_outputs=ctx.prim.parts)


def convert_slice(ctx: NodeContext, x: str) -> str:
    shape, batched = ctx.in_specs[0].shape, ctx.symbolic_axes(0)
    starts, ends, axes = [], [], []
    for axis, (b, s, d) in enumerate(zip(ctx.prim.begin, ctx.prim.size, shape)):
        if b == 0 and s == d:
            continue  # the whole axis
        if axis in batched:
            ctx.fail(f"slices the batch axis ({axis}); export with batch_axis=None")
        starts.append(b)
        ends.append(b + s)
        axes.append(axis)
    if not axes:
        return ctx.emit("Identity", [x])
    return ctx.emit("Slice", [x, ctx.ints(starts), ctx.ints(ends), ctx.ints(axes)])


def convert_pad(ctx: NodeContext, x: str) -> str:
    pairs = ctx.prim.paddings
    pads = [a for a, _ in pairs] + [b for _, b in pairs]
    return ctx.emit("Pad", [x, ctx.ints(pads)], mode="constant")


def fill(value: float) -> Converter:
    """ZerosLike / OnesLike: a constant of the input's (run-time) shape."""
    def convert(ctx: NodeContext, x: str) -> str:
        return ctx.emit("ConstantOfShape", [ctx.emit("Shape", [x])],
                        value=numpy_helper.from_array(np.asarray([value], ctx.out_specs[0].dtype)))
    return convert


def identity(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Identity", [x])


CONVERTERS: dict[type[Primitive], Converter] = {
    ew.Add: arithmetic("Add"),
    ew.Sub: arithmetic("Sub"),
    ew.Mul: arithmetic("Mul"),
    ew.Div: convert_div,
    ew.Pow: arithmetic("Pow"),
    ew.Maximum: arithmetic("Max"),
    ew.Minimum: arithmetic("Min"),
    ew.FloorDiv: floor_family(mod=False),
    ew.FloorMod: floor_family(mod=True),
    ew.Equal: compare("Equal"),
    ew.NotEqual: compare("Equal", negate=True),
    ew.Less: compare("Less"),
    ew.LessEqual: compare("LessOrEqual"),
    ew.Greater: compare("Greater"),
    ew.GreaterEqual: compare("GreaterOrEqual"),
    ew.Select: convert_select,
    ew.Cast: convert_cast,
    ew.Neg: unary("Neg"),
    ew.Abs: unary("Abs"),
    ew.Exp: unary("Exp"),
    ew.Log: unary("Log"),
    ew.Sqrt: unary("Sqrt"),
    ew.ReLU: unary("Relu"),
    ew.Sigmoid: unary("Sigmoid"),
    ew.Tanh: unary("Tanh"),
    ew.Cos: unary("Cos"),
    ew.Sin: unary("Sin"),
    rd.ReduceSum: reduction("ReduceSum"),
    rd.ReduceMean: reduction("ReduceMean"),
    rd.ReduceMax: reduction("ReduceMax"),
    rd.ReduceAll: truth("ReduceMin"),
    rd.ReduceAny: truth("ReduceMax"),
    rd.Argmax: convert_argmax,
    CumSum: convert_cumsum,
    sh.Reshape: convert_reshape,
    sh.Transpose: convert_transpose,
    sh.BroadcastTo: convert_broadcast_to,
    sh.ExpandDims: convert_expand_dims,
    sh.Squeeze: convert_squeeze,
    sh.Concat: convert_concat,
    SplitRows: convert_split_rows,
    sh.Slice: convert_slice,
    sh.Pad: convert_pad,
    sh.StopGradient: identity,
    sh.Load: identity,
    sh.ZerosLike: fill(0),
    sh.OnesLike: fill(1),
    **onnx_nn.CONVERTERS,
}
