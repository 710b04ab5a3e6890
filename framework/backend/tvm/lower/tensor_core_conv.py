"""bfloat16/float16 convolutions for CUDA tensor cores: implicit GEMMs, float32 sums.

Each of a convolution's three products is written as one TE reduction whose operands stay
16-bit and whose products are summed in float32 (the NumPy kernels' rule: exact products,
float32 sums), with every index an affine function of the loop variables:

- forward ``y[n, o, p, q] = sum_{c,i,j} xpad[n, c, p*s + i, q*s + j] * w[o, c, i, j]``:
  a GEMM of M = (n, p, q), N = o, K = (c, i, j);
- weight gradient ``dw[o, c, i, j] = sum_{n,p,q} dy[n, o, p, q] * xpad[n, c, p*s + i, q*s + j]``:
  M = o, N = (c, i, j), K = (n, p, q);
- input gradient (stride 1; per phase when strided) ``dx[n, c, y, x] = sum_{o,i,j} dypad[n, o, y + i, x + j] *
  w[o, c, k-1-i, k-1-j]``: M = (n, y, x), N = c, K = (o, i, j).

A strided input gradient is one such GEMM per phase of the stride (input rows ``s*q + p``
receive gradient only through the taps ``i = (p + top) % s + s*t``: no products with the
zeros a dilated ``dy`` would hold), the phases interleaved afterwards.

The schedule (``schedule.tensor_cores.TensorCoreMatmul``, TVM's WMMA GEMM schedule) reads
such a block as a GEMM and stages its operands through shared memory: the windows are
gathered there, tile by tile, so no im2col buffer is ever written to device memory. The
padding stages are inlined into those loads.
"""

from __future__ import annotations

from tvm import relax, te, tirx

ACCUMULATE = "float32"


def _padded(x, pads: tuple[int, int, int, int], name: str):
    """``x`` (N, C, H, W) with ``pads`` (top, bottom, left, right) zeros; ``x`` itself when
    there are none."""
    top, bottom, left, right = pads
    if not any(pads):
        return x
    n, c, h, w = (int(d) for d in x.shape)

    def value(b, ch, i, j):
        inside = tirx.all(i >= top, i < h + top, j >= left, j < w + left)
        return tirx.if_then_else(inside, x[b, ch, i - top, j - left], tirx.const(0, x.dtype))

    return te.compute((n, c, h + top + bottom, w + left + right), value, name=name)


def conv2d(x, w, stride: tuple[int, int], pads: tuple[int, int, int, int]):
    """Forward, NCHW x OIHW -> float32 NCHW."""
    n, c, h, wd = (int(d) for d in x.shape)
    o, _, kh, kw = (int(d) for d in w.shape)
    (sh, sw), (top, bottom, left, right) = stride, pads
    ho, wo = (h + top + bottom - kh) // sh + 1, (wd + left + right - kw) // sw + 1
    xp = _padded(x, pads, "pad_temp")
    rc, ri, rj = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, kh), "ri"), te.reduce_axis((0, kw), "rj")
    return te.compute(
        (n, o, ho, wo),
        lambda b, oo, p, q: te.sum(xp[b, rc, p * sh + ri, q * sw + rj].astype(ACCUMULATE)
                                   * w[oo, rc, ri, rj].astype(ACCUMULATE), axis=[rc, ri, rj]),
        name="tc_conv2d")


def filter_grad(x, dy, filter_shape: tuple[int, ...], stride: tuple[int, int],
                pads: tuple[int, int, int, int]):
    """Weight gradient -> float32 OIHW."""
    _, c, kh, kw = filter_shape
    n, o, ho, wo = (int(d) for d in dy.shape)
    sh, sw = stride
    xp = _padded(x, pads, "pad_temp")
    rn, rp, rq = te.reduce_axis((0, n), "rn"), te.reduce_axis((0, ho), "rp"), te.reduce_axis((0, wo), "rq")
    return te.compute(
        (o, c, kh, kw),
        lambda oo, cc, i, j: te.sum(dy[rn, oo, rp, rq].astype(ACCUMULATE)
                                    * xp[rn, cc, rp * sh + i, rq * sw + j].astype(ACCUMULATE),
                                    axis=[rn, rp, rq]),
        name="tc_conv2d_filter_grad")


def input_grad(dy, w, input_shape: tuple[int, ...], pads: tuple[int, int, int, int]):
    """Input gradient of a stride-1 convolution -> float32 NCHW of ``input_shape``:
    the forward convolution's transpose, a convolution of ``dy`` padded by ``k-1-pad``
    with the weights flipped and their two channel axes swapped."""
    n, c, h, wd = input_shape
    o, _, kh, kw = (int(d) for d in w.shape)
    _, _, ho, wo = (int(d) for d in dy.shape)
    top, _, left, _ = pads
    # dypad row a holds dy row a - (kh - 1 - top): x row y then sums dypad rows y .. y + kh - 1
    grow, gcol = kh - 1 - top, kw - 1 - left
    dyp = _padded(dy, (grow, h + kh - 1 - grow - ho, gcol, wd + kw - 1 - gcol - wo), "pad_temp")
    ro, ri, rj = te.reduce_axis((0, o), "ro"), te.reduce_axis((0, kh), "ri"), te.reduce_axis((0, kw), "rj")
    return te.compute(
        (n, c, h, wd),
        lambda b, cc, y, xx: te.sum(dyp[b, ro, y + ri, xx + rj].astype(ACCUMULATE)
                                    * w[ro, cc, kh - 1 - ri, kw - 1 - rj].astype(ACCUMULATE),
                                    axis=[ro, ri, rj]),
        name="tc_conv2d_input_grad")


def input_grad_phase(dy, w, input_shape: tuple[int, ...], stride: tuple[int, int],
                     pads: tuple[int, int, int, int], p: int, r: int):
    """Phase ``(p, r)`` of a strided convolution's input gradient -> float32 ``(N, C, H/s,
    W/s)``, element ``[n, c, q, v]`` being ``dx[n, c, s*q + p, s*v + r]``: the taps
    ``tap + s*t`` (``t < ceil(k/s)``; those past the kernel are zero) over ``dy`` rows
    ``q + shift - t``, written with ``t`` reversed as in :func:`input_grad`."""
    n, c, h, wd = input_shape
    o, _, kh, kw = (int(d) for d in w.shape)
    _, _, ho, wo = (int(d) for d in dy.shape)
    (sh, sw), (top, _, left, _) = stride, pads
    th, tw = -(-kh // sh), -(-kw // sw)
    row_shift, tap_row = divmod(p + top, sh)
    col_shift, tap_col = divmod(r + left, sw)
    hq, wq = h // sh, wd // sw
    # dypad row a is dy row a - (th - 1); output row q sums dypad rows q + shift + t'
    dyp = _padded(dy, (th - 1, max(0, hq + row_shift - ho), tw - 1, max(0, wq + col_shift - wo)),
                  "pad_temp")

    def tap(oo, cc, i, j):
        row, col = tap_row + sh * (th - 1 - i), tap_col + sw * (tw - 1 - j)
        inside = tirx.all(row < kh, col < kw)
        return tirx.if_then_else(inside, w[oo, cc, tirx.min(row, kh - 1), tirx.min(col, kw - 1)],
                                 tirx.const(0, w.dtype))

    taps = te.compute((o, c, th, tw), tap, name="weight_taps")
    ro, ri, rj = te.reduce_axis((0, o), "ro"), te.reduce_axis((0, th), "ri"), te.reduce_axis((0, tw), "rj")
    return te.compute(
        (n, c, hq, wq),
        lambda b, cc, q, v: te.sum(dyp[b, ro, q + row_shift + ri, v + col_shift + rj].astype(ACCUMULATE)
                                   * taps[ro, cc, ri, rj].astype(ACCUMULATE), axis=[ro, ri, rj]),
        name="tc_conv2d_input_grad_phase")


def on_cuda() -> bool:
    import tvm

    target = tvm.target.Target.current(allow_none=True)
    return target is not None and target.kind.name == "cuda"


def lower(kind: str, ctx, a, b):
    """The float32 result of ``kind`` (conv2d, input_grad, filter_grad) of ``ctx.prim``
    (dilation 1, one group) on 16-bit ``a``, ``b`` as one of the kernels above, emitted into
    ``ctx.bb``; None where none applies (a strided input gradient, a padding past the
    kernel's reach)."""
    prim, (a_spec, b_spec) = ctx.prim, ctx.in_specs
    stride = tuple(int(s) for s in prim.stride)
    if kind == "conv2d":
        pads, _, _ = prim.geometry(a_spec.shape, b_spec.shape)
        return ctx.bb.call_te(conv2d, a, b, stride, tuple(pads), primfunc_name_hint="tc_conv2d")
    if kind == "filter_grad":
        pads, _, _ = prim.geometry(a_spec.shape, prim.filter_shape)
        return ctx.bb.call_te(filter_grad, a, b, tuple(prim.filter_shape), stride, tuple(pads),
                              primfunc_name_hint="tc_conv2d_filter_grad")
    shape = tuple(int(d) for d in prim.input_shape)
    pads, _, _ = prim.geometry(shape, b_spec.shape)
    kh, kw = (int(d) for d in b_spec.shape[2:])
    reach = (kh - 1, kh - 1, kw - 1, kw - 1)
    if any(not 0 <= p <= r for p, r in zip(pads, reach)):
        return None
    if stride == (1, 1):
        return ctx.bb.call_te(input_grad, a, b, shape, tuple(pads),
                              primfunc_name_hint="tc_conv2d_input_grad")
    (n, c, h, w), (sh, sw) = shape, stride
    if h % sh or w % sw:
        return None
    phases = [ctx.bb.emit_te(input_grad_phase, a, b, shape, stride, tuple(pads), p, r,
                             primfunc_name_hint="tc_conv2d_input_grad_phase")
              for p in range(sh) for r in range(sw)]
    stacked = ctx.bb.emit(relax.op.stack(phases, axis=2))  # n c (p r) hq wq
    rows = ctx.bb.emit(relax.op.reshape(stacked, (n, c, sh, sw, h // sh, w // sw)))
    rows = ctx.bb.emit(relax.op.permute_dims(rows, [0, 1, 4, 2, 5, 3]))  # n c hq p wq r
    return relax.op.reshape(rows, (n, c, h, w))
