"""Neural-network primitives: matmul, bias add, softmax, one-hot, dropout, batch norm."""

from __future__ import annotations

import numpy as np
from tvm import relax, te, topi

from .....ops._utils import normalize_axis
from ..segment import SHARED
from .base import LowerContext, cast, const, emit, reciprocal_count

# ``a b^T`` with few rows of ``a`` (an unrolled recurrent step: (32, 256) @ (256, 1024)) reads
# ``b^T`` in panels of PANEL columns: stored panel by panel (``(n / PANEL, k, PANEL)``, each
# panel contiguous) instead of rows a page apart, which alias in the L1 sets and defeat the
# prefetchers when the weight has left the caches between steps (packed_matmul.wants).
PANEL = 32
PANEL_MAX_ROWS = 64
PANEL_MIN_COLUMNS = 1024


def _panel_matmul(a: te.Tensor, panels: te.Tensor) -> te.Tensor:
    """``out[i, j] = sum_k a[i, k] panels[j / w, k, j % w]``: ``a b^T`` over ``b^T`` stored in
    panels of ``w`` columns."""
    (m, k), (_, _, w) = a.shape, panels.shape
    r = te.reduce_axis((0, k), name="k")
    return te.compute((m, panels.shape[0] * w),
                      lambda i, j: te.sum(a[i, r] * panels[j // w, r, j % w], axis=r),
                      name="matmul_panels")


def _wants_panels(a_shape, b_shape, transpose_b: bool) -> bool:
    """Few rows of ``a`` against a weight-sized ``b`` whose ``n`` columns fill panels; a plain
    ``b`` (the recurrent step's backward, ``(32, 1024) @ (1024, 256)``) only when it is tall.
    Rows of a symbolic size (a batch, framework/ir/symbolic.py) take the panels whatever
    their count (pre-packed, as packed_matmul packs ``b`` for many rows; one copy of ``b``
    per segment): a plain ``b`` left the LSTM LM's recurrent matmuls, symbolic in the batch,
    on the generic tile (0.76 ms at batch 32; on panels, their row tiles peeled by
    schedule/row_tails.py, 0.36 ms, as the static kernel)."""
    if len(a_shape) != 2 or len(b_shape) != 2 or not all(isinstance(d, int) for d in b_shape) \
            or (isinstance(a_shape[0], int) and a_shape[0] > PANEL_MAX_ROWS):
        return False
    (n, k) = b_shape if transpose_b else b_shape[::-1]
    wide = n >= PANEL_MIN_COLUMNS if transpose_b else k >= PANEL_MIN_COLUMNS
    return n % PANEL == 0 and n * k >= PANEL_MIN_COLUMNS * PANEL and wide


def _panels(bb: relax.BlockBuilder, b, shape, transpose_b: bool):
    """``b^T`` (or ``b``) as ``(n / PANEL, k, PANEL)``, one copy per dataflow segment and value."""
    key = ("panels", id(bb), b, transpose_b) if isinstance(b, relax.Var) else None
    if key is not None and key in SHARED:  # one copy per segment (segment.py)
        return SHARED[key]
    if transpose_b:
        n, k = shape
        rows = bb.emit(relax.op.reshape(b, [n // PANEL, PANEL, k]))
        panels = bb.emit(relax.op.permute_dims(rows, [0, 2, 1]))
    else:
        k, n = shape
        rows = bb.emit(relax.op.reshape(b, [k, n // PANEL, PANEL]))
        panels = bb.emit(relax.op.permute_dims(rows, [1, 0, 2]))
    if key is not None:
        SHARED[key] = panels
    return panels


def lower_matmul(ctx: LowerContext, a, b):
    """2-D MatMul; ``a b^T`` reads a transposed copy of ``b``, shared by every MatMul of the
    same dataflow segment that transposes the same value."""
    prim, bb = ctx.prim, ctx.bb
    (sa, sb), dtype = ctx.in_specs, ctx.out_specs[0].dtype
    a, b = emit(bb, cast(a, sa.dtype, dtype)), emit(bb, cast(b, sb.dtype, dtype))
    if prim.transpose_a and not prim.transpose_b:
        # a^T b reads both operands along their rows: one kernel, no transposed copy of a
        return bb.call_te(topi.matmul, a, b, True, False)
    if prim.transpose_a:
        a = bb.emit(relax.op.permute_dims(a, [1, 0]))
    if not prim.transpose_a and _wants_panels(sa.shape, sb.shape, prim.transpose_b):
        return bb.call_te(_panel_matmul, a, _panels(bb, b, sb.shape, prim.transpose_b))
    if prim.transpose_b:  # a b^T: a transposed copy, so that the kernel's vector loads of b are contiguous
        key = ("transposed", id(bb), b) if isinstance(b, relax.Var) else None
        if key is None or key not in SHARED:  # one copy per segment (segment.py)
            transposed = bb.emit(relax.op.permute_dims(b, [1, 0]))
            if key is not None:
                SHARED[key] = transposed
        b = transposed if key is None else SHARED[key]
    return relax.op.matmul(a, b)


def lower_bias_add(ctx: LowerContext, x, bias):
    bb = ctx.bb
    (xs, bs), spec = ctx.in_specs, ctx.out_specs[0]
    channels = spec.shape[1]
    bias = emit(bb, cast(bias, bs.dtype, spec.dtype))
    if len(spec.shape) > 2:
        bias = bb.emit(relax.op.reshape(bias, [channels] + [1] * (len(spec.shape) - 2)))
    return relax.op.add(cast(x, xs.dtype, spec.dtype), bias)


def lower_softmax(ctx: LowerContext, x):
    return relax.op.nn.softmax(x, normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape)))


def lower_log_softmax(ctx: LowerContext, x):
    return relax.op.nn.log_softmax(x, normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape)))


def lower_one_hot(ctx: LowerContext, indices):
    prim = ctx.prim
    axis = normalize_axis(prim.axis, len(ctx.in_specs[0].shape) + 1)
    dtype = ctx.out_specs[0].dtype
    # on/off must be PrimValues of the output dtype: Python floats give float64 (TVM_NOTES #5)
    value_dtype = np.dtype(np.float32) if dtype == np.bool_ else dtype
    on = relax.prim_value(value_dtype.type(prim.on_value).item(), value_dtype.name)
    off = relax.prim_value(value_dtype.type(prim.off_value).item(), value_dtype.name)
    # indices outside [0, depth) match no class and give off_value, like the kernel
    out = relax.op.one_hot(indices, on, off, prim.depth, axis)
    return cast(emit(ctx.bb, out), value_dtype, dtype) if dtype == np.bool_ else out


def lower_dropout(ctx: LowerContext, x, mask):
    """The host-drawn 0/1 ``mask`` is the node's extra last input (``host_random``)."""
    xs, ms = ctx.in_specs
    mask = cast(mask, ms.dtype, xs.dtype)
    scale = const(1.0 / ctx.prim.keep_prob, xs.dtype)
    kept = ctx.bb.emit(relax.op.multiply(x, mask))
    return relax.op.multiply(kept, scale), mask


def lower_batch_norm(ctx: LowerContext, x, scale, bias, mean, variance):
    prim, bb, spec = ctx.prim, ctx.bb, ctx.in_specs[0]
    dtype = spec.dtype
    ndim = len(spec.shape)
    axes = [0] + list(range(2, ndim))
    stat_shape = [spec.shape[1]] + [1] * (ndim - 2)

    def per_channel(t):
        return t if ndim == 2 else bb.emit(relax.op.reshape(t, stat_shape))

    # x - mean is written out twice on purpose: each copy fuses into its one consumer (the
    # variance's reduction, the normalization), so no kernel materializes it (a pass over
    # x and a write of its size less per layer)
    if prim.is_training:
        # sum, then scale: TOPI's mean is a reduction with a division in one kernel, which
        # FuseOps does not fuse its producers into (the square below would be written out)
        # an empty batch: 1 / 0 is inf, so its statistics are 0 * inf = NaN, as np.mean's
        count = reciprocal_count(bb, [spec.shape[a] for a in axes], dtype)
        mean = bb.emit(relax.op.multiply(relax.op.sum(x, axes, False), count))
        centered = bb.emit(relax.op.subtract(x, per_channel(mean)))
        # biased variance, two-pass like np.var
        variance = bb.emit(relax.op.multiply(
            relax.op.sum(relax.op.multiply(centered, centered), axes, False), count))
    inv = bb.emit(relax.op.divide(const(1.0, dtype), relax.op.sqrt(
        relax.op.add(variance, const(prim.epsilon, dtype)))))
    gain = per_channel(bb.emit(relax.op.multiply(scale, inv)))
    centered = bb.emit(relax.op.subtract(x, per_channel(mean)))
    y = relax.op.add(relax.op.multiply(centered, gain), per_channel(bias))
    return y, mean, variance


def lower_batch_matmul(ctx: LowerContext, a, b):
    """Batched GEMM: ``relax.op.matmul`` broadcasts the batch axes; a transposed operand is
    a permuted copy of its last two axes (as 2-D MatMul's ``b^T``), so that the kernel's
    loads along the reduction are contiguous."""
    prim, bb = ctx.prim, ctx.bb
    (sa, sb), dtype = ctx.in_specs, ctx.out_specs[0].dtype
    a, b = emit(bb, cast(a, sa.dtype, dtype)), emit(bb, cast(b, sb.dtype, dtype))

    def swap(x, rank):
        return bb.emit(relax.op.permute_dims(x, list(range(rank - 2)) + [rank - 1, rank - 2]))

    if prim.transpose_a:
        a = swap(a, len(sa.shape))
    if prim.transpose_b:
        b = swap(b, len(sb.shape))
    return relax.op.matmul(a, b)
