"""Stride-1 bfloat16 convolutions on AMX tiles that read the activations in place: each tile
load takes its 16 rows straight from a zero-padded copy of the input, so there is no
gathered ("im2col") operand, whose kh*kw-fold copy cost more than the float32 convolution
at 16 channels (:data:`.amx_conv.MIN_REUSE`).

For a kernel tap ``(i, j)`` the output row ``p`` at columns ``q .. q+15`` reads the padded
input row ``p + i`` at columns ``q + j .. q + j + 15``: 16 consecutive elements, so:

- forward and input gradient: ``y[n, o, p, q..q+15] += w_t (o, c) @ x[n, c, p+i, q+j..]``,
  the input in channel pairs (``(n, c/2, h', w')``, a pair per uint32: the tile multiply's ``b`` layout: a
  tile row is one channel pair, its rows one padded plane apart); the weights per tap as
  ``(kh*kw, o, c)``; the product lands in NCHW float32 as it comes out. The input gradient
  is the forward convolution of ``dy`` with the flipped, transposed weights;
- weight gradient: ``dw_t^T (c, o) = sum over n, p, q of x[n, c, p+i, q+j] dy[n, o, p, q]``,
  the padded input plain NCHW (a tile row: 16 or 32 pixels of one channel), ``dy`` in
  pixel pairs (``(n, p, q/2, o, 2)``); one job per tap and block of channels.

Channels go 16 (a tile row of 32 bytes) or 32 (64 bytes) at a time, pixels 8, 16 or 32, so
it applies where the channel counts divide by 16 and the output width by 8 (ResNet-20's
three stages after their first convolution); elsewhere the functions return None and the
caller keeps :mod:`.amx_conv` or float32.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import tvm
from tvm import relax, te, tirx
from tvm.script import tirx as T  # noqa: F401  (the kernels are TVMScript)

_CFG = """
        cfg = T.alloc_local((64,), "uint8")
        for z in range(64):
            cfg[z] = T.uint8(0)
        cfg[0] = T.uint8(1)  # palette 1
        for t in range(4):  # accumulators: 16 rows of {cols} float32
            cfg[16 + 2 * t] = T.uint8({c_bytes})
            cfg[48 + t] = T.uint8(16)
        for t in range(2):  # a: 16 rows of {a_cols} bf16; b: {b_rows} rows of {cols} pairs
            cfg[24 + 2 * t] = T.uint8({a_bytes})
            cfg[52 + t] = T.uint8(16)
            cfg[28 + 2 * t] = T.uint8({c_bytes})
            cfg[54 + t] = T.uint8({b_rows})
        T.evaluate(T.call_llvm_intrin("void", "llvm.x86.ldtilecfg", T.address_of(cfg[0])))
"""


def _call(indent: int, name: str, *args: str) -> str:
    return " " * indent + f'T.evaluate(T.call_llvm_intrin("void", "llvm.x86.{name}", {", ".join(args)}))\n'


def _step(indent: int, a_at: list[str], a_stride: int, b_at: list[str], b_stride: int) -> str:
    """Load the ``a`` tiles (4, 5) and ``b`` tiles (6, 7), multiply into accumulators 0-3."""
    text = "".join(_call(indent, "tileloadd64", f"T.int8({4 + x})", f"T.address_of({at})",
                         f"T.int64({a_stride})") for x, at in enumerate(a_at))
    text += "".join(_call(indent, "tileloadd64", f"T.int8({6 + y})", f"T.address_of({at})",
                          f"T.int64({b_stride})") for y, at in enumerate(b_at))
    for x in range(len(a_at)):
        for y in range(len(b_at)):
            text += _call(indent, "tdpbf16ps", f"T.int8({x * len(b_at) + y})", f"T.int8({4 + x})",
                          f"T.int8({6 + y})")
    return text


def _block(x: int) -> int:
    """Rows or columns of an accumulator block along a dimension that divides by 16 (or, for
    output columns, by 8: tiles of 8 columns, half the multiply-adds of a full one)."""
    return 32 if x % 32 == 0 else 16 if x % 16 == 0 else 8


Taps = tuple[tuple[int, int, int, int], ...]  # (weight index, input phase, row, column offset)


def _source(name: str, n: int, k: int, m: int, x_hw: tuple[int, int], taps: int,
            phases: tuple[tuple[str, Taps], ...], out_dims: tuple[int, ...], in_phases: int = 1) -> str:
    """``y (n, m, *out_dims) float32 += w (taps, m, k) @ x (n, k/2, in_phases, h', w')``
    (channel pairs, :func:`_padded`) read in place: per output phase (its index into ``y``
    after ``n, m``, and its taps) the output rows and columns of ``y``'s last two axes; a
    phase without taps is zeros."""
    (hp, wp), (ho, wo) = x_hw, out_dims[-2:]
    kc, bo, bq = _block(k), _block(m), _block(wo)
    tn = min(bq, 16)
    rows, cols = range(0, bo, 16), range(0, bq, tn)
    loop = "parallel" if n > 1 else "serial"
    shape = ", ".join(str(d) for d in out_dims)
    text = f"""
@T.prim_func(private=True)
def {name}(x: T.Buffer(({n}, {k // 2}, {in_phases}, {hp}, {wp}), "uint32"),
           w: T.Buffer(({taps}, {m}, {k}), "bfloat16"),
           y: T.Buffer(({n}, {m}, {shape}), "float32")):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
    for b in T.{loop}({n}):
""" + _CFG.format(a_cols=kc, a_bytes=2 * kc, b_rows=kc // 2, cols=tn, c_bytes=4 * tn)
    row_bytes = 4 * math.prod(out_dims)  # one output channel
    for phase, phase_taps in phases:
        text += f"""
        for p in range({ho}):
            for ob in range({m // bo}):
                for qb in range({wo // bq}):
"""
        text += "".join(_call(20, "tilezero", f"T.int8({t})") for t in range(len(rows) * len(cols)))
        if phase_taps:
            text += f"                    for cb in range({k // kc}):\n"
        for t, ph, di, dj in phase_taps:
            a_at = [f"w[{t}, ob * {bo} + {r}, cb * {kc}]" for r in rows]
            b_at = [f"x[b, cb * {kc // 2}, {ph}, p + {di}, qb * {bq} + {q} + {dj}]" for q in cols]
            text += _step(24, a_at, 2 * k, b_at, 4 * in_phases * hp * wp)
        for x, r in enumerate(rows):
            for y, q in enumerate(cols):
                at = f"y[b, ob * {bo} + {r}, {phase}p, qb * {bq} + {q}]"
                text += _call(20, "tilestored64", f"T.int8({x * len(cols) + y})", f"T.address_of({at})",
                              f"T.int64({row_bytes})")
    return text + _call(8, "tilerelease")


@functools.cache
def forward_source(n: int, c: int, o: int, ho: int, wo: int, kh: int, kw: int,
                   stride: tuple[int, int] = (1, 1)) -> str:
    """``y (n, o, ho, wo) float32`` from ``x`` (channel pairs split into the stride's phases,
    :func:`_padded`) and ``w (kh*kw, o, c)`` bf16: tap ``(i, j)`` reads phase
    ``(i mod sh, j mod sw)`` at offset ``(i // sh, j // sw)``, contiguous along the columns."""
    sh, sw = stride
    taps = tuple((i * kw + j, i % sh * sw + j % sw, i // sh, j // sw) for i in range(kh) for j in range(kw))
    return _source("amx_direct_conv", n, c, o, _phase_hw(ho, wo, kh, kw, stride), kh * kw, (("", taps),),
                   (ho, wo), sh * sw)


def _phase_hw(ho: int, wo: int, kh: int, kw: int, stride: tuple[int, int]) -> tuple[int, int]:
    """Rows and columns of each phase of the padded input that the taps read."""
    return ho + (kh - 1) // stride[0], wo + (kw - 1) // stride[1]


def _phase_taps(stride: tuple[int, int], pads: tuple[int, int], kernel: tuple[int, int]) \
        -> tuple[tuple[tuple[int, int], Taps], ...]:
    """Per phase ``(a, b)`` of a strided convolution's input gradient, ``dx[s u + a, s v + b]
    = sum over taps (i, j) of dy[u + du, v + dv] w[i, j]`` with ``s du = a + pt - i``: the taps
    as (weight index, du, dv)."""
    (sh, sw), (pt, pl), (kh, kw) = stride, pads, kernel
    out = []
    for a in range(sh):
        for b in range(sw):
            taps = tuple((i * kw + j, (a + pt - i) // sh, (b + pl - j) // sw)
                         for i in range(kh) for j in range(kw)
                         if (a + pt - i) % sh == 0 and (b + pl - j) % sw == 0)
            out.append(((a, b), taps))
    return tuple(out)


@functools.cache
def input_grad_phases_source(n: int, o: int, c: int, dy_hw: tuple[int, int], dx_hw: tuple[int, int],
                             stride: tuple[int, int], pads: tuple[int, int], kernel: tuple[int, int]) -> str:
    """``dx (n, c, sh, sw, h/sh, w/sw) float32`` (phase ``a, b`` at ``[:, :, a, b]``) from
    ``dy`` padded by :func:`phase_padding` in channel pairs and ``w (kh*kw, c, o)`` bf16."""
    phases = _phase_taps(stride, pads, kernel)
    top, bottom, left, right = phase_padding(stride, pads, kernel, dy_hw, dx_hw)
    x_hw = (dy_hw[0] + top + bottom, dy_hw[1] + left + right)
    shifted = tuple((f"{a}, {b}, ", tuple((t, 0, du + top, dv + left) for t, du, dv in taps))
                    for (a, b), taps in phases)
    out_dims = (stride[0], stride[1], dx_hw[0] // stride[0], dx_hw[1] // stride[1])
    return _source("amx_direct_input_grad", n, o, c, x_hw, kernel[0] * kernel[1], shifted, out_dims)


def phase_padding(stride: tuple[int, int], pads: tuple[int, int], kernel: tuple[int, int],
                  dy_hw: tuple[int, int], dx_hw: tuple[int, int]) -> tuple[int, int, int, int]:
    """Rows above and below, columns left and right of ``dy`` that the phases' taps read."""
    phases = _phase_taps(stride, pads, kernel)
    du = [t[1] for _, taps in phases for t in taps] or [0]
    dv = [t[2] for _, taps in phases for t in taps] or [0]
    hu, hv = dx_hw[0] // stride[0], dx_hw[1] // stride[1]
    return (max(0, -min(du)), max(0, hu - 1 + max(du) - (dy_hw[0] - 1)),
            max(0, -min(dv)), max(0, hv - 1 + max(dv) - (dy_hw[1] - 1)))


@functools.cache
def filter_grad_source(n: int, c: int, o: int, ho: int, wo: int, kh: int, kw: int,
                       stride: tuple[int, int] = (1, 1)) -> str:
    """``dw (kh*kw, c, o) float32`` from ``x`` (plain channels split into the stride's
    phases, :func:`_padded`) and ``dy (n, ho, wo/2, o, 2)`` bf16."""
    (hp, wp), (sh, sw) = _phase_hw(ho, wo, kh, kw, stride), stride
    kq, bc, bo = _block(wo), _block(c), _block(o)
    jobs = kh * kw * (c // bc) * (o // bo)
    text = f"""
@T.prim_func(private=True)
def amx_direct_conv_filter_grad(x: T.Buffer(({n}, {c}, {sh * sw}, {hp}, {wp}), "bfloat16"),
                                dy: T.Buffer(({n}, {ho}, {wo // 2}, {o}, 2), "bfloat16"),
                                dw: T.Buffer(({kh * kw}, {c}, {o}), "float32")):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
    for job in T.parallel({jobs}):
""" + _CFG.format(a_cols=kq, a_bytes=2 * kq, b_rows=kq // 2, cols=16, c_bytes=64) + f"""
        t = job // {(c // bc) * (o // bo)}
        cb = job // {o // bo} % {c // bc}
        ob = job % {o // bo}
"""
    rows, cols = range(0, bc, 16), range(0, bo, 16)
    text += "".join(_call(8, "tilezero", f"T.int8({t})") for t in range(len(rows) * len(cols)))
    text += f"        for b, p, qb in T.grid({n}, {ho}, {wo // kq}):\n"
    phase = f"t // {kw} % {sh} * {sw} + t % {kw} % {sw}"
    a_at = [f"x[b, cb * {bc} + {r}, {phase}, p + t // {kw} // {sh}, qb * {kq} + t % {kw} // {sw}]"
            for r in rows]
    b_at = [f"dy[b, p, qb * {kq // 2}, ob * {bo} + {q}, 0]" for q in cols]
    text += _step(12, a_at, 2 * sh * sw * hp * wp, b_at, 4 * o)
    for x, r in enumerate(rows):
        for y, q in enumerate(cols):
            text += _call(8, "tilestored64", f"T.int8({x * len(cols) + y})",
                          f"T.address_of(dw[t, cb * {bc} + {r}, ob * {bo} + {q}])", f"T.int64({4 * o})")
    return text + _call(8, "tilerelease")


def applies(channels: int, outs: int, out_w: int, stride: Sequence[int], pads: Sequence[int],
            kernel: tuple[int, int]) -> bool:
    """Channel counts multiples of 16, the output width of 8, and no negative padding (a
    crop); ``stride`` is read from the stride's phases of the input (any)."""
    return (min(stride) >= 1 and channels % 16 == 0 and outs % 16 == 0 and out_w % 8 == 0
            and min(pads) >= 0 and min(kernel) >= 1)


def bf16_bits(value: tirx.PrimExpr) -> tirx.PrimExpr:
    """A bfloat16 value's 16 bits as uint32, read through float32 (exact): TVM's bf16
    legalisation turns a fused producer's bf16 values into float32 ones, which a
    ``reinterpret("uint16", ...)`` then refuses (sizes differ); their low 16 bits are 0."""
    return tirx.reinterpret("uint32", value.astype("float32")) >> tirx.const(16, "uint32")


def _padded(x: te.Tensor, top_left: tuple[int, int], hw: tuple[int, int], pairs: bool,
            stride: tuple[int, int] = (1, 1)) -> te.Tensor:
    """``x`` zero-padded with its origin at ``top_left``, split into the stride's phases
    (phase ``a sw + b`` holds padded rows ``sh y + a``, columns ``sw z + b``), ``hw`` of each:
    plain ``(n, c, sh sw, h', w')``, or (``pairs``) channel pairs ``(n, c/2, sh sw, h', w')``,
    each pair's two bf16 bit patterns in one uint32 (low half: the even channel), the bytes
    the tile loads read. Two contiguous loads and a shift per vector: 2.3x faster than
    interleaving bf16 lanes."""
    batch = int(x.shape[0]) if isinstance(x.shape[0], tirx.IntImm) else x.shape[0]  # may be symbolic
    channels, height, width = (int(d) for d in x.shape[1:])
    (pt, pl), (hp, wp), (sh, sw) = top_left, hw, stride

    def at(s, y, z):  # the input row and column of phase s's (y, z), and whether inside
        row, col = y * sh + s // sw - pt, z * sw + s % sw - pl
        return row, col, tirx.all(row >= 0, row < height, col >= 0, col < width)

    if pairs:
        def pair(n, c2, s, y, z):
            row, col, inside = at(s, y, z)
            lo, hi = (bf16_bits(x[n, c2 * 2 + h, row, col]) for h in (0, 1))
            return tirx.if_then_else(inside, lo | (hi << tirx.const(16, "uint32")), tirx.const(0, "uint32"))

        return te.compute((batch, channels // 2, sh * sw, hp, wp), pair, name="amx_channel_pairs")

    def plain(n, c, s, y, z):
        row, col, inside = at(s, y, z)
        return tirx.if_then_else(inside, x[n, c, row, col], tirx.const(0, x.dtype))

    return te.compute((batch, channels, sh * sw, hp, wp), plain, name="amx_padded")


def _taps(w: te.Tensor, flipped: bool, transposed: bool = False) -> te.Tensor:
    """``w (o, c, kh, kw)`` per tap as ``(kh*kw, o, c)``; ``transposed``: ``(kh*kw, c, o)``;
    ``flipped`` (the stride-1 input gradient's): ``w'[t, c, o] = w[o, c, kh-1-i, kw-1-j]``."""
    outs, ins, kh, kw = (int(d) for d in w.shape)
    if flipped:
        return te.compute((kh * kw, ins, outs), lambda t, c, o: w[o, c, kh - 1 - t // kw, kw - 1 - t % kw],
                          name="amx_flipped_taps")
    if transposed:
        return te.compute((kh * kw, ins, outs), lambda t, c, o: w[o, c, t // kw, t % kw],
                          name="amx_transposed_taps")
    return te.compute((kh * kw, outs, ins), lambda t, o, c: w[o, c, t // kw, t % kw], name="amx_taps")


def _pixel_pairs(dy: te.Tensor) -> te.Tensor:
    """``dy (n, o, p, q)`` as ``(n, p, q/2, o, 2)``: pairs along the output columns."""
    batch, outs, ho, wo = (int(d) for d in dy.shape)
    return te.compute((batch, ho, wo // 2, outs, 2), lambda n, p, q2, o, pr: dy[n, o, p, q2 * 2 + pr],
                      name="amx_pixel_pairs")


def conv2d(bb: relax.BlockBuilder, x: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
           w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int],
           flipped: bool = False) -> relax.Expr | None:
    """float32 ``conv2d(x, w)`` (``flipped``: with the input gradient's weights ``w'``);
    ``pads`` is (top, bottom, left, right); None where it does not apply."""
    batch, channels, height, width = (int(d) for d in x_shape)
    outs, kh, kw = int(w_shape[1] if flipped else w_shape[0]), int(w_shape[2]), int(w_shape[3])
    sh, sw = (int(s) for s in stride)
    ho = (height + pads[0] + pads[1] - kh) // sh + 1
    wo = (width + pads[2] + pads[3] - kw) // sw + 1
    if not applies(channels, outs, wo, stride, pads, (kh, kw)):
        return None
    hw = _phase_hw(ho, wo, kh, kw, (sh, sw))
    xp = bb.emit_te(_padded, x, (pads[0], pads[2]), hw, True, (sh, sw))
    wt = bb.emit_te(_taps, w, flipped)
    source = forward_source(batch, channels, outs, ho, wo, kh, kw, (sh, sw))
    gv = bb.add_func(tvm.script.from_source(source), "amx_direct_conv")
    return relax.call_tir(gv, [xp, wt], relax.TensorType([batch, outs, ho, wo], "float32"))


def input_grad(bb: relax.BlockBuilder, dy: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
               w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int]) -> relax.Expr | None:
    """float32 gradient of ``conv2d`` for its input; strided: one phase of the stride at a
    time (no products with inserted zeros), interleaved after; None where it does not apply."""
    kh, kw = int(w_shape[2]), int(w_shape[3])
    dy_shape = [int(d) for d in dy.ty.shape.values]
    if tuple(stride) != (1, 1):
        return _strided_input_grad(bb, dy, w, x_shape, w_shape, tuple(int(s) for s in stride), pads)
    flipped_pads = (kh - 1 - pads[0], kh - 1 - pads[1], kw - 1 - pads[2], kw - 1 - pads[3])
    if min(flipped_pads) < 0:
        return None
    return conv2d(bb, dy, w, dy_shape, w_shape, (1, 1), flipped_pads, flipped=True)


def _strided_input_grad(bb: relax.BlockBuilder, dy: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
                        w_shape: Sequence[int], stride: tuple[int, int],
                        pads: Sequence[int]) -> relax.Expr | None:
    batch, channels, height, width = (int(d) for d in x_shape)
    outs, kh, kw = int(w_shape[0]), int(w_shape[2]), int(w_shape[3])
    dy_hw = tuple(int(d) for d in dy.ty.shape.values[2:])
    (sh, sw) = stride
    if height % sh or width % sw or not applies(outs, channels, width // sw, (1, 1), pads, (kh, kw)):
        return None
    geometry = (stride, (int(pads[0]), int(pads[2])), (kh, kw))
    top, bottom, left, right = phase_padding(*geometry, dy_hw, (height, width))
    dyp = bb.emit_te(_padded, dy, (top, left), (dy_hw[0] + top + bottom, dy_hw[1] + left + right), True)
    wt = bb.emit_te(_taps, w, False, True)
    source = input_grad_phases_source(batch, outs, channels, dy_hw, (height, width), *geometry)
    gv = bb.add_func(tvm.script.from_source(source), "amx_direct_input_grad")
    phases = bb.emit(relax.call_tir(gv, [dyp, wt], relax.TensorType(
        [batch, channels, sh, sw, height // sh, width // sw], "float32")))
    rows = bb.emit(relax.op.permute_dims(phases, [0, 1, 4, 2, 5, 3]))  # n c u a v b
    return relax.op.reshape(rows, [batch, channels, height, width])


def filter_grad(bb: relax.BlockBuilder, x: relax.Expr, dy: relax.Expr, x_shape: Sequence[int],
                w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int]) -> relax.Expr | None:
    """float32 gradient of ``conv2d`` for its weights ``(o, c, kh, kw)``; None where it does
    not apply."""
    batch, channels = int(x_shape[0]), int(x_shape[1])
    outs, kh, kw = (int(d) for d in (w_shape[0], w_shape[2], w_shape[3]))
    ho, wo = (int(d) for d in dy.ty.shape.values[2:])
    if not applies(channels, outs, wo, stride, pads, (kh, kw)):
        return None
    sh, sw = (int(s) for s in stride)
    xq = bb.emit_te(_padded, x, (pads[0], pads[2]), _phase_hw(ho, wo, kh, kw, (sh, sw)), False, (sh, sw))
    dyp = bb.emit_te(_pixel_pairs, dy)
    source = filter_grad_source(batch, channels, outs, ho, wo, kh, kw, (sh, sw))
    gv = bb.add_func(tvm.script.from_source(source), "amx_direct_conv_filter_grad")
    out = bb.emit(relax.call_tir(gv, [xq, dyp], relax.TensorType([kh * kw, channels, outs], "float32")))
    out = bb.emit(relax.op.reshape(out, [kh, kw, channels, outs]))
    return relax.op.permute_dims(out, [3, 2, 0, 1])
