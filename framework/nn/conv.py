"""Convolution and pooling layers (NCHW; the 1-d ones NCL, over a height of 1)."""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import HeUniform, Uniform, initializer
from ..common.tensor import Tensor
from ..ops.conv import Conv2D, pair
from ..ops.window_pool2d import avg_pool2d, max_pool2d
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints


class Conv2d(Cell):
    """MindSpore's ``nn.Conv2d``: pad_mode 'same' (default), 'valid' or 'pad' with
    ``padding``; weight (out, in / group, kh, kw) with 2.x defaults (HeUniform(sqrt(5))).
    ``group`` > 1 splits the channels into blocks (``group = in_channels``: depthwise) and
    runs :class:`framework.ops.GroupConv2D`."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCHW", dtype: Any = mstype.float32) -> None:
        super().__init__()

        positive_ints("Conv2d", in_channels=in_channels, out_channels=out_channels, group=group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must both be divisible by group ({group})")
        if data_format != "NCHW":
            raise ValueError(f"Conv2d: only data_format='NCHW' is supported, got {data_format!r}")
        kh, kw = pair(kernel_size, "kernel_size")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, (kh, kw)
        self.has_bias, self.group = has_bias, group
        dt = dtype or mstype.float32
        winit = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(winit, (out_channels, in_channels // group, kh, kw),
                                            dt), "weight")
        if has_bias:
            fan_in = in_channels // group * kh * kw
            binit = Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init
            self.bias = Parameter(initializer(binit, (out_channels,), dt), "bias")
        else:
            self.bias = None  # as MindSpore's: ``cell.bias is None`` tells there is none
        self.conv2d = (Conv2D(stride=stride, dilation=dilation, pad_mode=pad_mode, pad=padding)
                       if group == 1 else
                       ops.GroupConv2D(stride, dilation, pad_mode, padding, group))
        self.bias_add = ops.BiasAdd()

    def construct(self, x):
        out = self.conv2d(x, self.weight)
        return self.bias_add(out, self.bias) if self.has_bias else out

    def extend_repr(self) -> str:
        c = self.conv2d
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={c.stride}, pad_mode={c.pad_mode}, "
                f"padding={c.pad}, dilation={c.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")


class Conv1d(Conv2d):
    """MindSpore's ``nn.Conv1d`` (NCL): a :class:`Conv2d` over a height of 1, as MindSpore
    builds it: weight ``(out, in / group, 1, kernel_size)`` (HeUniform(sqrt(5)); a Tensor
    ``weight_init`` is given 3-d, ``(out, in / group, kernel_size)``), bias
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``; ``padding`` an int (both ends, 'pad' mode)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 dtype: Any = mstype.float32) -> None:
        for name, value in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation),
                            ("padding", padding)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"Conv1d: {name} must be an int, got {value!r}")
        if hasattr(weight_init, "shape") and not isinstance(weight_init, str):  # a Tensor or array
            shape = (out_channels, in_channels // group, kernel_size)
            if tuple(weight_init.shape) != shape:
                raise ValueError(f"Conv1d: weight_init must have shape {shape} (out, in / group, "
                                 f"kernel_size), got {tuple(weight_init.shape)}")
            weight_init = ops.expand_dims(Tensor(weight_init), 2)  # stored as (out, in / group, 1, k)
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         (0, 0, padding, padding), (1, dilation), group, has_bias, weight_init,
                         bias_init, dtype=dtype)

    def construct(self, x):
        if len(x.shape) != 3:
            raise ValueError(f"Conv1d: needs an (N, C, L) input, got shape {tuple(x.shape)}")
        out = self.conv2d(ops.expand_dims(x, 2), self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return ops.squeeze(out, 2)


class MaxPool2d(Cell):
    """Max over 2-d windows of (N, C, H, W) or (C, H, W). ``pad_mode`` 'valid'/'same': the
    ``MaxPool`` primitive; 'pad': ``padding``, ``dilation``, ``return_indices`` (also the
    flat H*W index of each maximum) and ``ceil_mode``, which only 'pad' takes (MindSpore's
    rule)."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False, data_format: str = "NCHW") -> None:
        super().__init__()
        pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        explicit = padding != 0 or dilation != 1 or return_indices or ceil_mode
        if pad_mode != "pad" and explicit:
            raise ValueError("MaxPool2d: padding, dilation, return_indices and ceil_mode need "
                             f"pad_mode='pad', got pad_mode={pad_mode!r}")
        self.pad_mode = pad_mode
        self.args = (kernel_size, stride, padding, dilation, bool(return_indices), bool(ceil_mode))
        self.pool = None if pad_mode == "pad" else ops.MaxPool(kernel_size, stride, pad_mode,
                                                               data_format)

    def construct(self, x):
        if self.pool is not None:
            return self.pool(x)
        return _unbatched(lambda b: max_pool2d(b, *self.args), x)


class AvgPool2d(Cell):
    """Mean over 2-d windows of (N, C, H, W) or (C, H, W). ``pad_mode`` 'valid'/'same': the
    ``AvgPool`` primitive unless ``ceil_mode`` or ``divisor_override`` asks more; 'pad':
    ``padding`` (an int, ``(h, w)`` or ``(top, bottom, left, right)``), ``ceil_mode``,
    ``count_include_pad`` and ``divisor_override``."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None, data_format: str = "NCHW") -> None:
        super().__init__()
        pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if pad_mode != "pad" and padding != 0:
            raise ValueError(f"AvgPool2d: padding {padding!r} needs pad_mode='pad', got "
                             f"pad_mode={pad_mode!r}")
        windowed = pad_mode == "pad" or ceil_mode or divisor_override
        if windowed and pad_mode == "same":
            raise ValueError("AvgPool2d: ceil_mode and divisor_override need pad_mode 'valid' or 'pad'")
        self.args = (kernel_size, stride, padding, bool(ceil_mode), bool(count_include_pad),
                     divisor_override or 0)
        self.pool = None if windowed else ops.AvgPool(kernel_size, stride, pad_mode, data_format)

    def construct(self, x):
        if self.pool is not None:
            return self.pool(x)
        return _unbatched(lambda b: avg_pool2d(b, *self.args), x)


def _unbatched(pool: Any, x: Any) -> Any:
    """``pool`` of a (C, H, W) input as a batch of one; of (N, C, H, W) as it is."""
    if len(x.shape) == 3:
        out = pool(ops.expand_dims(x, 0))
        return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
    return pool(x)
