"""TE compute definitions for lowerings that no single Relax op expresses well.

Used through ``bb.call_te`` by :mod:`.lowerings`; the CPU rules (:mod:`..schedule.cpu_rules`) and the
GPU dlight rules schedule them like any legalized op.
"""

from __future__ import annotations

from tvm import te, tirx


def conv2d_filter_grad(x, dy, filter_shape, stride, dilation, pads, group: int = 1):
    """``dw[o, c, i, j] = sum_{n,y,x} dy[n, o, y, x] * xpad[n, c, y*s + i*d, x*s + j*d]``
    straight from the NCHW tensors: no transposes, no crop; ``pads`` is (top, bottom, left,
    right). With stride 1 the innermost reduction axis runs contiguously through both
    operands, which the CPU rules vectorize. Grouped (``group`` > 1): output channel ``o``
    reads input channel ``(o // (O/G)) * C/G + c`` (block ``group_conv2d_filter_grad``)."""
    o_all, cg, kh, kw = filter_shape
    (sh, sw), (dh, dw), (top, bottom, left, right) = stride, dilation, pads
    n = x.shape[0]  # (a symbolic batch: a TIR expression, reduced over like any extent)
    c, h, w = (int(d) for d in x.shape[1:])
    o, ho, wo = (int(d) for d in dy.shape[1:])
    if any(pads):
        def padded(b, ch, i, j):
            inside = tirx.all(i >= top, i < h + top, j >= left, j < w + left)
            return tirx.if_then_else(inside, x[b, ch, i - top, j - left], tirx.const(0, x.dtype))

        x = te.compute((n, c, h + top + bottom, w + left + right), padded, name="pad_temp")
    rn, ry, rx = te.reduce_axis((0, n), "rn"), te.reduce_axis((0, ho), "ry"), te.reduce_axis((0, wo), "rx")
    og = o_all // group

    def channel(oo, cc):
        return cc if group == 1 else tirx.indexdiv(oo, og) * cg + cc

    def window(b, oo, cc, y, xx, i, j):
        return x[b, channel(oo, cc), y * sh + i * dh, xx * sw + j * dw].astype(dy.dtype)

    return te.compute(
        (o, cg, kh, kw),
        lambda oo, cc, i, j: te.sum(dy[rn, oo, ry, rx].astype(dy.dtype) * window(rn, oo, cc, ry, rx, i, j),
                                    axis=[rn, ry, rx]),
        name="conv2d_filter_grad" if group == 1 else "group_conv2d_filter_grad")


# windows of at most this many entries are unrolled into one elementwise expression: the
# CPU rules vectorize it along the output's rows; as tiny reductions they stayed scalar, and
# with a symbolic batch LLVM's own loop vectorizer made them AVX-512 gathers and scatters
# (LeNet's 2x2 pools 2.3x slower than with a static batch)
UNROLLED_WINDOW = 16


def _window_max(value, shape, kernel, dtype, name, unroll: bool = False):
    """The max over each window, NaN winning (``np.maximum``'s rule): ``value(n, c, i, j, a,
    b)`` is offset (a, b) of window (i, j). ``unroll`` and a small window
    (:data:`UNROLLED_WINDOW`): one elementwise expression, the max of the entries plus the
    sum of its NaN entries (for a pool's output; a gradient's argmax reads the max once per
    entry, so there it stays a block of its own). Otherwise two plain reductions that every
    schedule knows, the CPU rules and the GPU's cross-thread ones alike (a custom NaN-keeping
    reducer is not one they can split): the max, plus the sum of the window's NaN entries (0
    without one, NaN with one)."""
    kh, kw = kernel
    if unroll and kh * kw <= UNROLLED_WINDOW:
        def unrolled(n, c, i, j):
            entries = [value(n, c, i, j, a, b) for a in range(kh) for b in range(kw)]
            peak, nans = entries[0], tirx.Select(tirx.isnan(entries[0]), entries[0], tirx.const(0, dtype))
            for v in entries[1:]:
                peak = tirx.max(peak, v)
                nans = nans + tirx.Select(tirx.isnan(v), v, tirx.const(0, dtype))
            return peak + nans

        return te.compute(shape, unrolled, name=name)
    rh, rw = te.reduce_axis((0, kh), "rh"), te.reduce_axis((0, kw), "rw")
    peak = te.compute(shape, lambda n, c, i, j: te.max(value(n, c, i, j, rh, rw), axis=[rh, rw]),
                      name=f"{name}_max")
    qh, qw = te.reduce_axis((0, kh), "qh"), te.reduce_axis((0, kw), "qw")

    def nan_only(n, c, i, j):
        v = value(n, c, i, j, qh, qw)
        return te.sum(tirx.Select(tirx.isnan(v), v, tirx.const(0, dtype)), axis=[qh, qw])

    nans = te.compute(shape, nan_only, name=f"{name}_nan")
    return te.compute(shape, lambda n, c, i, j: peak[n, c, i, j] + nans[n, c, i, j], name=name)


def max_pool_nan(x, kernel, strides, pads, out_hw):
    """Max pooling (NCHW) whose windows holding a NaN give NaN, as ``np.maximum`` does
    (TOPI's max reduction drops NaN). ``pads`` is (top, left); padding never wins."""
    (sh, sw), (top, left) = strides, pads
    h, w = (int(d) for d in x.shape[2:])

    def value(n, c, i, j, a, b):
        hh, ww = i * sh + a - top, j * sw + b - left
        inside = tirx.all(hh >= 0, hh < h, ww >= 0, ww < w)
        return tirx.if_then_else(inside, x[n, c, hh, ww], te.min_value(x.dtype))

    return _window_max(value, (x.shape[0], x.shape[1], *out_hw), kernel, x.dtype, "max_pool", unroll=True)


def max_pool_grad(dout, x, kernel, strides, pads):
    """Max-pool gradient: the position of each window's first maximum (row-major), then
    every input element sums the gradients of the windows whose position it is (one window
    when they do not overlap, stride >= kernel; up to ``ceil(k/s)`` per axis otherwise), as
    the NumPy kernel does. ``pads`` is (top, left); padding never wins."""
    (kh, kw), (sh, sw), (top, left) = kernel, strides, pads
    h, w = (int(d) for d in x.shape[2:])
    ho, wo = (int(d) for d in dout.shape[2:])

    def value(n, c, i, j, a, b):  # window (i, j), offset (a, b); padding is the lowest value
        hh, ww = i * sh + a - top, j * sw + b - left
        inside = tirx.all(hh >= 0, hh < h, ww >= 0, ww < w)
        return tirx.if_then_else(inside, x[n, c, hh, ww], te.min_value(x.dtype))

    # two plain reductions (max, then the first position holding it) rather than one
    # argmax tuple reduction: both CPU and GPU schedules know max/min reducers
    # a window holding a NaN peaks at NaN (np.maximum's rule), which equals no entry: its
    # gradient goes nowhere, as in the kernel
    peak = _window_max(value, tuple(dout.shape), kernel, x.dtype, "window_max")

    qh, qw = te.reduce_axis((0, kh), "qh"), te.reduce_axis((0, kw), "qw")
    position = te.compute(tuple(dout.shape), lambda n, c, i, j: te.min(
        tirx.Select(value(n, c, i, j, qh, qw) == peak[n, c, i, j], (qh * kw + qw).astype("int64"),
                    tirx.const(kh * kw, "int64")),  # int64 like the indices: no casts
        axis=[qh, qw]), name="window_argmax")
    reach_h, reach_w = -(-kh // sh), -(-kw // sw)  # windows per axis that can hold an element

    def grad(n, c, hh, ww):
        i0, a0 = tirx.floordiv(hh + top, sh), tirx.floormod(hh + top, sh)
        j0, b0 = tirx.floordiv(ww + left, sw), tirx.floormod(ww + left, sw)
        total = tirx.const(0, dout.dtype)
        for t in range(reach_h):  # the window t rows up holds this element at offset a
            for u in range(reach_w):
                i, a, j, b = i0 - t, a0 + t * sh, j0 - u, b0 + u * sw
                hit = tirx.all(a < kh, b < kw, i >= 0, i < ho, j >= 0, j < wo)
                i, j = tirx.max(tirx.min(i, ho - 1), 0), tirx.max(tirx.min(j, wo - 1), 0)
                hit = tirx.And(hit, position[n, c, i, j] == a * kw + b)  # in bounds: Select
                total = total + tirx.Select(hit, dout[n, c, i, j], tirx.const(0, dout.dtype))
        return total

    return te.compute(tuple(x.shape), grad, name="max_pool_grad")


def conv2d_input_grad_phases(dy, w, input_hw, stride, pads):
    """The input gradient of a strided convolution (groups 1, dilation 1), one phase of the
    stride at a time: ``out[n, c, p, r, q, v]`` is ``dx[n, c, s*q + p, s*v + r]``.

    Input row ``y = s*q + p`` receives gradient only through taps ``i = (p + top) % s +
    s*t`` (``t < ceil(k/s)``), from output row ``q + (p + top) // s - t``; a transposed
    convolution over ``dy`` dilated with zeros does ``s*s`` times that work, most of it
    multiplying zeros. ``dy`` is padded so that every such row exists, the weights to
    ``s*ceil(k/s)`` taps (the extra ones zero). The caller interleaves the phases."""
    n = dy.shape[0]  # (a symbolic batch: a TIR expression, an outer extent only)
    o, ho, wo = (int(d) for d in dy.shape[1:])
    _, c, kh, kw = (int(d) for d in w.shape)
    (h, wd), (sh, sw), (top, left) = input_hw, stride, pads
    th, tw = -(-kh // sh), -(-kw // sw)
    hq, wq = h // sh, wd // sw
    rows = hq + (sh - 1 + top) // sh + th - 1
    cols = wq + (sw - 1 + left) // sw + tw - 1

    def dy_padded(b, oo, a, e):
        inside = tirx.all(a >= th - 1, a < ho + th - 1, e >= tw - 1, e < wo + tw - 1)
        return tirx.if_then_else(inside, dy[b, oo, a - (th - 1), e - (tw - 1)],
                                 tirx.const(0, dy.dtype))

    def w_padded(oo, cc, i, j):
        return tirx.if_then_else(tirx.all(i < kh, j < kw), w[oo, cc, tirx.min(i, kh - 1),
                                                             tirx.min(j, kw - 1)],
                                 tirx.const(0, w.dtype))

    dyp = te.compute((n, o, rows, cols), dy_padded, name="pad_temp")
    wp = te.compute((o, c, sh * th, sw * tw), w_padded, name="weight_taps")
    ro, rt, ru = te.reduce_axis((0, o), "ro"), te.reduce_axis((0, th), "rt"), te.reduce_axis((0, tw), "ru")

    def split(p, pad, s):
        """((p + pad) // s, (p + pad) % s) for 0 <= p < s, without dividing ``p``: TVM
        0.27 simplifies nested div/mod of a fused loop index wrongly (wrong results)."""
        carry = tirx.Select(p + pad % s >= s, 1, 0)
        return pad // s + carry, p + pad % s - s * carry

    def phase(b, cc, p, r, q, v):
        (row_shift, tap_row), (col_shift, tap_col) = split(p, top, sh), split(r, left, sw)
        row = q + row_shift - rt + th - 1
        col = v + col_shift - ru + tw - 1
        return te.sum(dyp[b, ro, row, col] * wp[ro, cc, tap_row + sh * rt, tap_col + sw * ru],
                      axis=[ro, rt, ru])

    return te.compute((n, c, sh, sw, hq, wq), phase, name="conv2d_input_grad")


def reduce_max(x, axes, keepdims: bool):
    """Float max over ``axes`` with NumPy's answers where TOPI's differs: a slice holding a
    NaN gives NaN (TOPI's max skips it) and an all ``-inf`` slice gives ``-inf`` (TOPI's max
    starts from the lowest finite float). Two standard reductions the CPU rules and the
    GPU's cross-thread ones can split: TOPI's max and ``live``, the count of entries above
    ``-inf`` (NaN when one is NaN), which picks the answer."""
    from tvm import topi

    dtype = x.dtype
    minus_inf = tirx.const(float("-inf"), dtype)
    one, zero = tirx.const(1, dtype), tirx.const(0, dtype)

    def flag(*i):
        v = x(*i)
        return tirx.Select(tirx.isnan(v), v, tirx.Select(v > minus_inf, one, zero))

    peak = topi.max(x, axis=axes, keepdims=keepdims)
    live = topi.sum(te.compute(x.shape, flag, name="max_live"), axis=axes, keepdims=keepdims)

    def pick(*i):
        n = live(*i)
        return tirx.Select(tirx.isnan(n), n, tirx.Select(n == zero, minus_inf, peak(*i)))
    return te.compute(peak.shape, pick, name="reduce_max")
