"""``nn.Conv3d`` and ``nn.Conv3dTranspose`` (NCDHW): the cells over the depth-sum
compositions of :mod:`framework.ops.conv3d`."""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..ops.conv3d import conv3d, conv3d_transpose, crop
from ..ops.conv_geometry import conv_pads, ints, pad_mode_of, transpose_crop
from .cell import Cell
from .checks import tensor_shape
from .conv_transpose import conv_weights


def _padding6(who: str, padding: Any) -> tuple[int, ...]:
    if isinstance(padding, tuple | list):
        return ints(who, "padding", tuple(padding), 6, 0)
    return ints(who, "padding", padding, 1, 0) * 6


def _check_input(cell: Cell, x: Any) -> tuple[int, ...]:
    shape = tensor_shape(type(cell).__name__, x)
    if len(shape) != 5 or shape[1] != cell.in_channels:
        raise ValueError(f"{type(cell).__name__}: expected a 5-d NCDHW input with "
                         f"{cell.in_channels} channels, got {shape}")
    return shape


def _bias(out: Any, bias: Any) -> Any:
    return out + ops.reshape(bias, (1, -1, 1, 1, 1))



def _geometry(cell: Cell, kernel_size: Any, stride: Any, dilation: Any, padding: Any,
              pad_mode: str, data_format: str) -> str:
    """Checks and sets a 3-d convolution cell's window geometry; its name, for messages."""
    who = type(cell).__name__
    if data_format != "NCDHW":
        raise ValueError(f"{who}: only data_format='NCDHW' is supported, got {data_format!r}")
    cell.kernel_size = ints(who, "kernel_size", kernel_size, 3)
    cell.stride = ints(who, "stride", stride, 3)
    cell.dilation = ints(who, "dilation", dilation, 3)
    cell.padding = _padding6(who, padding)
    cell.pad_mode = pad_mode_of(who, pad_mode, cell.padding)
    return who

class Conv3d(Cell):
    """MindSpore's ``nn.Conv3d``: weight (out, in / group, kd, kh, kw); pad_mode 'same'
    (default), 'valid' or 'pad' with ``padding`` an int or (head, tail, top, bottom, left,
    right)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCDHW", dtype: Any = mstype.float32) -> None:
        super().__init__()
        who = _geometry(self, kernel_size, stride, dilation, padding, pad_mode, data_format)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        conv_weights(self, who, in_channels, out_channels, group,
                     (out_channels, in_channels // group, *self.kernel_size), has_bias,
                     weight_init, bias_init, dtype)

    def construct(self, x):
        shape = _check_input(self, x)
        pads = conv_pads(self.pad_mode, shape[2:], self.kernel_size, self.stride,
                         self.dilation, self.padding)
        out = conv3d(x, self.weight, self.stride, self.dilation, pads, self.group)
        return _bias(out, self.bias) if self.has_bias else out


class Conv3dTranspose(Cell):
    """MindSpore's ``nn.Conv3dTranspose``: weight (in, out / group, kd, kh, kw); per axis
    the output is ``size * stride`` ('same'), ``(size - 1) * stride + dilation * (k - 1) + 1``
    ('valid', at least ``size * stride``) or that less the axis's two paddings plus
    ``output_padding`` ('pad')."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 output_padding: Any = 0, has_bias: bool = False, weight_init: Any = None,
                 bias_init: Any = None, data_format: str = "NCDHW",
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        who = _geometry(self, kernel_size, stride, dilation, padding, pad_mode, data_format)
        if self.dilation[0] != 1:  # as MindSpore's Conv3DTranspose
            raise ValueError(f"{who}: the depth of dilation must be 1, got {dilation!r}")
        self.output_padding = ints(who, "output_padding", output_padding, 3, 0)
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        conv_weights(self, who, in_channels, out_channels, group,
                     (in_channels, out_channels // group, *self.kernel_size), has_bias,
                     weight_init, bias_init, dtype)

    def construct(self, x):
        shape = _check_input(self, x)
        out = conv3d_transpose(x, self.weight, self.stride, self.dilation, self.group)
        spans = []
        for i, size in enumerate(shape[2:]):
            start, length = transpose_crop(self.pad_mode, size, self.kernel_size[i], self.stride[i],
                                           self.dilation[i], self.padding[2 * i],
                                           self.padding[2 * i + 1])
            spans.append((start, length + self.output_padding[i]))
        out = crop(out, 2, spans)
        return _bias(out, self.bias) if self.has_bias else out
