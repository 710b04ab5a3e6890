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
    rows = ctx.out_specs[0].shape[0]  # (symbolic: the template's ``n``, not ``(T * n) // T``)
    x = emit(ctx.bb, x)
    inbound = not _int(rows)  # symbolic: without clamps, so each piece's extent is ``n``
    return tuple(AtUse(relax.op.strided_slice(x, axes=[0], begin=[k * rows], end=[(k + 1) * rows],
                                              assume_inbound=inbound))
                 for k in range(ctx.prim.parts))


def _int(d) -> bool:
    return isinstance(d, int | np.integer)


def lower_slice(ctx: LowerContext, x):
    # a symbolic extent (framework.ir.symbolic): the output's dimension, a TIR expression
    # (``t`` of ``positions[:t]``, ``t - 1`` of ``x[:, 1:]``); a symbolic begin likewise
    # (``k * n``: step k's rows of an unrolled recurrent layer); an axis taken whole
    # (begin 0, the input's extent, symbolic or not) is left alone
    out, full, begins = ctx.out_specs[0].shape, ctx.in_specs[0].shape, ctx.prim.begin
    if all(_int(d) for d in (*out, *full, *begins)):
        return crop(x, full, begins, ctx.prim.size)
    axes, begin, end = [], [], []
    for axis, (b, e, d) in enumerate(zip(begins, out, full)):
        if _int(b) and int(b) == 0 and _same(e, d):
            continue
        axes.append(axis)
        b = int(b) if _int(b) else b
        begin.append(b)
        end.append(b + int(e) if _int(e) and _int(b) else e + b)
    if not axes:
        return x
    return relax.op.strided_slice(x, axes, begin, end, assume_inbound=True)


def _same(a, b) -> bool:
    if isinstance(a, int | np.integer) or isinstance(b, int | np.integer):
        return isinstance(a, int | np.integer) and isinstance(b, int | np.integer) and int(a) == int(b)
    return bool(tvm_ffi.structural_equal(a, b))


def lower_pad(ctx: LowerContext, x):
    paddings = ctx.prim.paddings
    if all(_int(v) for pair in paddings for v in pair):
        if not any(a or b for a, b in paddings):
            return x
        widths = [int(v) for pair in paddings for v in pair]
        return relax.op.nn.pad(x, widths, "constant", 0.0)
    # symbolic widths (a gradient of a Slice with a symbolic begin): zeros on each side,
    # axis by axis, joined to ``x``
    dtype, shape = ctx.out_specs[0].dtype.name, list(ctx.in_specs[0].shape)
    for axis, (lo, hi) in enumerate(paddings):
        parts = []
        for width in (lo, hi):
            if not (_int(width) and int(width) == 0):
                parts.append(relax.op.zeros(shape[:axis] + [width] + shape[axis + 1:], dtype))
        if not parts:
            continue
        pieces = ([parts[0]] if not (_int(lo) and int(lo) == 0) else []) + [x] + \
            ([parts[-1]] if not (_int(hi) and int(hi) == 0) else [])
        x = emit(ctx.bb, relax.op.concat(pieces, axis))
        shape[axis] = shape[axis] + lo + hi
    return x


def lower_zeros_like(ctx: LowerContext, x):
    return relax.op.zeros_like(x)


def lower_ones_like(ctx: LowerContext, x):
    return relax.op.ones_like(x)
