"""Index primitives: Gather, IndexAdd, ScatterUpdate.

Indices: negative ones are wrapped once (as the kernels do); out-of-range ones are clipped
(``take(mode="clip")``, or an explicit clip before a scatter) where the kernels raise, so
compiled code never reads or writes outside a tensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tvm import relax

from .....ops._utils import normalize_axis
from .....primitive import Spec
from .. import row_scatter
from .base import LowerContext, const, on_cpu


def _wrap(bb: relax.BlockBuilder, indices: relax.Expr, spec: Spec, dim: int) -> relax.Expr:
    """``indices + dim`` where negative (signed index dtypes only)."""
    if spec.dtype.kind == "u":
        return indices
    negative = bb.emit(relax.op.less(indices, const(0, spec.dtype)))
    shifted = bb.emit(relax.op.add(indices, const(dim, spec.dtype)))
    return bb.emit(relax.op.where(negative, shifted, indices))


def _clip(bb: relax.BlockBuilder, indices: relax.Expr, spec: Spec, dim: int) -> relax.Expr:
    low = bb.emit(relax.op.maximum(indices, const(0, spec.dtype)))
    return bb.emit(relax.op.minimum(low, const(dim - 1, spec.dtype)))


def _along(bb: relax.BlockBuilder, indices: relax.Expr, axis: int,
           target: Sequence[int]) -> relax.Expr:
    """Indices (any shape, ``target[axis]`` of them) as a tensor of ``target``'s shape,
    varying along ``axis`` only."""
    shape = [1] * len(target)
    shape[axis] = target[axis]
    flat = bb.emit(relax.op.reshape(indices, shape))
    return bb.emit(relax.op.broadcast_to(flat, list(target)))


def lower_gather(ctx: LowerContext, x, indices):
    xs, ids = ctx.in_specs
    axis = normalize_axis(ctx.prim.axis, len(xs.shape))
    # "wrap" reads index i at i mod n: a negative index counts from the end, as in the
    # NumPy kernel, in the gather's own kernel (out-of-range ones, an error there, stay in bounds)
    return relax.op.take(x, indices, axis, mode="wrap")


def _scatter(ctx: LowerContext, x, indices, values, axis: int, reduction: str):
    """Scatter the rows of ``values`` (``indices.size`` of them along ``axis``) into ``x``."""
    xs, ids = ctx.in_specs[0], ctx.in_specs[1]
    count = math.prod(ids.shape)
    if count == 0:
        return x
    target = xs.shape[:axis] + (count,) + xs.shape[axis + 1:]
    dim = xs.shape[axis]
    if (reduction == "add" and axis == 0 and xs.dtype.kind == "f" and on_cpu()
            and ids.dtype.name in ("int32", "int64")):
        # rows added at row indices (an Embedding's gradient): one vector loop per row
        width = math.prod(xs.shape[1:])
        bb = ctx.bb
        flat = bb.emit(relax.op.reshape(indices, [count]))
        index = _clip(bb, _wrap(bb, flat, ids, dim), ids, dim)
        rows = bb.emit(relax.op.reshape(values, [count, width]))
        table = bb.emit(relax.op.reshape(x, [dim, width]))
        summed = bb.emit(row_scatter.index_add_rows(bb, table, index, rows))
        return relax.op.reshape(summed, list(xs.shape))
    index = _along(ctx.bb, _clip(ctx.bb, _wrap(ctx.bb, indices, ids, dim), ids, dim), axis, target)
    rows = ctx.bb.emit(relax.op.reshape(values, list(target)))
    return relax.op.scatter_elements(x, index, rows, axis, reduction=reduction)


def lower_index_add(ctx: LowerContext, x, indices, y):
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    return _scatter(ctx, x, indices, y, axis, "add")


def lower_scatter_update(ctx: LowerContext, x, indices, updates):
    return _scatter(ctx, x, indices, updates, 0, "update")
