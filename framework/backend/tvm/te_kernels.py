"""TE compute definitions for lowerings that no single Relax op expresses well.

Used through ``bb.call_te`` by :mod:`.lowering`; the CPU rules (:mod:`.cpu_rules`) and the
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
    n, c, h, w = (int(d) for d in x.shape)
    _, o, ho, wo = (int(d) for d in dy.shape)
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


def max_pool_grad_disjoint(dout, x, kernel, strides, pads):
    """Max-pool gradient for windows that do not overlap (stride >= kernel): the position of
    each window's first maximum (row-major), then every input element takes its window's
    gradient if it is that position. ``pads`` is (top, left); padding never wins."""
    (kh, kw), (sh, sw), (top, left) = kernel, strides, pads
    h, w = (int(d) for d in x.shape[2:])
    ho, wo = (int(d) for d in dout.shape[2:])

    def value(n, c, i, j, a, b):  # window (i, j), offset (a, b); padding is the lowest value
        hh, ww = i * sh + a - top, j * sw + b - left
        inside = tirx.all(hh >= 0, hh < h, ww >= 0, ww < w)
        return tirx.if_then_else(inside, x[n, c, hh, ww], te.min_value(x.dtype))

    # two plain reductions (max, then the first position holding it) rather than one
    # argmax tuple reduction: both CPU and GPU schedules know max/min reducers
    rh, rw = te.reduce_axis((0, kh), "rh"), te.reduce_axis((0, kw), "rw")
    peak = te.compute(tuple(dout.shape), lambda n, c, i, j: te.max(
        value(n, c, i, j, rh, rw), axis=[rh, rw]), name="window_max")
    qh, qw = te.reduce_axis((0, kh), "qh"), te.reduce_axis((0, kw), "qw")
    position = te.compute(tuple(dout.shape), lambda n, c, i, j: te.min(
        tirx.Select(value(n, c, i, j, qh, qw) == peak[n, c, i, j], (qh * kw + qw).astype("int64"),
                    tirx.const(kh * kw, "int64")),  # int64 like the indices: no casts
        axis=[qh, qw]), name="window_argmax")

    def grad(n, c, hh, ww):
        i, a = tirx.floordiv(hh + top, sh), tirx.floormod(hh + top, sh)
        j, b = tirx.floordiv(ww + left, sw), tirx.floormod(ww + left, sw)
        hit = tirx.all(a < kh, b < kw, i < ho, j < wo)
        i, j = tirx.min(i, ho - 1), tirx.min(j, wo - 1)  # in bounds: Select reads both sides
        hit = tirx.And(hit, position[n, c, i, j] == a * kw + b)
        return tirx.Select(hit, dout[n, c, i, j], tirx.const(0, dout.dtype))

    return te.compute(tuple(x.shape), grad, name="max_pool_grad")
