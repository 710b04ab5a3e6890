"""Convolution and its two gradients (NCHW data, OIHW weights)."""

from __future__ import annotations

import numpy as np
from tvm import relax

from .....dtype import BFLOAT16_NP, is_low_float
from .....ir.symbolic import NotSymbolic
from .. import (
    amx_conv,
    amx_direct_conv,
    amx_matmul,
    avx512_bf16,
    avx512_bf16_conv,
    te_kernels,
    tensor_core_conv,
)
from .base import LowerContext, Lowering, cast, crop, emit, float32_compute, hw_padding


def lower_conv2d(ctx: LowerContext, x, w):
    """Relax's conv2d; also ``GroupConv2D`` (its ``group`` is Relax's ``groups``)."""
    prim = ctx.prim
    xs, ws = ctx.in_specs
    pads, _, _ = prim.geometry(xs.shape, ws.shape)
    return relax.op.nn.conv2d(x, w, strides=prim.stride, padding=hw_padding(pads),
                              dilation=prim.dilation, groups=getattr(prim, "group", 1),
                              data_layout="NCHW", kernel_layout="OIHW")


def lower_conv2d_backprop_input(ctx: LowerContext, dy, w):
    """A transposed convolution; ``output_padding`` restores ``input_shape`` exactly.
    Grouped (``GroupConv2DBackpropInput``): the same with Relax's ``groups``."""
    prim = ctx.prim
    ws = ctx.in_specs[1]
    shape = ctx.out_specs[0].shape  # = prim.input_shape (symbolic where the batch is)
    _, _, h, wd = shape
    pads, ho, wo = prim.geometry(shape, ws.shape)
    (sh, sw), (dh, dw) = prim.stride, prim.dilation
    kh, kw = ws.shape[2], ws.shape[3]
    if (sh, sw) != (1, 1) and (dh, dw) == (1, 1) and getattr(prim, "group", 1) == 1 \
            and h % sh == 0 and wd % sw == 0:
        return _input_grad_by_phases(ctx, dy, w, (h, wd), (pads[0], pads[2]))
    # a transposed conv pads by (k-1)*d - p on each side: keep that non-negative, crop the rest
    reach = ((kh - 1) * dh, (kh - 1) * dh, (kw - 1) * dw, (kw - 1) * dw)
    used = tuple(min(p, r) for p, r in zip(pads, reach))
    extra = tuple(p - u for p, u in zip(pads, used))
    full_h = h + extra[0] + extra[1]
    full_w = wd + extra[2] + extra[3]
    out_padding = (full_h - ((ho - 1) * sh - used[0] - used[1] + (kh - 1) * dh + 1),
                   full_w - ((wo - 1) * sw - used[2] - used[3] + (kw - 1) * dw + 1))
    # weight (O, C, kh, kw) is IOHW for the transposed conv from O to C channels
    out = relax.op.nn.conv2d_transpose(dy, w, strides=prim.stride, padding=hw_padding(used),
                                       output_padding=out_padding, dilation=prim.dilation,
                                       groups=getattr(prim, "group", 1),
                                       data_layout="NCHW", kernel_layout="IOHW")
    if not any(extra):
        return out
    out = ctx.bb.emit(out)
    n, c = shape[:2]
    return crop(out, (n, c, full_h, full_w), (0, 0, extra[0], extra[2]), (n, c, h, wd))


def _input_grad_by_phases(ctx: LowerContext, dy, w, hw, top_left):
    """Strided: one phase of the stride at a time (``te_kernels.conv2d_input_grad_phases``,
    no multiplying by inserted zeros), then the phases interleaved into NCHW."""
    prim = ctx.prim
    h, wd = hw
    n, c = ctx.out_specs[0].shape[:2]
    phases = ctx.bb.emit_te(te_kernels.conv2d_input_grad_phases, dy, w, hw, tuple(prim.stride),
                            top_left, primfunc_name_hint="conv2d_input_grad")
    rows = ctx.bb.emit(relax.op.permute_dims(phases, [0, 1, 4, 2, 5, 3]))  # n c q p v r
    return relax.op.reshape(rows, (n, c, h, wd))


def lower_conv2d_backprop_filter(ctx: LowerContext, x, dy):
    """``dw[o, c, i, j] = sum_{n,y,x} dy[n, o, y, x] * xpad[n, c, y*s + i*d, x*s + j*d]``.

    One TE reduction straight from the NCHW tensors (no transposes, no crop): the CPU
    rules vectorize its innermost reduction axis, which runs contiguously through both
    operands when the stride is 1.
    """
    prim = ctx.prim
    pads, _, _ = prim.geometry(ctx.in_specs[0].shape, prim.filter_shape)
    return ctx.bb.call_te(te_kernels.conv2d_filter_grad, x, dy, tuple(prim.filter_shape),
                          tuple(prim.stride), tuple(prim.dilation), tuple(pads),
                          primfunc_name_hint="conv2d_filter_grad")


def _tiles_conv2d(ctx: LowerContext, x, w):
    prim, (xs, ws) = ctx.prim, ctx.in_specs
    pads, ho, wo = prim.geometry(xs.shape, ws.shape)
    direct = amx_direct_conv.conv2d(ctx.bb, x, w, xs.shape, ws.shape, prim.stride, pads)
    if direct is not None:
        return direct
    return amx_conv.conv2d(ctx.bb, x, w, xs.shape, ws.shape, prim.stride, pads, (ho, wo))


def _tiles_input_grad(ctx: LowerContext, dy, w):
    prim, ws = ctx.prim, ctx.in_specs[1]
    pads, _, _ = prim.geometry(prim.input_shape, ws.shape)
    direct = amx_direct_conv.input_grad(ctx.bb, dy, w, prim.input_shape, ws.shape, prim.stride, pads)
    if direct is not None:
        return direct
    return amx_conv.input_grad(ctx.bb, dy, w, prim.input_shape, ws.shape, prim.stride, pads)


def _tiles_filter_grad(ctx: LowerContext, x, dy):
    prim, xs = ctx.prim, ctx.in_specs[0]
    pads, _, _ = prim.geometry(xs.shape, prim.filter_shape)
    direct = amx_direct_conv.filter_grad(ctx.bb, x, dy, xs.shape, prim.filter_shape, prim.stride, pads)
    if direct is not None:
        return direct
    return amx_conv.filter_grad(ctx.bb, x, dy, xs.shape, prim.filter_shape, prim.stride, pads)


_TILES = {"conv2d": _tiles_conv2d, "input_grad": _tiles_input_grad, "filter_grad": _tiles_filter_grad}


def _dots_conv2d(ctx: LowerContext, x, w):
    prim, (xs, ws) = ctx.prim, ctx.in_specs
    pads, _, _ = prim.geometry(xs.shape, ws.shape)
    return avx512_bf16_conv.conv2d(ctx.bb, x, w, xs.shape, ws.shape, prim.stride, pads,
                                   out_dtype=np.dtype(ctx.out_specs[0].dtype).name)


def _dots_input_grad(ctx: LowerContext, dy, w):
    prim, ws = ctx.prim, ctx.in_specs[1]
    pads, _, _ = prim.geometry(prim.input_shape, ws.shape)
    x_shape = (ctx.out_specs[0].shape[0], *prim.input_shape[1:])  # the batch may be symbolic: dx's
    return avx512_bf16_conv.input_grad(ctx.bb, dy, w, x_shape, ws.shape, prim.stride, pads,
                                       np.dtype(ctx.out_specs[0].dtype).name)


def _dots_filter_grad(ctx: LowerContext, x, dy):
    prim, xs = ctx.prim, ctx.in_specs[0]
    pads, _, _ = prim.geometry(xs.shape, prim.filter_shape)
    return avx512_bf16_conv.filter_grad(ctx.bb, x, dy, xs.shape, prim.filter_shape, prim.stride, pads,
                                        np.dtype(ctx.out_specs[0].dtype).name)


# AVX512-BF16 without AMX: VDPBF16PS, float32 sums (lower/avx512_bf16_conv.py)
_DOTS = {"conv2d": _dots_conv2d, "input_grad": _dots_input_grad, "filter_grad": _dots_filter_grad}


def _static_but_batch(ctx: LowerContext) -> bool:
    """Whether all sizes but the batch (the first axis of the NCHW operands; the weights'
    and weight gradient's are static) are ints."""
    shapes = [s.shape[1:] for s in ctx.in_specs] + [ctx.out_specs[0].shape[1:]]
    return all(isinstance(d, (int, np.integer)) for shape in shapes for d in shape)


def bf16_conv_tiles(lower: Lowering, kind: str) -> Lowering:
    """A convolution (``kind``: conv2d, input_grad, filter_grad) whose bfloat16 operands go to
    AMX tiles where the target has them (:mod:`..amx_conv`, float32 sums, the result cast
    back to bfloat16; static sizes: a symbolic one compiles per size, as VDPBF16PS on an
    Intel core is no faster than float32 FMAs), else to ``VDPBF16PS`` where it has
    AVX512-BF16 (:mod:`..avx512_bf16_conv`); otherwise ``float32_compute(lower)``."""
    wide, tiles, dots = float32_compute(lower), _TILES[kind], _DOTS[kind]

    def wrapped(ctx: LowerContext, a, b):
        prim = ctx.prim
        plain = tuple(prim.dilation) == (1, 1) and getattr(prim, "group", 1) == 1
        if plain and all(s.dtype == BFLOAT16_NP for s in ctx.in_specs) and amx_matmul.on_amx():
            if not (_static_but_batch(ctx) and all(isinstance(s.shape[0], int | np.integer)
                                                   for s in (*ctx.in_specs, *ctx.out_specs))):
                raise NotSymbolic(f"{prim.name}: bf16 convolutions on AMX tiles take static sizes")
            out = tiles(ctx, a, b)
            if out is not None:
                return cast(emit(ctx.bb, out), np.float32, ctx.out_specs[0].dtype)
        if plain and all(s.dtype == BFLOAT16_NP for s in ctx.in_specs) and avx512_bf16.pays():
            if not _static_but_batch(ctx):  # the kernels take a symbolic batch only: other
                # symbolic sizes compile per size rather than run in float32 (2x slower)
                raise NotSymbolic(f"{prim.name}: bf16 convolutions on VDPBF16PS take a symbolic batch only")
            out = dots(ctx, a, b)  # in the output's dtype
            if out is not None:
                return out
        # CUDA: the tensor cores (16-bit operands alike, float32 sums)
        if plain and len({np.dtype(s.dtype) for s in ctx.in_specs}) == 1 \
                and is_low_float(np.dtype(ctx.in_specs[0].dtype)) and tensor_core_conv.on_cuda():
            out = tensor_core_conv.lower(kind, ctx, a, b)
            if out is not None:
                return cast(emit(ctx.bb, out), np.float32, ctx.out_specs[0].dtype)
        return wide(ctx, a, b)

    wrapped.__name__ = getattr(lower, "__name__", "lower")
    wrapped.native_low_float = True  # lower_node: no float32_compute around it
    return wrapped
