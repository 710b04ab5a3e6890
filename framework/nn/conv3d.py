"""3-d convolutions (``nn.Conv3d``, ``nn.Conv3dTranspose``, NCDHW) as sums over the kernel's
depth of 2-d ones: depth tap ``i`` convolves the depth slices it meets (batched with the
samples) with the weight's slice ``i``. Compositions of the 2-d primitives, so gradients
and graph-mode kernels are theirs."""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..ops.conv import Conv2D, Conv2DBackpropInput
from ..ops.group_conv import GroupConv2D, GroupConv2DBackpropInput
from .cell import Cell
from .checks import tensor_shape
from .conv_geometry import conv_out, conv_pads, ints, pad_mode_of, transpose_crop
from .conv_transpose import conv_weights


def _to_slices(x: Any) -> Any:
    """(N, C, D, H, W) -> (N * D, C, H, W)."""
    n, c, d, h, w = x.shape
    return ops.reshape(ops.transpose(x, (0, 2, 1, 3, 4)), (n * d, c, h, w))


def _from_slices(y: Any, n: int) -> Any:
    """(N * D, C, H, W) -> (N, C, D, H, W)."""
    nd, c, h, w = y.shape
    return ops.transpose(ops.reshape(y, (n, nd // n, c, h, w)), (0, 2, 1, 3, 4))


def conv3d(x: Any, weight: Any, stride, dilation, pads, group: int) -> Any:
    """Cross-correlation of (N, C, D, H, W) with (O, C / group, kd, kh, kw); ``pads``: the
    (before, after) padding of D, H and W."""
    n, _, depth = x.shape[:3]
    kd = weight.shape[2]
    out_d = conv_out(depth, kd, stride[0], dilation[0], *pads[0])
    if out_d < 1:
        raise ValueError(f"Conv3d: kernel depth {kd} does not fit input {tuple(x.shape)}")
    if any(pads[0]):
        x = ops.pad(x, ((0, 0), (0, 0), pads[0], (0, 0), (0, 0)))
    attrs = {"stride": stride[1:], "dilation": dilation[1:], "pad_mode": "pad",
             "pad": (*pads[1], *pads[2])}
    conv = Conv2D(**attrs) if group == 1 else GroupConv2D(group=group, **attrs)
    out = None
    for i in range(kd):
        start = i * dilation[0]
        taps = x[:, :, start:start + stride[0] * (out_d - 1) + 1:stride[0]]
        y = conv(_to_slices(taps), weight[:, :, i])
        out = y if out is None else out + y
    return _from_slices(out, n)


def conv3d_transpose(x: Any, weight: Any, stride, dilation, group: int) -> Any:
    """The adjoint of a 'valid' :func:`conv3d`: (N, Cin, D, H, W) with (Cin, Cout / group,
    kd, kh, kw) -> (N, Cout, (D - 1) * sd + (kd - 1) * dd + 1, ...)."""
    n, _, depth, h, w = x.shape
    cout = weight.shape[1] * group
    kd, kh, kw = weight.shape[2:]
    full = [(size - 1) * s + (k - 1) * d + 1
            for size, k, s, d in zip((depth, h, w), (kd, kh, kw), stride, dilation)]
    attrs = {"stride": stride[1:], "dilation": dilation[1:], "pad_mode": "valid",
             "input_shape": (n * depth, cout, full[1], full[2])}
    adjoint = (Conv2DBackpropInput(**attrs) if group == 1
               else GroupConv2DBackpropInput(group=group, **attrs))
    slices = _to_slices(x)
    out = None
    for i in range(kd):
        y = ops.reshape(adjoint(slices, weight[:, :, i]), (n, depth, cout, full[1], full[2]))
        if stride[0] > 1:  # depth d lands at d * stride: zeros between
            zeros = ops.zeros_like(y)
            y = ops.stack([y] + [zeros] * (stride[0] - 1), 2)
            y = ops.reshape(y, (n, depth * stride[0], cout, full[1], full[2]))
            y = y[:, :(depth - 1) * stride[0] + 1]
        start = i * dilation[0]
        y = ops.pad(y, ((0, 0), (start, full[0] - start - y.shape[1]), (0, 0), (0, 0), (0, 0)))
        out = y if out is None else out + y
    return ops.transpose(out, (0, 2, 1, 3, 4))


def crop(x: Any, first_axis: int, spans) -> Any:
    """``x`` cut to ``(start, length)`` per axis from ``first_axis`` on, zeros past its end."""
    extra = [max(start + length - x.shape[first_axis + i], 0) for i, (start, length) in enumerate(spans)]
    if any(extra):
        x = ops.pad(x, tuple((0, 0) for _ in range(first_axis)) + tuple((0, e) for e in extra))
    index = (slice(None),) * first_axis + tuple(slice(s, s + n) for s, n in spans)
    return x[index]


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


class Conv3d(Cell):
    """MindSpore's ``nn.Conv3d``: weight (out, in / group, kd, kh, kw); pad_mode 'same'
    (default), 'valid' or 'pad' with ``padding`` an int or (head, tail, top, bottom, left,
    right)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
                 has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
                 data_format: str = "NCDHW", dtype: Any = mstype.float32) -> None:
        super().__init__()
        who = type(self).__name__
        if data_format != "NCDHW":
            raise ValueError(f"{who}: only data_format='NCDHW' is supported, got {data_format!r}")
        self.kernel_size = ints(who, "kernel_size", kernel_size, 3)
        self.stride = ints(who, "stride", stride, 3)
        self.dilation = ints(who, "dilation", dilation, 3)
        self.padding = _padding6(who, padding)
        self.pad_mode = pad_mode_of(who, pad_mode, self.padding)
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
        who = type(self).__name__
        if data_format != "NCDHW":
            raise ValueError(f"{who}: only data_format='NCDHW' is supported, got {data_format!r}")
        self.kernel_size = ints(who, "kernel_size", kernel_size, 3)
        self.stride = ints(who, "stride", stride, 3)
        self.dilation = ints(who, "dilation", dilation, 3)
        self.padding = _padding6(who, padding)
        self.pad_mode = pad_mode_of(who, pad_mode, self.padding)
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
