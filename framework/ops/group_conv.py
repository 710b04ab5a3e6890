"""Grouped 2-D convolution (MindSpore's ``group``; depthwise when group = channels) and its
two gradients, NCHW data and (out, in / group, kh, kw) weights.

The ``group = 1`` convolution keeps its own primitives (:mod:`framework.ops.conv`); these
are separate primitives with a ``group`` attribute so that graph mode lowers them to
Relax's ``groups`` convolutions (``framework.backend.tvm.lower.lowerings.group_conv``).

Contract of the three primitives (G = group, C = input channels, O = output channels,
both divisible by G; channel block g of the input meets only output block g):

- ``GroupConv2D(stride, dilation, pad_mode, pad, group)(x, w)``: x (N, C, H, W),
  w (O, C/G, kh, kw) -> (N, O, Ho, Wo);
- ``GroupConv2DBackpropInput(input_shape=..., group=..., ...)(dout, w)`` -> dx;
- ``GroupConv2DBackpropFilter(filter_shape=..., group=..., ...)(x, dout)`` -> dw.

NumPy kernels: the im2col view of :class:`framework.ops.conv._Conv` split into G channel
blocks, then one batched matmul over the blocks (``np.matmul`` runs BLAS per block).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Spec, shape_str
from . import conv as _conv
from ._utils import float32_accumulation, float_dtype
from .conv import _Conv
from .nn_ops import bias_add


class _GroupConv(_Conv, abstract=True):
    """``_Conv`` plus ``group``: the shape checks of a grouped convolution."""

    def __init__(self, stride: Any = 1, dilation: Any = 1, pad_mode: str = "valid",
                 pad: Any = 0, group: int = 1, **extra: Any) -> None:
        if isinstance(group, bool) or not isinstance(group, int | np.integer) or group < 1:
            raise ValueError(f"group must be a positive int, got {group!r}")
        super().__init__(stride, dilation, pad_mode, pad, group=int(group), **extra)

    def check(self, x_shape, w_shape) -> tuple[tuple[int, int, int, int], int, int]:
        if len(x_shape) != 4:
            raise ValueError(f"input must be 4-D NCHW, got {shape_str(tuple(x_shape))}")
        g, c = self.group, x_shape[1]
        if c % g:
            raise ValueError(f"input channels {c} of {shape_str(tuple(x_shape))} are not "
                             f"divisible by group={g}")
        if len(w_shape) != 4 or w_shape[1] != c // g or w_shape[0] % g:
            raise ValueError(
                f"weight {shape_str(tuple(w_shape))} does not match input "
                f"{shape_str(tuple(x_shape))} with group={g}: weight must be "
                f"(out, {c // g}, kh, kw) with out divisible by {g}")
        return self.geometry(x_shape, w_shape)

    def conv_attrs(self) -> dict[str, Any]:
        return {**super().conv_attrs(), "group": self.group}

    def blocks(self, x: np.ndarray, kh: int, kw: int, pads, ho: int, wo: int) -> np.ndarray:
        """The im2col columns as a (G, N*Ho*Wo, C/G*kh*kw) view of ``columns``."""
        cols = self.columns(x, kh, kw, pads, ho, wo)  # C*kh*kw, N*Ho*Wo
        g = self.group
        return cols.reshape(g, cols.shape[0] // g, cols.shape[1]).transpose(0, 2, 1)


def _split_out(dy: np.ndarray, g: int) -> np.ndarray:
    """(N, O, Ho, Wo) -> (G, N*Ho*Wo, O/G)."""
    n, o, ho, wo = dy.shape
    return dy.reshape(n, g, o // g, ho * wo).transpose(1, 0, 3, 2).reshape(g, n * ho * wo, o // g)


class GroupConv2D(_GroupConv):
    """``GroupConv2D(stride, dilation, pad_mode, pad, group)(x, weight)``."""

    def infer(self, x: Any, w: Any) -> Spec:
        _, ho, wo = self.check(x.shape, w.shape)
        return Spec((x.shape[0], w.shape[0], ho, wo), float_dtype(x.dtype))

    @float32_accumulation
    def kernel(self, x, w):
        pads, ho, wo = self.geometry(x.shape, w.shape)
        g, (o, cg, kh, kw), n = self.group, w.shape, x.shape[0]
        cols = self.blocks(x, kh, kw, pads, ho, wo)
        wg = w.reshape(g, o // g, cg * kh * kw).transpose(0, 2, 1)  # G, C/G*kh*kw, O/G
        out = np.matmul(cols, wg)  # G, N*Ho*Wo, O/G
        out = out.reshape(g, n, ho, wo, o // g).transpose(1, 0, 4, 2, 3)
        return np.ascontiguousarray(out.reshape(n, o, ho, wo))

    def bprop(self, x, w, *, out, dout, needs):
        attrs = self.conv_attrs()
        dx = (GroupConv2DBackpropInput(input_shape=tuple(x.shape), **attrs)(dout, w)
              if needs[0] else None)
        dw = (GroupConv2DBackpropFilter(filter_shape=tuple(w.shape), **attrs)(x, dout)
              if needs[1] else None)
        return dx, dw


class GroupConv2DBackpropInput(_GroupConv):
    """Gradient of GroupConv2D w.r.t. its input: ``(dout, weight)``."""

    def infer(self, dy: Any, w: Any) -> Spec:
        self.check_dout(dy, self.input_shape, w.shape)
        return Spec(tuple(self.input_shape), dy.dtype)

    @float32_accumulation
    def kernel(self, dy, w):
        pads, ho, wo = self.geometry(self.input_shape, w.shape)
        g, (o, cg, kh, kw) = self.group, w.shape
        n = dy.shape[0]
        wg = w.reshape(g, o // g, cg * kh * kw)
        cols = np.matmul(_split_out(dy, g), wg)  # G, N*Ho*Wo, C/G*kh*kw
        cols = cols.reshape(g, n, ho, wo, cg, kh, kw).transpose(0, 4, 5, 6, 1, 2, 3)
        return self.add_columns(cols.reshape(g * cg, kh, kw, n, ho, wo), self.input_shape, pads)

    def bprop(self, dy, w, *, out, dout, needs):
        attrs = self.conv_attrs()
        ddy = GroupConv2D(**attrs)(dout, w) if needs[0] else None
        dw = (GroupConv2DBackpropFilter(filter_shape=tuple(w.shape), **attrs)(dout, dy)
              if needs[1] else None)
        return ddy, dw


class GroupConv2DBackpropFilter(_GroupConv):
    """Gradient of GroupConv2D w.r.t. its weight: ``(x, dout)``."""

    def infer(self, x: Any, dy: Any) -> Spec:
        self.check_dout(dy, x.shape, self.filter_shape)
        return Spec(tuple(self.filter_shape), dy.dtype)

    @float32_accumulation
    def kernel(self, x, dy):
        pads, ho, wo = self.geometry(x.shape, self.filter_shape)
        g, (o, cg, kh, kw) = self.group, self.filter_shape
        cols = self.blocks(x, kh, kw, pads, ho, wo)  # G, N*Ho*Wo, C/G*kh*kw
        dw = np.matmul(_split_out(dy, g).transpose(0, 2, 1), cols)  # G, O/G, C/G*kh*kw
        return np.ascontiguousarray(dw.reshape(o, cg, kh, kw))

    def bprop(self, x, dy, *, out, dout, needs):
        attrs = self.conv_attrs()
        dx = (GroupConv2DBackpropInput(input_shape=tuple(x.shape), **attrs)(dy, dout)
              if needs[0] else None)
        ddy = GroupConv2D(**attrs)(x, dout) if needs[1] else None
        return dx, ddy


def conv2d(x, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """Functional convolution (MindSpore's ``ops.conv2d``), NCHW; ``groups`` splits the
    channels into that many blocks (weight (out, in / groups, kh, kw))."""
    if groups == 1:
        out = _conv.Conv2D(stride=stride, dilation=dilation, pad_mode=pad_mode, pad=padding)(x, weight)
    else:
        out = GroupConv2D(stride, dilation, pad_mode, padding, groups)(x, weight)
    return out if bias is None else bias_add(out, bias)
