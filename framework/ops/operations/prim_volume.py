"""``P.Conv3D``, ``P.AvgPool3D``, ``P.MaxPool3D`` and ``P.AdaptiveAvgPool3D`` (NCDHW):
MindSpore's attribute signatures over the 3-d compositions (:mod:`framework.ops.conv3d`:
depth sums of 2-d convolutions; :mod:`framework.ops.pool_windows`: reductions of strided
window slices), so their gradients and graph-mode kernels are those of the primitives
they apply.

- ``Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
  dilation=1, group=1, data_format='NCDHW')(x, weight)``: ``pad`` an int or (head, tail,
  top, bottom, left, right); ``stride``/``dilation`` an int or 3.
- ``AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False,
  count_include_pad=True, divisor_override=0, data_format='NCDHW')(x)``.
- ``MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
  data_format='NCDHW')(x)``: ``pad_list`` an int, 3 (each axis both sides) or 6 ints.
- ``AdaptiveAvgPool3D(output_size)(x)``: the mean over the adaptive bins of D, H, W.
- ``Conv3DTranspose(in_channel, out_channel, kernel_size, mode=1, pad_mode='valid', pad=0,
  stride=1, dilation=1, group=1, output_padding=0, data_format='NCDHW')(dout, weight)``:
  per axis ``(size - 1) * stride - head - tail + dilation * (k - 1) + output_padding + 1``
  ('pad'), ``size * stride`` ('same'); the depth dilation must be 1 (as MindSpore's).
- ``UpsampleNearest3D()(x, output_size=None, scales=None)`` and
  ``UpsampleTrilinear3D(align_corners=False)(...)``: resize D, H, W (:mod:`..interpolation`;
  by ``scales``, an output position ``o`` reads the input at ``o / scale``, as MindSpore's).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .. import functional as ops
from ..conv3d import conv3d, conv3d_transpose, crop
from ..conv_geometry import conv_pads, same_pads, transpose_crop
from ..interpolation import resize_axes
from ..pool_windows import Windows, max_of, sum_of
from ..resize_backprops import axis_weights, by_axes


def _three(who: str, name: str, value: Any, five: bool = True) -> tuple[int, int, int]:
    items = (value,) * 3 if isinstance(value, numbers.Integral) else tuple(value)
    if five and len(items) == 5 and items[:2] == (1, 1):
        items = items[2:]
    if len(items) == 1:
        items = items * 3
    if len(items) != 3 or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1
                              for v in items):
        raise ValueError(f"{who}: {name} must be a positive int or 3 of them, got {value!r}")
    return tuple(int(v) for v in items)  # type: ignore[return-value]


def _six(who: str, name: str, value: Any) -> tuple[int, ...]:
    items = (value,) * 6 if isinstance(value, numbers.Integral) else tuple(value)
    if len(items) == 3:
        items = (items[0], items[0], items[1], items[1], items[2], items[2])
    if len(items) != 6 or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0
                              for v in items):
        raise ValueError(f"{who}: {name} must be an int >= 0 or 6 of them, got {value!r}")
    return tuple(int(v) for v in items)


def _mode(who: str, pad_mode: Any, pads: tuple[int, ...]) -> str:
    mode = str(pad_mode).lower()
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"{who}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if mode != "pad" and any(pads):
        raise ValueError(f"{who}: a non-zero padding {pads} needs pad_mode 'pad'")
    return mode


def _rank5(who: str, x: Any) -> None:
    if len(x.shape) != 5:
        raise ValueError(f"{who}: expected a 5-d NCDHW input, got shape {tuple(x.shape)}")


class Conv3D:
    """See the module docstring."""

    def __init__(self, out_channel: int, kernel_size: Any, mode: int = 1, pad_mode: str = "valid",
                 pad: Any = 0, stride: Any = 1, dilation: Any = 1, group: int = 1,
                 data_format: str = "NCDHW") -> None:
        who = "Conv3D"
        if mode != 1:
            raise ValueError(f"{who}: mode must be 1, got {mode!r}")
        if data_format != "NCDHW":
            raise ValueError(f"{who}: data_format must be 'NCDHW', got {data_format!r}")
        if isinstance(out_channel, bool) or not isinstance(out_channel, int) or out_channel < 1:
            raise ValueError(f"{who}: out_channel must be a positive int, got {out_channel!r}")
        if isinstance(group, bool) or not isinstance(group, int) or not 1 <= group <= out_channel \
                or out_channel % group:
            raise ValueError(f"{who}: group must divide out_channel ({out_channel}), got {group!r}")
        self.out_channel, self.group = out_channel, group
        self.kernel_size = _three(who, "kernel_size", kernel_size, five=False)
        # three ints (MindSpore's Conv3D refuses its five-int form)
        self.stride = _three(who, "stride", stride, five=False)
        self.dilation = _three(who, "dilation", dilation, five=False)
        self.pad = _six(who, "pad", pad)
        self.pad_mode = _mode(who, pad_mode, self.pad)

    def __call__(self, x: Any, weight: Any) -> Any:
        _rank5("Conv3D", x)
        if len(weight.shape) != 5 or weight.shape[0] != self.out_channel \
                or tuple(weight.shape[2:]) != self.kernel_size \
                or weight.shape[1] * self.group != x.shape[1]:
            raise ValueError(f"Conv3D: weight {tuple(weight.shape)} does not match out_channel "
                             f"{self.out_channel}, kernel_size {self.kernel_size}, group "
                             f"{self.group} and input {tuple(x.shape)}")
        pads = conv_pads(self.pad_mode, x.shape[2:], self.kernel_size, self.stride, self.dilation,
                         self.pad)
        return conv3d(x, weight, self.stride, self.dilation, pads, self.group)


class _Pool3D:
    def windows(self, x: Any) -> Windows:
        _rank5(type(self).__name__, x)
        if self.pad_mode == "same":
            pads = [same_pads(n, k, s, 1) for n, k, s in zip(x.shape[2:], self.kernel_size,
                                                             self.strides)]
        else:
            pads = [(self.pad[2 * i], self.pad[2 * i + 1]) for i in range(3)]
        return Windows(tuple(x.shape), self.kernel_size, self.strides, (1, 1, 1), pads,
                       self.ceil_mode)


class AvgPool3D(_Pool3D):
    """See the module docstring."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "valid",
                 pad: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int = 0, data_format: str = "NCDHW") -> None:
        who = "AvgPool3D"
        if data_format != "NCDHW":
            raise ValueError(f"{who}: data_format must be 'NCDHW', got {data_format!r}")
        self.kernel_size = _three(who, "kernel_size", kernel_size)
        self.strides = _three(who, "strides", strides)
        self.pad = _six(who, "pad", pad)
        self.pad_mode = _mode(who, pad_mode, self.pad)
        for name, value in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
            if not isinstance(value, bool):
                raise TypeError(f"{who}: {name} must be a bool, got {value!r}")
        if isinstance(divisor_override, bool) or not isinstance(divisor_override, int) \
                or divisor_override < 0:
            raise ValueError(f"{who}: divisor_override must be an int >= 0, got {divisor_override!r}")
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def __call__(self, x: Any) -> Any:
        from ...common.tensor import Tensor

        windows = self.windows(x)
        total = sum_of(windows.taps(x, 0.0))
        if self.divisor_override:
            return total / float(self.divisor_override)
        counts = windows.counts(self.count_include_pad)
        return total * Tensor((1.0 / counts).astype(x.dtype.np))


class MaxPool3D(_Pool3D):
    """See the module docstring."""

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 pad_list: Any = 0, ceil_mode: Any = None, data_format: str = "NCDHW") -> None:
        who = "MaxPool3D"
        if data_format != "NCDHW":
            raise ValueError(f"{who}: data_format must be 'NCDHW', got {data_format!r}")
        self.kernel_size = _three(who, "kernel_size", kernel_size)
        self.strides = _three(who, "strides", strides)
        self.pad = _six(who, "pad_list", pad_list)
        self.pad_mode = _mode(who, pad_mode, self.pad)
        if ceil_mode is not None and (not isinstance(ceil_mode, bool) or self.pad_mode != "pad"):
            raise ValueError(f"{who}: ceil_mode must be None unless pad_mode is 'pad' (then a "
                             f"bool), got {ceil_mode!r}")
        self.ceil_mode = bool(ceil_mode)

    def __call__(self, x: Any) -> Any:
        windows = self.windows(x)
        return max_of(windows.taps(x, -math.inf))


class AdaptiveAvgPool3D:
    """See the module docstring."""

    def __init__(self, output_size: Any) -> None:
        sizes = (output_size,) * 3 if isinstance(output_size, numbers.Integral) or output_size is None \
            else tuple(output_size)
        if len(sizes) != 3 or any(s is not None and (isinstance(s, bool) or not isinstance(s, int)
                                                     or s < 1) for s in sizes):
            raise ValueError(f"AdaptiveAvgPool3D: output_size must be a positive int or 3 of them "
                             f"(None keeps an axis), got {output_size!r}")
        self.output_size = sizes

    def __call__(self, x: Any) -> Any:
        if len(x.shape) not in (4, 5):
            raise ValueError(f"AdaptiveAvgPool3D: expected a 4-d or 5-d input, got {tuple(x.shape)}")
        for axis, out in zip((-3, -2, -1), self.output_size):
            length = x.shape[axis]
            if out is None or out == length:
                continue
            parts = []
            for i in range(out):
                start, stop = (i * length) // out, -((-(i + 1) * length) // out)
                index = (Ellipsis, slice(start, stop)) + (slice(None),) * (-1 - axis)
                parts.append(ops.mean(x[index], axis, True))
            x = parts[0] if len(parts) == 1 else ops.concat(parts, axis)
        return x


class Conv3DTranspose:
    """See the module docstring."""

    def __init__(self, in_channel: int, out_channel: int, kernel_size: Any, mode: int = 1,
                 pad_mode: str = "valid", pad: Any = 0, stride: Any = 1, dilation: Any = 1,
                 group: int = 1, output_padding: Any = 0, data_format: str = "NCDHW") -> None:
        who = "Conv3DTranspose"
        if mode != 1 or data_format != "NCDHW":
            raise ValueError(f"{who}: mode must be 1 and data_format 'NCDHW', got {mode!r}, "
                             f"{data_format!r}")
        for name, value in (("in_channel", in_channel), ("out_channel", out_channel), ("group", group)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")
        self.in_channel, self.out_channel, self.group = in_channel, out_channel, group
        self.kernel_size = _three(who, "kernel_size", kernel_size, five=False)
        self.stride = _three(who, "stride", stride)
        self.dilation = _three(who, "dilation", dilation)
        if self.dilation[0] != 1:
            raise ValueError(f"{who}: the depth of dilation must be 1, got {dilation!r}")
        self.pad = _six(who, "pad", pad)
        self.pad_mode = _mode(who, pad_mode, self.pad)
        items = (output_padding,) * 3 if isinstance(output_padding, int) else tuple(output_padding)
        if len(items) == 5:
            items = items[2:]
        if len(items) != 3 or any(not isinstance(v, int) or v < 0 for v in items):
            raise ValueError(f"{who}: output_padding must be an int >= 0 or 3 of them, got "
                             f"{output_padding!r}")
        self.output_padding = tuple(items)

    def __call__(self, dout: Any, weight: Any) -> Any:
        _rank5("Conv3DTranspose", dout)
        if tuple(weight.shape) != (self.in_channel, self.out_channel // self.group, *self.kernel_size):
            raise ValueError(f"Conv3DTranspose: weight {tuple(weight.shape)} must be (in_channel, "
                             f"out_channel / group, *kernel_size)")
        out = conv3d_transpose(dout, weight, self.stride, self.dilation, self.group)
        spans = []
        for i, size in enumerate(dout.shape[2:]):
            start, length = transpose_crop(self.pad_mode, size, self.kernel_size[i], self.stride[i],
                                           self.dilation[i], self.pad[2 * i], self.pad[2 * i + 1])
            spans.append((start, length + self.output_padding[i]))
        return crop(out, 2, spans)


class _Upsample3D:
    mode = "nearest"
    align_corners = False

    def __call__(self, x: Any, output_size: Any = None, scales: Any = None) -> Any:
        who = type(self).__name__
        _rank5(who, x)
        if (output_size is None) == (scales is None):
            raise ValueError(f"{who}: exactly one of output_size and scales must be given")
        if output_size is not None:
            sizes = tuple(int(v) for v in output_size)
        else:
            sizes = tuple(int(math.floor(n * float(f))) for n, f in zip(x.shape[2:], scales))
        if len(sizes) != 3 or any(v < 1 for v in sizes):
            raise ValueError(f"{who}: the output size must be 3 positive ints, got {sizes}")
        if scales is None:
            return resize_axes(x, sizes, self.mode, self.align_corners)
        # given scales, an output position reads the input at ``o / scale`` (not ``o in / out``)
        mode = "linear" if self.mode == "trilinear" else self.mode
        return by_axes(x, [axis_weights(mode, n, o, 1.0 / float(f), self.align_corners)
                           for n, o, f in zip(x.shape[2:], sizes, scales)])


class UpsampleNearest3D(_Upsample3D):
    """See the module docstring."""

    mode = "nearest"

    def __init__(self) -> None:
        self.align_corners = False


class UpsampleTrilinear3D(_Upsample3D):
    """See the module docstring."""

    mode = "trilinear"

    def __init__(self, align_corners: bool = False) -> None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"UpsampleTrilinear3D: align_corners must be a bool, got {align_corners!r}")
        self.align_corners = align_corners


__all__ = ["AdaptiveAvgPool3D", "AvgPool3D", "Conv3D", "Conv3DTranspose", "MaxPool3D",
           "UpsampleNearest3D", "UpsampleTrilinear3D"]
