"""Reductions: sum, mean, max over axes; argmax; the truth reductions all and any."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tvm import relax

from .....ops._utils import normalize_axes, normalize_axis
from .. import te_kernels
from .base import LowerContext, Lowering, cast, const, emit


def reduction(op: Callable[..., relax.Expr]) -> Lowering:
    """Relax reductions keep the input dtype; the node's output dtype may differ."""

    def lower(ctx: LowerContext, x):
        spec = ctx.in_specs[0]
        axes = normalize_axes(ctx.prim.axis, len(spec.shape))
        if not axes:  # 0-d input: nothing to reduce
            return x
        out = op(x, list(axes), ctx.prim.keep_dims)
        return cast(emit(ctx.bb, out), spec.dtype, ctx.out_specs[0].dtype)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def lower_reduce_mean(ctx: LowerContext, x):
    """Floats: Relax's mean. Integers: the sum in int64, divided toward zero
    (``sign(s) * (|s| // n)``, exact; Relax's integer mean returns int64). The mean of no
    entries is NaN (integers: 0), as NumPy's kernel gives; TVM refuses to divide by 0."""
    spec = ctx.in_specs[0]
    axes = normalize_axes(ctx.prim.axis, len(spec.shape))
    out = ctx.out_specs[0]
    if np.dtype(spec.dtype).kind == "f" and not all(isinstance(spec.shape[a], int) for a in axes):
        return reduction(relax.op.mean)(ctx, x)  # a symbolic count (never 0): Relax divides by it
    count = int(np.prod([spec.shape[a] for a in axes], dtype=np.int64))
    if axes and count == 0:
        zeros = emit(ctx.bb, relax.op.zeros(list(out.shape), out.dtype.name))
        return relax.op.add(zeros, const(np.nan, out.dtype)) if out.dtype.kind == "f" else zeros
    if not axes or np.dtype(spec.dtype).kind == "f":
        return reduction(relax.op.mean)(ctx, x)
    bb = ctx.bb
    total = emit(bb, relax.op.sum(emit(bb, cast(x, spec.dtype, "int64")), list(axes),
                                  ctx.prim.keep_dims))
    quotient = relax.op.floor_divide(emit(bb, relax.op.abs(total)), const(count, "int64"))
    out = relax.op.multiply(emit(bb, relax.op.sign(total)), emit(bb, quotient))
    return cast(emit(bb, out), "int64", ctx.out_specs[0].dtype)


def lower_reduce_max(ctx: LowerContext, x):
    """Floats: NumPy's NaN and all ``-inf`` answers (:func:`te_kernels.reduce_max`)."""
    spec = ctx.in_specs[0]
    axes = normalize_axes(ctx.prim.axis, len(spec.shape))
    if not axes or np.dtype(spec.dtype).kind != "f":
        return reduction(relax.op.max)(ctx, x)
    out = ctx.bb.call_te(te_kernels.reduce_max, x, list(axes), ctx.prim.keep_dims)
    return cast(emit(ctx.bb, out), spec.dtype, ctx.out_specs[0].dtype)


def lower_argmax(ctx: LowerContext, x):
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    # relax.op.argmax returns int64; ties go to the first index like np.argmax
    return cast(ctx.bb.emit(relax.op.argmax(x, axis, False)), np.int64, ctx.out_specs[0].dtype)


def truth(any_: bool) -> Lowering:
    """ReduceAny/ReduceAll: nonzero is True; max/min of int8 flags (TVM has no bool
    reductions), then bool."""

    def lower(ctx: LowerContext, x):
        spec = ctx.in_specs[0]
        axes = normalize_axes(ctx.prim.axis, len(spec.shape))
        if spec.dtype != np.bool_:
            x = ctx.bb.emit(relax.op.not_equal(x, const(0, spec.dtype)))
        flags = emit(ctx.bb, cast(x, np.bool_, np.int8))
        if axes:
            reduce = relax.op.max if any_ else relax.op.min
            flags = ctx.bb.emit(reduce(flags, list(axes), ctx.prim.keep_dims))
        return cast(flags, np.int8, ctx.out_specs[0].dtype)

    lower.__name__ = "lower_reduce_any" if any_ else "lower_reduce_all"
    return lower
