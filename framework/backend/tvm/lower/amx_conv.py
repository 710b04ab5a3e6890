"""bfloat16 convolutions (NCHW, OIHW, one group, no dilation) and their two gradients as
AMX tile products (:mod:`.amx_matmul`'s kernel), float32 accumulation.

Each is one GEMM over a gathered ("im2col") operand, the gather writing straight into the
pair layout the tile multiply reads, zero-padded (so there is no separate padding pass):

- forward, per image ``n``: ``y[n] (o, p*q) = w (o, c*kh*kw) @ cols[n] (c*kh*kw, p*q)``;
  the weights are one matrix for every image and the product is NCHW as it comes out;
- input gradient (stride 1): the forward convolution of ``dy`` with the weights flipped
  and transposed (``w'[c, o, i, j] = w[o, c, kh-1-i, kw-1-j]``), padded by ``k - 1 - p``;
- weight gradient: ``dw^T (c*kh*kw, o) = cols^T (c*kh*kw, n*p*q) @ dy^T (n*p*q, o)``.

Contract: each function returns the float32 result, or None where the tiles do not apply
(no AMX, a dilation, a stride in the input gradient, fewer than :data:`MIN_REUSE` channels
to reuse the gathered operand, sizes below ``amx_matmul.MIN_DIM`` or too wasteful to pad);
the caller then lowers in float32.
"""

from __future__ import annotations

from collections.abc import Sequence

import tvm
from tvm import relax, te, tirx

from . import amx_matmul as am


def _gather(x: te.Tensor, kernel: tuple[int, int], stride: tuple[int, int], top_left: tuple[int, int],
            out_hw: tuple[int, int], k_pad: int, n_pad: int) -> te.Tensor:
    """``cols[n, r2, j, pair]``: the input under kernel tap ``r = 2 r2 + pair`` (``c, i, jj``)
    at output position ``j`` (``p, q``), zero outside the input and in the padding."""
    batch, channels, height, width = (int(d) for d in x.shape)
    kh, kw = kernel
    (sh, sw), (pt, pl), (ho, wo) = stride, top_left, out_hw

    def at(n, r2, j, pair):
        r = r2 * 2 + pair
        c, i, jj = r // (kh * kw), r // kw % kh, r % kw
        y, z = j // wo * sh + i - pt, j % wo * sw + jj - pl
        inside = tirx.all(r < channels * kh * kw, j < ho * wo, y >= 0, y < height, z >= 0, z < width)
        return tirx.if_then_else(inside, x[n, c, y, z], tirx.const(0, x.dtype))

    return te.compute((batch, k_pad // 2, n_pad, 2), at, name="amx_im2col")


def _weights(w: te.Tensor, m_pad: int, k_pad: int, flipped: bool) -> te.Tensor:
    """``w`` as ``(1, o', c*kh*kw')`` (or, ``flipped``, ``w'`` as ``(1, c', o*kh*kw')``)."""
    outs, ins, kh, kw = (int(d) for d in w.shape)
    rows, width = (ins, outs) if flipped else (outs, ins)

    def at(_, i, r):
        c, y, z = r // (kh * kw), r // kw % kh, r % kw
        value = w[c, i, kh - 1 - y, kw - 1 - z] if flipped else w[i, c, y, z]
        return tirx.if_then_else(tirx.all(i < rows, r < width * kh * kw), value, tirx.const(0, w.dtype))

    return te.compute((1, m_pad, k_pad), at, name="amx_conv_weights")


def _product(bb: relax.BlockBuilder, a: relax.Expr, b: relax.Expr, batch: int, m: int, n: int,
             mp: int, np_: int, kp: int, a_batched: bool) -> relax.Expr:
    parallel = batch * (mp // am._tile(mp)) > 1
    gv = bb.add_func(tvm.script.from_source(am.kernel_source(batch, mp, np_, kp, parallel, a_batched)),
                     "amx_bf16_conv")
    out = bb.emit(relax.call_tir(gv, [a, b], relax.TensorType([batch, mp, np_], "float32")))
    if (mp, np_) != (m, n):
        out = bb.emit(relax.op.strided_slice(out, [1, 2], [0, 0], [m, n]))
    return out


# The gather writes every input element kh*kw times, at ~1 ns each (16-bit scalar stores in
# pair order) on a Sapphire Rapids core; the tile product then uses each gathered value once
# per output channel. Below ~32 channels the gather costs more than the float32 convolution
# it replaces (ResNet-20's 16-channel stage: bf16 step 1.39x float32 with tiles, 1.13x without).
# Stride-1 convolutions of channels in multiples of 16 avoid the gather (:mod:`.amx_direct_conv`,
# tried first); this path is left the strided ones and odd channel counts.
MIN_REUSE = 32


def _sizes(m: int, n: int, k: int, reuse: int) -> tuple[int, int, int] | None:
    if reuse < MIN_REUSE or not am.wanted(m, n, k):
        return None
    return am._padded(m), am._padded(n), am._padded(k, am.K_STEP)


def conv2d(bb: relax.BlockBuilder, x: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
           w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int],
           out_hw: tuple[int, int], flipped: bool = False) -> relax.Expr | None:
    """float32 ``conv2d(x, w)`` (``flipped``: with ``w'``, the input gradient's weights);
    ``pads`` is (top, bottom, left, right)."""
    batch, channels = int(x_shape[0]), int(x_shape[1])
    outs, kh, kw = int(w_shape[1] if flipped else w_shape[0]), int(w_shape[2]), int(w_shape[3])
    ho, wo = out_hw
    sizes = _sizes(outs, ho * wo, channels * kh * kw, reuse=outs)
    if sizes is None:
        return None
    mp, np_, kp = sizes
    a = bb.emit_te(_weights, w, mp, kp, flipped)
    b = bb.emit_te(_gather, x, (kh, kw), tuple(stride), (pads[0], pads[2]), (ho, wo), kp, np_)
    out = _product(bb, a, b, batch, outs, ho * wo, mp, np_, kp, a_batched=False)
    return relax.op.reshape(out, [batch, outs, ho, wo])


def input_grad(bb: relax.BlockBuilder, dy: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
               w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int]) -> relax.Expr | None:
    """float32 gradient of ``conv2d`` for its input (stride 1 only; else None)."""
    if tuple(stride) != (1, 1):
        return None
    kh, kw = int(w_shape[2]), int(w_shape[3])
    flipped_pads = (kh - 1 - pads[0], kh - 1 - pads[1], kw - 1 - pads[2], kw - 1 - pads[3])
    if min(flipped_pads) < 0:
        return None
    dy_shape = [int(x_shape[0]), int(w_shape[0])] + [int(d) for d in dy.ty.shape.values[2:]]
    return conv2d(bb, dy, w, dy_shape, w_shape, (1, 1), flipped_pads,
                  (int(x_shape[2]), int(x_shape[3])), flipped=True)


def _tap_rows(x: te.Tensor, kernel: tuple[int, int], stride: tuple[int, int], top_left: tuple[int, int],
              out_hw: tuple[int, int], m_pad: int, k_pad: int) -> te.Tensor:
    """``cols[0, t, r]``: the input under kernel tap ``t`` (``c, i, jj``) at output position
    ``r`` (``n, p, q``), zero outside; along ``r`` the reads are contiguous (stride 1)."""
    batch, channels, height, width = (int(d) for d in x.shape)
    kh, kw = kernel
    (sh, sw), (pt, pl), (ho, wo) = stride, top_left, out_hw

    def at(_, t, r):
        n, p, q = r // (ho * wo), r // wo % ho, r % wo
        c, i, jj = t // (kh * kw), t // kw % kh, t % kw
        y, z = p * sh + i - pt, q * sw + jj - pl
        inside = tirx.all(r < batch * ho * wo, t < channels * kh * kw, y >= 0, y < height,
                          z >= 0, z < width)
        return tirx.if_then_else(inside, x[n, c, y, z], tirx.const(0, x.dtype))

    return te.compute((1, m_pad, k_pad), at, name="amx_tap_rows")


def _dy_pairs(dy: te.Tensor, k_pad: int, n_pad: int) -> te.Tensor:
    """``dy[n, o, p, q]`` as pairs along ``r`` (``n, p, q``): ``(1, k' / 2, o', 2)``."""
    batch, outs, ho, wo = (int(d) for d in dy.shape)

    def at(_, r2, o, pair):
        r = r2 * 2 + pair
        inside = tirx.all(o < outs, r < batch * ho * wo)
        n, j = r // (ho * wo), r % (ho * wo)
        return tirx.if_then_else(inside, dy[n, o, j // wo, j % wo], tirx.const(0, dy.dtype))

    return te.compute((1, k_pad // 2, n_pad, 2), at, name="amx_dy_pairs")


def filter_grad(bb: relax.BlockBuilder, x: relax.Expr, dy: relax.Expr, x_shape: Sequence[int],
                w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int]) -> relax.Expr | None:
    """float32 gradient of ``conv2d`` for its weights ``(o, c, kh, kw)``, computed transposed
    (``dw^T (c*kh*kw, o) = cols^T @ dy^T``): the gathered operand is then ``a``, whose rows
    run along output positions, contiguous in the input."""
    batch, channels = int(x_shape[0]), int(x_shape[1])
    outs, kh, kw = (int(d) for d in (w_shape[0], w_shape[2], w_shape[3]))
    ho, wo = (int(d) for d in dy.ty.shape.values[2:])
    taps = channels * kh * kw
    sizes = _sizes(taps, outs, batch * ho * wo, reuse=outs)
    if sizes is None:
        return None
    mp, np_, kp = sizes
    a = bb.emit_te(_tap_rows, x, (kh, kw), tuple(stride), (pads[0], pads[2]), (ho, wo), mp, kp)
    b = bb.emit_te(_dy_pairs, dy, kp, np_)
    out = _product(bb, a, b, 1, taps, outs, mp, np_, kp, a_batched=False)
    out = bb.emit(relax.op.permute_dims(relax.op.reshape(out, [taps, outs]), [1, 0]))
    return relax.op.reshape(out, [outs, channels, kh, kw])
