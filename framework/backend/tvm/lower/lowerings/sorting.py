"""TopK, Sort and Multinomial lowerings.

Sort and TopK use TVM's ``argsort``/``topk`` (on CPU the stable sort of
``tvm.contrib.sort``: equal values keep their index order, as in the kernels), then gather
the values at the indices. Multinomial gets its host-drawn uniforms as its extra last
input (``host_random``): with replacement an inverse CDF (``cumsum`` in the input's dtype,
then one comparison per class), without replacement the exponential race (``topk`` of
``log(u) / x``), the kernel's two formulations.
"""

from __future__ import annotations

import numpy as np
from tvm import relax

from .....ops._utils import normalize_axis
from .base import LowerContext, const


def lower_sort(ctx: LowerContext, x):
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    indices = ctx.bb.emit(relax.op.argsort(x, axis, ctx.prim.descending, "int32"))
    return relax.op.gather_elements(x, indices, axis), indices


def lower_topk(ctx: LowerContext, x):
    prim = ctx.prim
    axis = normalize_axis(prim.axis, len(ctx.in_specs[0].shape))
    indices = ctx.bb.emit(relax.op.topk(x, prim.k, axis, "indices", prim.largest, "int32"))
    return relax.op.gather_elements(x, indices, axis), indices


def lower_multinomial(ctx: LowerContext, x, draw):
    prim, bb = ctx.prim, ctx.bb
    xs = ctx.in_specs[0]
    rank, classes = len(xs.shape), xs.shape[-1]
    if not prim.replacement:
        keys = bb.emit(relax.op.divide(relax.op.log(draw), x))
        return relax.op.topk(keys, prim.num_samples, -1, "indices", True, "int32")
    cdf = bb.emit(relax.op.cumsum(x, axis=rank - 1))
    total = bb.emit(relax.op.strided_slice(cdf, [rank - 1], [classes - 1], [classes]))
    target = bb.emit(relax.op.expand_dims(relax.op.multiply(draw, total), rank))
    below = bb.emit(relax.op.less_equal(relax.op.expand_dims(cdf, rank - 1), target))
    picked = bb.emit(relax.op.sum(relax.op.astype(below, "int32"), [rank], False))
    return relax.op.minimum(picked, const(classes - 1, np.int32))
