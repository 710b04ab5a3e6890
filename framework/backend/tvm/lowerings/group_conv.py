"""Grouped convolution's filter gradient (``GroupConv2DBackpropFilter``).

``GroupConv2D`` and ``GroupConv2DBackpropInput`` lower through :mod:`.conv` (Relax's
``conv2d``/``conv2d_transpose`` with ``groups``). Relax has no grouped weight gradient, so
this one is a TE reduction straight from the NCHW tensors, like the ungrouped one but
reading only the input channels of each output channel's group. It has no schedule of its
own: the generic CPU rules (``cpu_rules``) and the GPU dlight rules schedule it like any
other contraction.
"""

from __future__ import annotations

from tvm import te, tirx

from .base import LowerContext


def group_conv2d_filter_grad(x, dy, filter_shape, stride, dilation, pads, group):
    """``dw[o, c, i, j] = sum_{n,y,x} dy[n, o, y, x] * xpad[n, g(o)*C/G + c, y*s + i*d, ...]``
    with ``g(o) = o // (O/G)``; ``pads`` is (top, bottom, left, right)."""
    o, cg, kh, kw = filter_shape
    (sh, sw), (dh, dw), (top, bottom, left, right) = stride, dilation, pads
    n, c, h, w = (int(d) for d in x.shape)
    _, _, ho, wo = (int(d) for d in dy.shape)
    og = o // group
    if any(pads):
        def padded(b, ch, i, j):
            inside = tirx.all(i >= top, i < h + top, j >= left, j < w + left)
            return tirx.if_then_else(inside, x[b, ch, i - top, j - left], tirx.const(0, x.dtype))

        x = te.compute((n, c, h + top + bottom, w + left + right), padded, name="pad_temp")
    rn, ry, rx = te.reduce_axis((0, n), "rn"), te.reduce_axis((0, ho), "ry"), te.reduce_axis((0, wo), "rx")
    return te.compute(
        (o, cg, kh, kw),
        lambda oo, cc, i, j: te.sum(
            dy[rn, oo, ry, rx].astype(dy.dtype)
            * x[rn, tirx.indexdiv(oo, og) * cg + cc, ry * sh + i * dh, rx * sw + j * dw].astype(dy.dtype),
            axis=[rn, ry, rx]),
        name="group_conv2d_filter_grad")


def lower_group_conv2d_backprop_filter(ctx: LowerContext, x, dy):
    prim = ctx.prim
    pads, _, _ = prim.geometry(ctx.in_specs[0].shape, prim.filter_shape)
    return ctx.bb.call_te(group_conv2d_filter_grad, x, dy, tuple(prim.filter_shape),
                          tuple(prim.stride), tuple(prim.dilation), tuple(pads), prim.group,
                          primfunc_name_hint="group_conv2d_filter_grad")
