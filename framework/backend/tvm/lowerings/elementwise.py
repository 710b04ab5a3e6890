"""Elementwise primitives: arithmetic, comparisons, select, casts, unary math."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tvm import relax, topi

from .base import LowerContext, Lowering, cast


def binary(op: Callable[..., relax.Expr], float_only: bool = False) -> Lowering:
    """Broadcasting arithmetic in the node's output dtype.

    TVM cannot do arithmetic or comparisons on bool tensors (LLVM verification fails), so
    bools compute in int8 and convert back with ``!= 0`` (``+`` is or, ``*`` is and, as in
    NumPy). ``float_only`` ops (TVM's ``power``) compute integers in float64.
    """

    def lower(ctx: LowerContext, x, y):
        (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
        if dtype.kind == "f":
            return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))
        work = np.dtype(np.float64 if float_only else np.int8 if dtype == np.bool_ else dtype)
        if work == dtype:
            return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))
        return cast(ctx.bb.emit(op(cast(x, xs.dtype, work), cast(y, ys.dtype, work))), work, dtype)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def compare(op: Callable[..., relax.Expr]) -> Lowering:
    def lower(ctx: LowerContext, x, y):
        xs, ys = ctx.in_specs
        dtype = np.result_type(xs.dtype, ys.dtype)
        if dtype == np.bool_:  # no bool comparisons in TVM's codegen
            dtype = np.dtype(np.int8)
        return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def unary(op: Callable[..., relax.Expr]) -> Lowering:
    def lower(ctx: LowerContext, x):
        return op(x)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def lower_tanh(ctx: LowerContext, x):
    """TOPI's ``fast_tanh`` (a clamped rational approximation): within 2 float32 ulps of
    ``tanh`` and about 6x faster than the libm call per element (RNN cells are bound by it)."""
    if ctx.in_specs[0].dtype != np.float32:
        return relax.op.tanh(x)
    return ctx.bb.call_te(topi.fast_tanh, x)


def lower_select(ctx: LowerContext, cond, x, y):
    _, xs, ys = ctx.in_specs
    dtype = ctx.out_specs[0].dtype
    return relax.op.where(cond, cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))


def lower_cast(ctx: LowerContext, x):
    # float -> int truncates toward zero in both NumPy and LLVM (fptosi)
    return cast(x, ctx.in_specs[0].dtype, ctx.out_specs[0].dtype)
