"""bfloat16 convolutions on AVX512-BF16 (``VDPBF16PS``, float32 sums) for CPUs that have the
instruction and no AMX tiles (AMD Zen 4/5): forward, input gradient, weight gradient.

Direct convolutions, no gathered ("im2col") operand. A zmm holds 16 output channels of one
output pixel; each ``VDPBF16PS`` adds to it the products of one pair of reduction channels:
the pair's two bf16 values at the input pixel (one uint32, broadcast) times the weights of
the 16 channels for that pair (16 uint32 pairs, one vector load). A register block of
output pixels x output-channel zmms (:func:`blocking`, at most :data:`MAX_ACC`) stays in
registers over the loops of input-channel pairs and kernel taps:

- forward: ``y (n, ho, wo, o) += x_pairs (n, c/2, phases, h', w') . w_pairs (taps, c/2, o)``
  reading the zero-padded input in channel pairs as :mod:`.amx_direct_conv` builds it
  (``_padded``: a strided convolution reads the stride's phases, each tap one phase at an
  offset); the product is channels-last and goes to NCHW with the cast back to bf16;
- input gradient: stride 1 is the forward convolution of ``dy`` with the flipped,
  transposed weights; strided, one output phase of ``dx`` at a time with its own taps
  (:func:`.amx_direct_conv._phase_taps`), the phases interleaved after (sizes that do not
  divide by the stride: computed up to the next multiple and cropped);
- weight gradient: ``dw (taps, c, o) = sum over n, p, q of x[c, p+i, q+j] dy[o, p, q]``,
  the reduction along output columns in pairs: ``x`` padded as pairs of columns a stride
  apart (``(n, c, rows, cols)`` uint32), ``dy`` as ``(n, ho, wo/2, o)`` pairs; one job per
  block of channels (with one block: per half of the batch, summed after), each image's
  taps in turn; the sums stored as OIHW.

Output channels (input channels for the input gradient) must be multiples of 16 and the
reduction channels even; elsewhere the functions return None and the caller keeps float32.
The batch may be symbolic (a ``tirx`` expression in the shapes; channels and spatial sizes
static): one kernel for every batch size, its buffers matched to a ``T.int64()`` var
(the sources take ``n=None``); the weight gradient's two halves of an odd batch differ
by one image.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Sequence

from tvm import relax, te, tirx

from . import amx_direct_conv as adc
from . import avx512_bf16

MAX_ACC = 24  # zmm accumulators of a register block (of 32; the rest hold operands)


def _divisor(x: int, cap: int) -> int:
    """The largest divisor of ``x`` not above ``cap`` (at least 1)."""
    return max(d for d in range(1, max(1, min(x, cap)) + 1) if x % d == 0)


def blocking(m: int, ho: int, wo: int) -> tuple[int, int, int]:
    """A forward register block: (zmms of 16 output channels, output rows, output columns)."""
    ov = _divisor(m // 16, 2)
    pq = _divisor(wo, MAX_ACC // ov)
    pr = _divisor(ho, MAX_ACC // (ov * pq))
    return ov, pr, pq


def batch_of(d) -> int | tirx.PrimExpr:
    """A batch size as int where static, else the symbolic expression itself."""
    try:
        return int(d)
    except TypeError:
        return d


def _static(d) -> int | None:
    """A source's batch argument: int, or None where symbolic."""
    d = batch_of(d)
    return d if isinstance(d, int) else None


def _header(name: str, n: int | None, buffers: Sequence[tuple[str, str, str]]) -> str:
    """A kernel's signature and matched buffers ``(name, shape after the batch or a full
    shape starting with NB, dtype)``: ``NB`` is ``n``, or the var ``nb`` where None."""
    nb = "nb" if n is None else str(n)
    text = f"""
@T.prim_func(private=True)
def {name}({", ".join(f"{b}_h: T.handle" for b, _, _ in buffers)}):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
"""
    if n is None:
        text += "    nb = T.int64()\n"
    for b, shape, dtype in buffers:
        text += f'    {b} = T.match_buffer({b}_h, ({shape.replace("NB", nb)}), "{dtype}")\n'
    return text


def _lanes(base: str, v: int) -> str:
    return f"T.Ramp({base} + {16 * v}, 1, 16)"


def pixel_blocking(m: int, ho: int, wo: int) -> tuple[int, int, int]:
    """A register block with output columns in lanes (``wo`` a multiple of 16): (output
    channels, rows, zmms of 16 columns)."""
    qv = 1 if ho % 2 == 0 else _divisor(wo // 16, 2)  # two rows: 434 GF/s vs 386 for 2 x 16 columns
    pr = _divisor(ho, 2 // qv)
    return _divisor(m, MAX_ACC // (qv * pr)), pr, qv


def pixel_lanes(wo: int) -> bool:
    """Whether a convolution with ``wo`` output columns (per phase) puts them in the lanes:
    NCHW out as it comes, no transpose (16 columns per zmm)."""
    return wo % 16 == 0


def _source(name: str, n: int | None, k: int, m: int, x_hw: tuple[int, int], taps: int,
            phases: tuple[tuple[str, adc.Taps], ...], out_dims: tuple[int, ...], in_phases: int = 1,
            out_dtype: str = "float32") -> str:
    """``y`` (float32 sums stored as ``out_dtype``) from ``x (n, k/2, in_phases, h', w')`` channel pairs and ``w (taps, k/2,
    m)`` weight pairs (uint32): per output phase (its index into ``y`` after the channels
    or ``n``, e.g. ``"1, 0, "``, and its taps as (weight index, input phase, row, column
    offset)) the last two of ``out_dims`` are its rows and columns; a phase without taps is
    zeros. Output columns in lanes (:func:`pixel_lanes`): ``y (n, m, *out_dims)``, the
    weight pair broadcast; else output channels in lanes, ``y (n, *out_dims, m)``, the
    input pair broadcast."""
    (hp, wp), (ho, wo) = x_hw, out_dims[-2:]
    shape = ", ".join(str(d) for d in out_dims)
    if pixel_lanes(wo):
        om, pr, qv = pixel_blocking(m, ho, wo)
        ob, qb, y_shape = om, 16 * qv, f"{m}, {shape}"
        accs = [(r, v, j) for r in range(pr) for v in range(qv) for j in range(om)]

        def operands(t, ph, di, dj, r, v, j):
            cols = f"T.Ramp(qb * {qb} + {16 * v + dj}, 1, 16)"
            return f"x[b, c2, {ph}, p + {r + di}, {cols}]", f"T.Broadcast(w[{t}, c2, ob * {ob} + {j}], 16)"

        def out(phase, r, v, j):
            return f"y[b, ob * {ob} + {j}, {phase}p + {r}, T.Ramp(qb * {qb} + {16 * v}, 1, 16)]"
    else:
        ov, pr, pq = blocking(m, ho, wo)
        ob, qb, y_shape = 16 * ov, pq, f"{shape}, {m}"
        accs = [(r, q, v) for r in range(pr) for q in range(pq) for v in range(ov)]

        def operands(t, ph, di, dj, r, q, v):
            return (f"T.Broadcast(x[b, c2, {ph}, p + {r + di}, qb * {pq} + {q + dj}], 16)",
                    f"w[{t}, c2, {_lanes(f'ob * {ob}', v)}]")

        def out(phase, r, q, v):
            return f"y[b, {phase}p + {r}, qb * {pq} + {q}, {_lanes(f'ob * {ob}', v)}]"
    loop = "parallel" if n is None or n * (ho // pr) > 1 else "serial"
    jobs = f"nb * {ho // pr}" if n is None else str(n * (ho // pr))
    text = _header(name, n, [("x", f"NB, {k // 2}, {in_phases}, {hp}, {wp}", "uint32"),
                             ("w", f"{taps}, {k // 2}, {m}", "uint32"), ("y", f"NB, {y_shape}", out_dtype)])
    text += f"""{avx512_bf16.import_attr(4)}        for job in T.{loop}({jobs}):
            b = job // {ho // pr}
            p = job % {ho // pr} * {pr}
            acc = T.alloc_local(({len(accs) * 16},), "float32")
"""
    names = {a: f"acc[T.Ramp({16 * i}, 1, 16)]" for i, a in enumerate(accs)}
    for phase, phase_taps in phases:
        text += f"            for ob, qb in T.grid({m // ob}, {wo // qb}):\n"
        text += "".join(f"                {a} = T.Broadcast(T.float32(0), 16)\n" for a in names.values())
        if phase_taps:
            text += f"                for c2 in range({k // 2}):\n"
        for t, ph, di, dj in phase_taps:
            for key, a in names.items():
                text += f"                    {a} = {avx512_bf16.dot_call(a, *operands(t, ph, di, dj, *key))}\n"
        stored = "{}" if out_dtype == "float32" else f'T.Cast("{out_dtype}x16", {{}})'
        text += "".join(f"                {out(phase, *key)} = {stored.format(a)}\n" for key, a in names.items())
    return text


@functools.cache
def forward_source(n: int | None, c: int, o: int, ho: int, wo: int, kh: int, kw: int,
                   stride: tuple[int, int] = (1, 1), out_dtype: str = "float32") -> str:
    """``y`` (:func:`_source`: ``(n, o, ho, wo)`` or ``(n, ho, wo, o)``) from ``x`` in channel pairs split into the stride's phases
    (``amx_direct_conv._padded``) and ``w (kh*kw, c/2, o)`` pairs: tap ``(i, j)`` reads phase
    ``(i mod sh, j mod sw)`` at offset ``(i // sh, j // sw)``."""
    sh, sw = stride
    taps = tuple((i * kw + j, i % sh * sw + j % sw, i // sh, j // sw) for i in range(kh) for j in range(kw))
    return _source("bf16_direct_conv", n, c, o, adc._phase_hw(ho, wo, kh, kw, stride), kh * kw,
                   (("", taps),), (ho, wo), sh * sw, out_dtype)


@functools.cache
def input_grad_phases_source(n: int | None, o: int, c: int, dy_hw: tuple[int, int], dx_hw: tuple[int, int],
                             stride: tuple[int, int], pads: tuple[int, int], kernel: tuple[int, int]) -> str:
    """``dx (n, c, sh, sw, h/sh, w/sw)`` or ``(n, sh, sw, h/sh, w/sw, c)`` (:func:`_source`)
    float32, phase ``a, b`` at ``[.., a, b]``, from ``dy``
    padded by ``amx_direct_conv.phase_padding`` in channel pairs and ``w (kh*kw, o/2, c)``."""
    top, bottom, left, right = adc.phase_padding(stride, pads, kernel, dy_hw, dx_hw)
    shifted = tuple((f"{a}, {b}, ", tuple((t, 0, du + top, dv + left) for t, du, dv in taps))
                    for (a, b), taps in adc._phase_taps(stride, pads, kernel))
    x_hw = (dy_hw[0] + top + bottom, dy_hw[1] + left + right)
    out_dims = (stride[0], stride[1], dx_hw[0] // stride[0], dx_hw[1] // stride[1])
    return _source("bf16_direct_input_grad", n, o, c, x_hw, kernel[0] * kernel[1], shifted, out_dims)


def column_pairs_hw(ho: int, wo: int, kh: int, kw: int, stride: tuple[int, int]) -> tuple[int, int]:
    """Rows and columns of :func:`_column_pairs` that the weight gradient reads."""
    return (ho - 1) * stride[0] + kh, 2 * (-(-wo // 2) - 1) * stride[1] + kw


def filter_blocking(c: int, o: int) -> tuple[int, int]:
    """A weight-gradient register block: (input channels, zmms of 16 output channels)."""
    ov = _divisor(o // 16, 2)
    return _divisor(c, MAX_ACC // ov), ov


def filter_chunks(n: int | None, c: int, o: int) -> int:
    """Parts of the batch whose weight gradients are summed after: 2 where there is one
    block of channels (work for a second thread; a static batch: if even), else 1 (no sum).
    ``n`` None (symbolic): parts of ``ceil(n / 2)`` images, the second one fewer if odd."""
    cb, ov = filter_blocking(c, o)
    return 2 if (n is None or n % 2 == 0) and c // cb * (o // (16 * ov)) == 1 else 1


@functools.cache
def filter_grad_source(n: int | None, c: int, o: int, ho: int, wo: int, kh: int, kw: int,
                       stride: tuple[int, int] = (1, 1)) -> str:
    """``dw (chunks, o, c, kh, kw) float32`` (a part of the batch each, :func:`filter_chunks`)
    from ``x`` as pairs of columns (:func:`_column_pairs`) and ``dy (n, ho, ceil(wo/2), o)``
    pixel pairs (:func:`_dy_pairs`). Per image, all taps in turn (one image's operands stay
    in the caches), the block's sums per tap kept in a local buffer between them."""
    (sh, sw), q2, taps, chunks = stride, -(-wo // 2), kh * kw, filter_chunks(n, c, o)
    rows, cols = column_pairs_hw(ho, wo, kh, kw, stride)
    cb, ov = filter_blocking(c, o)
    blocks, size = (c // cb) * (o // (16 * ov)), cb * ov * 16
    part_size = f"(nb + {chunks - 1}) // {chunks}" if n is None else str(n // chunks)
    text = _header("bf16_direct_conv_filter_grad", n, [
        ("x", f"NB, {c}, {rows}, {cols}", "uint32"), ("dy", f"NB, {ho}, {q2}, {o}", "uint32"),
        ("dw", f"{chunks}, {o}, {c}, {kh}, {kw}", "float32")])
    text += f"""{avx512_bf16.import_attr(4)}        for job in T.{"parallel" if chunks * blocks > 1 else "serial"}({chunks * blocks}):
            part = job // {blocks}
            c0 = job // {o // (16 * ov)} % {c // cb} * {cb}
            o0 = job % {o // (16 * ov)} * {16 * ov}
            sums = T.alloc_local(({taps * size},), "float32")
            acc = T.alloc_local(({size},), "float32")
            for z in range({taps * size // 16}):
                sums[T.Ramp(z * 16, 1, 16)] = T.Broadcast(T.float32(0), 16)
            for bi, t in T.grid({part_size}, {taps}):
                b = part * ({part_size}) + bi
"""
    body = ""
    accs = [(r, v, f"acc[T.Ramp({(r * ov + v) * 16}, 1, 16)]") for r in range(cb) for v in range(ov)]
    body += "".join(f"                {a} = sums[T.Ramp(t * {size} + {(r * ov + v) * 16}, 1, 16)]\n"
                    for r, v, a in accs)
    body += f"                for p, q in T.grid({ho}, {q2}):\n"
    for r, v, a in accs:
        pixels = f"T.Broadcast(x[b, c0 + {r}, p * {sh} + t // {kw}, q * {2 * sw} + t % {kw}], 16)"
        grads = f"dy[b, p, q, {_lanes('o0', v)}]"
        body += f"                    {a} = {avx512_bf16.dot_call(a, pixels, grads)}\n"
    body += "".join(f"                sums[T.Ramp(t * {size} + {(r * ov + v) * 16}, 1, 16)] = {a}\n"
                    for r, v, a in accs)
    if n is None and chunks == 2:  # a symbolic batch in two parts: the second an image short where odd
        body = "                if b < nb:\n" + textwrap.indent(body, "    ")
    text += body
    text += f"            for t, z, lane in T.grid({taps}, {size // 16}, 16):\n"
    text += (f"                dw[part, o0 + z % {ov} * 16 + lane, c0 + z // {ov}, t // {kw}, t % {kw}] = "
             f"sums[t * {size} + z * 16 + lane]\n")
    return text


def _pair(lo: tirx.PrimExpr, hi: tirx.PrimExpr) -> tirx.PrimExpr:
    """Two bf16 values as one uint32 (low half: ``lo``), a ``VDPBF16PS`` lane."""
    return adc.bf16_bits(lo) | (adc.bf16_bits(hi) << tirx.const(16, "uint32"))


def _weight_pairs(w: te.Tensor, flipped: bool, transposed: bool = False) -> te.Tensor:
    """``w (o, c, kh, kw)`` per tap as ``amx_direct_conv._taps`` orders it, ``(taps, m, k)``,
    in pairs along ``k``: ``(taps, k/2, m)`` uint32."""
    taps = adc._taps(w, flipped, transposed)
    count, m, k = (int(d) for d in taps.shape)
    return te.compute((count, k // 2, m), lambda t, k2, j: _pair(taps[t, j, 2 * k2], taps[t, j, 2 * k2 + 1]),
                      name="bf16_weight_pairs")


def _dy_pairs(dy: te.Tensor) -> te.Tensor:
    """``dy (n, o, ho, wo)`` as ``(n, ho, ceil(wo/2), o)`` pairs of columns (an odd width's
    last pair: a zero above)."""
    batch, (outs, ho, wo) = batch_of(dy.shape[0]), (int(d) for d in dy.shape[1:])
    zero = tirx.const(0, dy.dtype)

    def pair(n, p, q2, o):
        hi = tirx.if_then_else(2 * q2 + 1 < wo, dy[n, o, p, tirx.min(2 * q2 + 1, wo - 1)], zero)
        return _pair(dy[n, o, p, 2 * q2], hi)

    return te.compute((batch, ho, -(-wo // 2), outs), pair, name="bf16_dy_pairs")


def _column_pairs(x: te.Tensor, top_left: tuple[int, int], rows: int, cols: int, stride: int) -> te.Tensor:
    """``x (n, c, h, w)`` zero-padded (``rows`` x ``cols``, origin at ``top_left``) as pairs of
    padded columns ``(q, q + stride)``: ``(n, c, rows, cols)`` uint32. The weight gradient's
    tap column ``j`` reads the pair at ``2 q2 stride + j`` next to output columns ``2 q2,
    2 q2 + 1``: one copy for all taps, contiguous along the columns."""
    batch, (channels, height, width) = batch_of(x.shape[0]), (int(d) for d in x.shape[1:])
    pt, pl = top_left
    zero = tirx.const(0, x.dtype)

    def value(n, c, r, q):
        row, col = r - pt, q - pl
        return tirx.if_then_else(tirx.all(row >= 0, row < height, col >= 0, col < width), x[n, c, row, col], zero)

    return te.compute((batch, channels, rows, cols),
                      lambda n, c, r, q: _pair(value(n, c, r, q), value(n, c, r, q + stride)),
                      name="bf16_column_pairs")


def applies(reduce: int, lanes: int, pads: Sequence[int], kernel: tuple[int, int]) -> bool:
    """Lanes (output channels) a multiple of 16, reduction channels even, no crop (negative
    padding)."""
    return reduce % 2 == 0 and lanes % 16 == 0 and min(pads) >= 0 and min(kernel) >= 1


def _as(bb: relax.BlockBuilder, x: relax.Expr, dtype: str) -> relax.Expr:
    return x if dtype == "float32" else relax.op.astype(bb.emit(x), dtype)


def _add(bb: relax.BlockBuilder, source: str, name: str) -> relax.GlobalVar:
    return bb.add_func(avx512_bf16.parse(source), name)


def conv2d(bb: relax.BlockBuilder, x: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
           w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int],
           flipped: bool = False, out_dtype: str = "float32") -> relax.Expr | None:
    """NCHW ``conv2d(x, w)`` in ``out_dtype`` (float32 sums; ``flipped``: with the stride-1
    input gradient's weights); ``pads`` is (top, bottom, left, right); None where it does
    not apply."""
    batch, (channels, height, width) = batch_of(x_shape[0]), (int(d) for d in x_shape[1:])
    outs, kh, kw = int(w_shape[1] if flipped else w_shape[0]), int(w_shape[2]), int(w_shape[3])
    sh, sw = (int(s) for s in stride)
    ho = (height + pads[0] + pads[1] - kh) // sh + 1
    wo = (width + pads[2] + pads[3] - kw) // sw + 1
    if not applies(channels, outs, pads, (kh, kw)) or ho < 1 or wo < 1:
        return None
    xp = bb.emit_te(adc._padded, x, (pads[0], pads[2]), adc._phase_hw(ho, wo, kh, kw, (sh, sw)), True, (sh, sw))
    wp = bb.emit_te(_weight_pairs, w, flipped)
    if pixel_lanes(wo):  # NCHW as it comes: stored in out_dtype (no cast kernel after)
        source = forward_source(_static(batch), channels, outs, ho, wo, kh, kw, (sh, sw), out_dtype)
        gv = _add(bb, source, "bf16_direct_conv")
        return relax.call_tir(gv, [xp, wp], relax.TensorType([batch, outs, ho, wo], out_dtype))
    gv = _add(bb, forward_source(_static(batch), channels, outs, ho, wo, kh, kw, (sh, sw)), "bf16_direct_conv")
    y = bb.emit(relax.call_tir(gv, [xp, wp], relax.TensorType([batch, ho, wo, outs], "float32")))
    return _as(bb, relax.op.permute_dims(y, [0, 3, 1, 2]), out_dtype)


def input_grad(bb: relax.BlockBuilder, dy: relax.Expr, w: relax.Expr, x_shape: Sequence[int],
               w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int],
               out_dtype: str = "float32") -> relax.Expr | None:
    """Gradient of ``conv2d`` for its input ``x_shape``, in ``out_dtype``; None where it does
    not apply."""
    kh, kw = int(w_shape[2]), int(w_shape[3])
    if tuple(int(s) for s in stride) != (1, 1):
        out = _strided_input_grad(bb, dy, w, x_shape, w_shape, tuple(int(s) for s in stride), pads)
        return None if out is None else _as(bb, out, out_dtype)
    flipped_pads = (kh - 1 - pads[0], kh - 1 - pads[1], kw - 1 - pads[2], kw - 1 - pads[3])
    dy_shape = [batch_of(d) for d in dy.ty.shape.values]
    return conv2d(bb, dy, w, dy_shape, w_shape, (1, 1), flipped_pads, flipped=True, out_dtype=out_dtype)


def _strided_input_grad(bb, dy, w, x_shape, w_shape, stride, pads):
    batch, (channels, height, width) = batch_of(x_shape[0]), (int(d) for d in x_shape[1:])
    outs, kh, kw = int(w_shape[0]), int(w_shape[2]), int(w_shape[3])
    (sh, sw), dy_hw = stride, tuple(int(d) for d in dy.ty.shape.values[2:])
    if not applies(outs, channels, pads, (kh, kw)):
        return None
    full = (-(-height // sh) * sh, -(-width // sw) * sw)  # whole phases; cropped after
    geometry = (stride, (int(pads[0]), int(pads[2])), (kh, kw))
    top, bottom, left, right = adc.phase_padding(*geometry, dy_hw, full)
    dyp = bb.emit_te(adc._padded, dy, (top, left), (dy_hw[0] + top + bottom, dy_hw[1] + left + right), True)
    wp = bb.emit_te(_weight_pairs, w, False, True)
    gv = _add(bb, input_grad_phases_source(_static(batch), outs, channels, dy_hw, full, *geometry), "bf16_direct_input_grad")
    phase_hw = [full[0] // sh, full[1] // sw]
    if pixel_lanes(phase_hw[1]):
        phases = bb.emit(relax.call_tir(gv, [dyp, wp], relax.TensorType([batch, channels, sh, sw, *phase_hw],
                                                                          "float32")))
        rows = bb.emit(relax.op.permute_dims(phases, [0, 1, 4, 2, 5, 3]))  # n c u a v b
    else:
        phases = bb.emit(relax.call_tir(gv, [dyp, wp], relax.TensorType([batch, sh, sw, *phase_hw, channels],
                                                                          "float32")))
        rows = bb.emit(relax.op.permute_dims(phases, [0, 5, 3, 1, 4, 2]))
    out = relax.op.reshape(rows, [batch, channels, *full])
    if full == (height, width):
        return out
    return relax.op.strided_slice(bb.emit(out), axes=[2, 3], begin=[0, 0], end=[height, width])


def filter_grad(bb: relax.BlockBuilder, x: relax.Expr, dy: relax.Expr, x_shape: Sequence[int],
                w_shape: Sequence[int], stride: Sequence[int], pads: Sequence[int],
                out_dtype: str = "float32") -> relax.Expr | None:
    """Gradient of ``conv2d`` for its weights ``(o, c, kh, kw)``, in ``out_dtype``; None where
    it does not apply."""
    batch, channels = _static(x_shape[0]), int(x_shape[1])
    outs, kh, kw = (int(d) for d in (w_shape[0], w_shape[2], w_shape[3]))
    ho, wo = (int(d) for d in dy.ty.shape.values[2:])
    if outs % 16 or min(pads) < 0:
        return None
    sh, sw = (int(s) for s in stride)
    xq = bb.emit_te(_column_pairs, x, (pads[0], pads[2]), *column_pairs_hw(ho, wo, kh, kw, (sh, sw)), sw)
    dyp = bb.emit_te(_dy_pairs, dy)
    gv = _add(bb, filter_grad_source(batch, channels, outs, ho, wo, kh, kw, (sh, sw)), "bf16_direct_conv_filter_grad")
    chunks = filter_chunks(batch, channels, outs)
    out = relax.call_tir(gv, [xq, dyp], relax.TensorType([chunks, outs, channels, kh, kw], "float32"))
    if chunks == 1:
        return _as(bb, relax.op.reshape(bb.emit(out), [outs, channels, kh, kw]), out_dtype)
    return _as(bb, relax.op.sum(bb.emit(out), axis=[0]), out_dtype)
