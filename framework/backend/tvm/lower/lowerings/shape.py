"""Shape primitives: reshape, transpose, broadcast, squeeze, concat, slice, pad, fills."""

from __future__ import annotations

import numpy as np
import tvm_ffi
from tvm import relax

from .....ops._utils import normalize_axis
from .. import concat_copies
from .base import AtUse, LowerContext, cast, crop, emit


def identity(ctx: LowerContext, x):
    return x


def lower_reshape(ctx: LowerContext, x):
    return relax.op.reshape(x, list(ctx.out_specs[0].shape))


def lower_transpose(ctx: LowerContext, x):
    return relax.op.permute_dims(x, list(ctx.prim.perm))


def lower_broadcast_to(ctx: LowerContext, x):
    return relax.op.broadcast_to(x, list(ctx.out_specs[0].shape))


def lower_expand_dims(ctx: LowerContext, x):
    return relax.op.expand_dims(x, normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape) + 1))


def lower_squeeze(ctx: LowerContext, x):
    axes = ctx.prim._axes(ctx.in_specs[0].shape)
    if not axes:
        return x
    return relax.op.squeeze(x, list(axes))


def lower_concat(ctx: LowerContext, *xs):
    dtype = ctx.out_specs[0].dtype
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    return concat_copies.concat(ctx.bb, [cast(x, s.dtype, dtype) for x, s in zip(xs, ctx.in_specs)], axis)


def lower_split_rows(ctx: LowerContext, x):
    """A row slice per piece, each emitted where it is first read (:class:`.base.AtUse`):
    an unrolled recurrent step copies its rows of the projection just before its gate
    add reads them, instead of one split of the whole projection before the loop."""
    rows = ctx.in_specs[0].shape[0] // ctx.prim.parts
    x = emit(ctx.bb, x)
    return tuple(AtUse(relax.op.strided_slice(x, axes=[0], begin=[k * rows], end=[(k + 1) * rows]))
                 for k in range(ctx.prim.parts))


def lower_slice(ctx: LowerContext, x):
    # a symbolic extent (framework.ir.symbolic): the output's dimension, a TIR expression
    # (``t`` of ``positions[:t]``, ``t - 1`` of ``x[:, 1:]``); an axis taken whole (begin 0,
    # the input's extent, symbolic or not) is left alone
    out, full = ctx.out_specs[0].shape, ctx.in_specs[0].shape
    if all(isinstance(d, int | np.integer) for d in (*out, *full)):
        return crop(x, full, ctx.prim.begin, ctx.prim.size)
    axes, begin, end = [], [], []
    for axis, (b, e, d) in enumerate(zip(ctx.prim.begin, out, full)):
        if int(b) == 0 and _same(e, d):
            continue
        axes.append(axis)
        begin.append(int(b))
        end.append(int(b) + int(e) if isinstance(e, int | np.integer) else e + int(b))
    if not axes:
        return x
    return relax.op.strided_slice(x, axes, begin, end, assume_inbound=True)


def _same(a, b) -> bool:
    if isinstance(a, int | np.integer) or isinstance(b, int | np.integer):
        return isinstance(a, int | np.integer) and isinstance(b, int | np.integer) and int(a) == int(b)
    return bool(tvm_ffi.structural_equal(a, b))


def lower_pad(ctx: LowerContext, x):
    paddings = ctx.prim.paddings
    if not any(a or b for a, b in paddings):
        return x
    widths = [int(v) for pair in paddings for v in pair]
    return relax.op.nn.pad(x, widths, "constant", 0.0)


def lower_zeros_like(ctx: LowerContext, x):
    return relax.op.zeros_like(x)


def lower_ones_like(ctx: LowerContext, x):
    return relax.op.ones_like(x)
