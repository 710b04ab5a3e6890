"""Cells over functions of :mod:`framework.ops` (MindSpore's names, arguments
and defaults): 1-d and adaptive pooling, padding cells, channel dropout, ``Unflatten``,
pixel and channel shuffles, ``Softmax2d``, ``GroupNorm`` and ``Linear``.

Contracts beyond the functions':

- ``AvgPool1d``/``MaxPool1d(kernel_size, stride, pad_mode='valid', padding=0, ...)``:
  ``pad_mode`` 'valid' (no padding), 'same' (output ``ceil(L / stride)``, the padding
  split with the extra entry after; the average counts real entries only) or 'pad'
  (``padding`` each side); ``ceil_mode``, ``dilation`` > 1 and ``return_indices`` are
  refused;
- padding cells take ``padding`` an int (every side) or MindSpore's tuple, last axis first
  (``(left, right, top, bottom, front, back)``); ``ReflectionPad*`` mirror without the edge;
- ``Dropout1d/2d/3d(p=0.5)`` drop whole channels in training, nothing in evaluation;
- ``GroupNorm(num_groups, num_channels, eps, affine)``: parameters ``gamma``/``beta``;
- ``Linear(in_features, out_features, bias=True)``: ``Dense`` with PyTorch's names.
"""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import initializer
from ..ops import adaptive_pool, nn_functions, reduce
from ..ops.shape_ops import pad as pad_pairs
from ..parameter import Parameter
from .cell import Cell, StatelessCell
from .layers import Dense
from .padding import mirror_pad


def _refuse(who: str, **flags: Any) -> None:
    for name, bad in flags.items():
        if bad:
            raise ValueError(f"{who}: {name} is not supported")


def _same_padding(length: int, kernel: int, stride: int) -> tuple[int, int]:
    out = -(-length // stride)
    total = max((out - 1) * stride + kernel - length, 0)
    return total // 2, total - total // 2


class _Pool1d(Cell):
    def __init__(self, who: str, kernel_size: int, stride: int, pad_mode: str, padding: int) -> None:
        super().__init__()
        pad_mode = pad_mode.lower()
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"{who}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        if pad_mode != "pad" and padding:
            raise ValueError(f"{who}: padding needs pad_mode='pad', got pad_mode={pad_mode!r}")
        self.kernel_size, self.stride, self.pad_mode, self.padding = kernel_size, stride, pad_mode, padding

    def _pads(self, x: Any) -> tuple[int, int]:
        if self.pad_mode == "same":
            return _same_padding(x.shape[-1], self.kernel_size, self.stride)
        return self.padding, self.padding


class AvgPool1d(_Pool1d):
    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid",
                 padding: int = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__("AvgPool1d", kernel_size, stride, pad_mode, padding)
        _refuse("AvgPool1d", ceil_mode=ceil_mode)
        self.count_include_pad = count_include_pad

    def construct(self, x):
        left, right = self._pads(x)
        if left == right:
            return adaptive_pool.avg_pool1d(x, self.kernel_size, self.stride, left,
                                         count_include_pad=self.count_include_pad and self.pad_mode == "pad")
        # 'same' with an odd total: pad the extra entry after, count real entries only
        ones = ops.ones(tuple(x.shape), x.dtype)
        pairs = ((0, 0),) * (len(x.shape) - 1) + ((left, right),)
        total = adaptive_pool.avg_pool1d(pad_pairs(x, pairs), self.kernel_size, self.stride)
        counts = adaptive_pool.avg_pool1d(pad_pairs(ones, pairs), self.kernel_size, self.stride)
        return total / counts


class MaxPool1d(_Pool1d):
    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid",
                 padding: int = 0, dilation: int = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__("MaxPool1d", kernel_size, stride, pad_mode, padding)
        _refuse("MaxPool1d", ceil_mode=ceil_mode, return_indices=return_indices,
                dilation=dilation != 1)

    def construct(self, x):
        left, right = self._pads(x)
        if left == right:
            return adaptive_pool.max_pool1d(x, self.kernel_size, self.stride, left)
        low = ops.stop_gradient(ops.amin(x)) - 1.0
        pairs = ((0, 0),) * (len(x.shape) - 1) + ((left, right),)
        return adaptive_pool.max_pool1d(pad_pairs(x - low, pairs) + low, self.kernel_size, self.stride)


class _Adaptive(Cell):
    fn = None

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return type(self).fn(x, self.output_size)


class AdaptiveAvgPool1d(_Adaptive):
    fn = staticmethod(adaptive_pool.adaptive_avg_pool1d)


class AdaptiveMaxPool1d(_Adaptive):
    fn = staticmethod(adaptive_pool.adaptive_max_pool1d)


class AdaptiveAvgPool2d(_Adaptive):
    fn = staticmethod(adaptive_pool.adaptive_avg_pool2d)


class AdaptiveMaxPool2d(_Adaptive):
    fn = staticmethod(adaptive_pool.adaptive_max_pool2d)

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        _refuse("AdaptiveMaxPool2d", return_indices=return_indices)


def _pad_pairs(who: str, padding: Any, axes: int) -> tuple[tuple[int, int], ...]:
    """MindSpore's padding (an int, or pairs for the last axes, last axis first) as
    ``(before, after)`` for the last ``axes`` axes, first axis first."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        flat = (padding,) * (2 * axes)
    elif isinstance(padding, tuple | list) and len(padding) == 2 * axes:
        flat = tuple(int(p) for p in padding)
    else:
        raise ValueError(f"{who}: padding must be an int or a tuple of {2 * axes} ints, got {padding!r}")
    if any(p < 0 for p in flat):
        raise ValueError(f"{who}: padding must be >= 0, got {padding!r}")
    return tuple((flat[2 * i], flat[2 * i + 1]) for i in reversed(range(axes)))


class _PadNd(Cell):
    axes = 1
    mirror = False

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.pairs = _pad_pairs(type(self).__name__, padding, self.axes)
        self.value = value

    def construct(self, x):
        pairs = ((0, 0),) * (len(x.shape) - self.axes) + self.pairs
        if self.mirror:
            return mirror_pad(x, pairs, "REFLECT")
        out = pad_pairs(x, pairs)
        if self.value == 0:
            return out
        # the border set apart by a padded mask, so the input's values stay exact
        return out + (1 - pad_pairs(ops.ones_like(x), pairs)) * self.value


class ConstantPad1d(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    axes = 2


class ConstantPad3d(ConstantPad1d):
    axes = 3


class _PaddingOnly(_PadNd):
    """The pads whose constructor is ``(padding)`` only (zeros, or the reflection)."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ZeroPad2d(_PaddingOnly):
    axes = 2


class ReflectionPad1d(_PaddingOnly):
    mirror = True


class ReflectionPad2d(ReflectionPad1d):
    axes = 2


class ReflectionPad3d(ReflectionPad1d):
    axes = 3


class _DropoutNd(Cell):
    fn = None

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p}")
        self.p = p

    def construct(self, x):
        return type(self).fn(x, self.p, self.training)


class Dropout1d(_DropoutNd):
    fn = staticmethod(nn_functions.dropout1d)


class Dropout2d(_DropoutNd):
    fn = staticmethod(nn_functions.dropout2d)


class Dropout3d(_DropoutNd):
    fn = staticmethod(nn_functions.dropout3d)


class Unflatten(Cell):
    def __init__(self, axis: int, unflattened_size: Any) -> None:
        super().__init__()
        self.axis, self.sizes = axis, tuple(unflattened_size)

    def construct(self, x):
        shape = tuple(x.shape)
        axis = self.axis % len(shape)
        return ops.reshape(x, shape[:axis] + self.sizes + shape[axis + 1:])


class PixelShuffle(Cell):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, x):
        return nn_functions.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, x):
        return nn_functions.pixel_unshuffle(x, self.downscale_factor)


class ChannelShuffle(Cell):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def construct(self, x):
        return nn_functions.channel_shuffle(x, self.groups)


class Softmax2d(StatelessCell):
    """Softmax over the channels of ``(C, H, W)`` or ``(N, C, H, W)``."""

    def construct(self, x):
        return ops.softmax(x, -3)


class GroupNorm(Cell):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", dtype: Any = mstype.float32) -> None:
        super().__init__()
        from .. import dtype as mstype

        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by "
                             f"num_groups {num_groups}")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        dt = dtype or mstype.float32
        self.gamma = Parameter(initializer(gamma_init, (num_channels,), dt), "gamma",
                               requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_channels,), dt), "beta",
                              requires_grad=affine)

    def construct(self, x):
        return nn_functions.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)


class Linear(Dense):
    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 weight_init: Any = None, bias_init: Any = None, dtype: Any = None) -> None:
        super().__init__(in_features, out_features, weight_init, bias_init, bias, dtype=dtype)


class ClipByNorm(Cell):
    """``nn.ClipByNorm(axis=None)(x, clip_norm)``: ``x * clip_norm / max(norm, clip_norm)``
    with ``norm`` the L2 norm of ``x`` over ``axis`` (all axes when None), so a norm at or
    under ``clip_norm`` leaves ``x`` as it is; float32, ``x``'s shape. A zero norm gives
    zeros and finite gradients."""

    def __init__(self, axis: Any = None) -> None:
        super().__init__()
        self.axis = () if axis is None else axis

    def construct(self, x, clip_norm):
        x32 = ops.cast(x, mstype.float32)
        limit = ops.cast(clip_norm, mstype.float32)
        squares = reduce.reduce_sum(x32 * x32, self.axis, keep_dims=True)
        positive = squares > 0
        safe = ops.select(positive, squares, ops.ones_like(squares))
        norm = ops.select(positive, ops.sqrt(safe), squares)
        return ops.reshape(x32 * limit / ops.maximum(norm, limit), x.shape)


__all__ = ["AvgPool1d", "MaxPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "Dropout1d", "Dropout2d",
           "Dropout3d", "Unflatten", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
           "Softmax2d", "GroupNorm", "Linear", "ClipByNorm"]
