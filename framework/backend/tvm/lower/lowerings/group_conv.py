"""Grouped convolution's filter gradient (``GroupConv2DBackpropFilter``).

``GroupConv2D`` and ``GroupConv2DBackpropInput`` lower through :mod:`.conv` (Relax's
``conv2d``/``conv2d_transpose`` with ``groups``). Relax has no grouped weight gradient, so
this one is the ungrouped TE reduction (``te_kernels.conv2d_filter_grad``) reading only the
input channels of each output channel's group. It has no schedule of its
own: the generic CPU rules (``cpu_rules``) and the GPU dlight rules schedule it like any
other contraction.
"""

from __future__ import annotations

from .. import te_kernels
from .base import LowerContext


def lower_group_conv2d_backprop_filter(ctx: LowerContext, x, dy):
    prim = ctx.prim
    pads, _, _ = prim.geometry(ctx.in_specs[0].shape, prim.filter_shape)
    return ctx.bb.call_te(te_kernels.conv2d_filter_grad, x, dy, tuple(prim.filter_shape),
                          tuple(prim.stride), tuple(prim.dilation), tuple(pads), prim.group,
                          primfunc_name_hint="group_conv2d_filter_grad")
