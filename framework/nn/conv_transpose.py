"""Transposed convolutions (``nn.Conv1dTranspose``, ``nn.Conv2dTranspose``): the adjoint
of a 2-d convolution, run by the 2-d convolution's input-gradient primitive."""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import HeUniform, Uniform, initializer
from ..ops.conv import Conv2DBackpropInput
from ..ops.conv_geometry import ints, pad_mode_of, transpose_crop
from ..ops.group_conv import GroupConv2DBackpropInput
from ..ops.shape_ops import pad as pad_pairs
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints, tensor_shape


def conv_weights(cell: Cell, who: str, in_channels: int, out_channels: int, group: int,
                 shape: tuple[int, ...], has_bias: bool, weight_init: Any, bias_init: Any,
                 dtype: Any) -> None:
    """``cell.weight`` of ``shape`` and ``cell.bias`` (``out_channels``, or None) with
    MindSpore 2.x's defaults: HeUniform(sqrt(5)), bias Uniform(1 / sqrt(fan_in))."""

    positive_ints(who, in_channels=in_channels, out_channels=out_channels, group=group)
    if in_channels % group or out_channels % group:
        raise ValueError(f"{who}: in_channels ({in_channels}) and out_channels ({out_channels}) "
                         f"must both be divisible by group ({group})")
    dt = dtype
    winit = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
    cell.weight = Parameter(initializer(winit, shape, dt), "weight")
    cell.has_bias = bool(has_bias)
    if has_bias:
        fan_in = shape[1] * math.prod(shape[2:])
        binit = Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init
        cell.bias = Parameter(initializer(binit, (out_channels,), dt), "bias")
    else:
        cell.bias = None


class Conv2dTranspose(Cell):
    """MindSpore's ``nn.Conv2dTranspose``: weight (in, out / group, kh, kw); output height
    ``H * stride`` ('same'), ``(H - 1) * stride + dilation * (kh - 1) + 1`` ('valid', at
    least ``H * stride``) or that less ``padding`` ('pad'; int or (top, bottom, left,
    right)); ``output_padding`` (only with 'pad', below max(stride, dilation)) appends zero
    rows/columns at the bottom/right."""

    rank = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, output_padding: Any = 0,
                 dilation: Any = 1, group: int = 1, has_bias: bool = False,
                 weight_init: Any = None, bias_init: Any = None, dtype: Any = mstype.float32) -> None:
        super().__init__()
        who = type(self).__name__
        self.kernel_size = ints(who, "kernel_size", kernel_size, 2)
        self.stride = ints(who, "stride", stride, 2)
        self.dilation = ints(who, "dilation", dilation, 2)
        self.padding = ints(who, "padding", padding, 4, 0) if isinstance(padding, tuple | list) \
            else ints(who, "padding", padding, 1, 0) * 4
        self.pad_mode = pad_mode_of(who, pad_mode, self.padding)
        self.output_padding = ints(who, "output_padding", output_padding, 2, 0)
        for op, s, d in zip(self.output_padding, self.stride, self.dilation):
            if op >= max(s, d):
                raise ValueError(f"{who}: output_padding must be in [0, max(stride, dilation)), "
                                 f"got {output_padding!r}")
        if any(self.output_padding) and self.pad_mode != "pad":
            raise ValueError(f"{who}: a non-zero output_padding needs pad_mode='pad'")
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        conv_weights(self, who, in_channels, out_channels, group,
                     (in_channels, out_channels // group, *self.kernel_size), has_bias,
                     weight_init, bias_init, dtype)

    def transpose2d(self, x: Any, weight: Any) -> Any:
        """(N, in, H, W) -> (N, out, Ho, Wo), bias and output padding included."""
        n, _, h, w = x.shape
        sizes = []
        for i, size in enumerate((h, w)):
            before, after = self.padding[2 * i], self.padding[2 * i + 1]
            sizes.append(transpose_crop(self.pad_mode, size, self.kernel_size[i], self.stride[i],
                                        self.dilation[i], before, after)[1])
        attrs = {"stride": self.stride, "dilation": self.dilation, "pad_mode": self.pad_mode,
                 "pad": self.padding, "input_shape": (n, self.out_channels, *sizes)}
        conv = (Conv2DBackpropInput(**attrs) if self.group == 1
                else GroupConv2DBackpropInput(group=self.group, **attrs))
        out = conv(x, weight)
        if self.has_bias:
            out = ops.bias_add(out, self.bias)
        if any(self.output_padding):
            out = pad_pairs(out, ((0, 0), (0, 0), (0, self.output_padding[0]),
                                (0, self.output_padding[1])))
        return out

    def construct(self, x):
        shape = tensor_shape(type(self).__name__, x)
        if len(shape) != 4 or shape[1] != self.in_channels:
            raise ValueError(f"{type(self).__name__}: expected a 4-d input with "
                             f"{self.in_channels} channels, got {shape}")
        return self.transpose2d(x, self.weight)

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


class Conv1dTranspose(Conv2dTranspose):
    """MindSpore's ``nn.Conv1dTranspose``: (N, in, L) -> (N, out, Lo) as a Conv2dTranspose of
    height 1; its weight is MindSpore's 4-d (in, out / group, 1, k)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: Any = mstype.float32) -> None:
        who = type(self).__name__
        for name, value, low in (("kernel_size", kernel_size, 1), ("stride", stride, 1),
                                 ("padding", padding, 0), ("dilation", dilation, 1)):
            ints(who, name, value, 1, low)  # one int each, as MindSpore's
            if not isinstance(value, int):
                raise TypeError(f"{who}: {name} must be an int, got {value!r}")
        if hasattr(weight_init, "shape") and len(weight_init.shape) == 3:
            weight_init = ops.expand_dims(weight_init, 2)
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         (0, 0, padding, padding), 0, (1, dilation), group, has_bias,
                         weight_init, bias_init, dtype)

    def construct(self, x):
        shape = tensor_shape(type(self).__name__, x)
        if len(shape) != 3 or shape[1] != self.in_channels:
            raise ValueError(f"{type(self).__name__}: expected a 3-d input with "
                             f"{self.in_channels} channels, got {shape}")
        return ops.squeeze(self.transpose2d(ops.expand_dims(x, 2), self.weight), 2)
