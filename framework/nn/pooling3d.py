"""3-d pooling (``nn.MaxPool3d``, ``nn.AvgPool3d``, ``nn.AdaptiveAvgPool3d``,
``nn.AdaptiveMaxPool3d``) and power-average pooling (``nn.LPPool1d``, ``nn.LPPool2d``), as
reductions of the windows' strided slices (:mod:`framework.nn.pool_windows`)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from .. import ops
from ..ops.conv_geometry import ints, same_pads
from ..ops.pool_windows import Windows, argmax_index, max_of, sum_of
from .cell import Cell
from .checks import tensor_shape


def _triple(who: str, name: str, value: Any, minimum: int = 1) -> tuple[int, int, int]:
    if isinstance(value, tuple | list) and len(value) == 1:
        value = value[0]
    return ints(who, name, value, 3, minimum)  # type: ignore[return-value]


def _rank(who: str, x: Any, ranks: tuple[int, ...]) -> tuple[int, ...]:
    shape = tensor_shape(who, x)
    if len(shape) not in ranks:
        raise ValueError(f"{who}: expected a {' or '.join(f'{r}-d' for r in ranks)} input, "
                         f"got shape {shape}")
    return shape


class _Pool3d(Cell):
    def __init__(self, kernel_size: Any, stride: Any, pad_mode: str, padding: Any,
                 ceil_mode: bool, dilation: Any = 1) -> None:
        super().__init__()
        who = type(self).__name__
        self.kernel_size = _triple(who, "kernel_size", kernel_size)
        self.stride = self.kernel_size if stride is None else _triple(who, "stride", stride)
        self.dilation = _triple(who, "dilation", dilation)
        self.padding = _triple(who, "padding", padding, 0)
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"{who}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
        if pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{who}: padding {padding!r} needs pad_mode='pad'")
        self.pad_mode, self.ceil_mode = pad_mode, bool(ceil_mode)

    def windows(self, shape: tuple[int, ...]) -> Windows:
        sizes = shape[-3:]
        if self.pad_mode == "same":
            pads = [same_pads(n, k, s, d) for n, k, s, d in
                    zip(sizes, self.kernel_size, self.stride, self.dilation)]
        else:
            pads = [(p, p) for p in self.padding]
        return Windows(shape, self.kernel_size, self.stride, self.dilation, pads, self.ceil_mode)


class MaxPool3d(_Pool3d):
    """Max over 3-d windows of (N, C, D, H, W) or (C, D, H, W); ``return_indices``: also the
    flat D*H*W index of each maximum (int64)."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, dilation: Any = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, dilation)
        self.return_indices = bool(return_indices)

    def construct(self, x):
        windows = self.windows(_rank(type(self).__name__, x, (4, 5)))
        taps = windows.taps(x, -math.inf)
        best = max_of(taps)
        if self.return_indices:
            return best, argmax_index(windows, taps, best)
        return best


class AvgPool3d(_Pool3d):
    """Mean over 3-d windows; ``count_include_pad=False`` divides by the input positions a
    window covers, ``divisor_override`` by itself."""

    def __init__(self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid",
                 padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        if divisor_override is not None and (not isinstance(divisor_override, int)
                                             or divisor_override < 1):
            raise ValueError(f"AvgPool3d: divisor_override must be a positive int or None, got "
                             f"{divisor_override!r}")
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def construct(self, x):
        windows = self.windows(_rank(type(self).__name__, x, (4, 5)))
        total = sum_of(windows.taps(x, 0.0))
        if self.divisor_override:
            return total / float(self.divisor_override)
        counts = windows.counts(self.count_include_pad)
        from ..common.tensor import Tensor

        return total * Tensor((1.0 / counts).astype(x.dtype.np))


def _bins(length: int, out: int) -> list[tuple[int, int]]:
    return [((i * length) // out, -((-(i + 1) * length) // out)) for i in range(out)]


def _adaptive(x: Any, sizes: tuple, reduce: Any) -> Any:
    """Adaptive pooling of the last three axes, one axis at a time (a bin of the 3-d grid is
    the product of its axes' bins, so max and mean both separate)."""
    for axis, out in zip((-3, -2, -1), sizes):
        length = x.shape[axis]
        if out is None or out == length:
            continue
        parts = []
        for start, stop in _bins(length, out):
            index = (Ellipsis, slice(start, stop)) + (slice(None),) * (-1 - axis)
            parts.append(reduce(x[index], axis, True))
        x = parts[0] if len(parts) == 1 else ops.concat(parts, axis)
    return x


def _output_size(who: str, value: Any, shape: tuple[int, ...]) -> tuple:
    sizes = (value,) * 3 if isinstance(value, numbers.Integral) or value is None else tuple(value)
    if len(sizes) != 3 or any(s is not None and (isinstance(s, bool) or not isinstance(s, int) or s < 1)
                              for s in sizes):
        raise ValueError(f"{who}: output_size must be a positive int or 3 of them (None keeps an "
                         f"axis), got {value!r}")
    return tuple(shape[-3 + i] if s is None else s for i, s in enumerate(sizes))


class AdaptiveAvgPool3d(Cell):
    """Mean over the adaptive bins ``[floor(i L / out), ceil((i + 1) L / out))`` of D, H, W."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        who = type(self).__name__
        shape = _rank(who, x, (4, 5))
        return _adaptive(x, _output_size(who, self.output_size, shape), ops.mean)


class AdaptiveMaxPool3d(Cell):
    """Max over the adaptive bins of D, H, W (``return_indices``: not supported)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        if return_indices:
            raise ValueError("AdaptiveMaxPool3d: return_indices=True is not supported")
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, x):
        who = type(self).__name__
        shape = _rank(who, x, (4, 5))
        return _adaptive(x, _output_size(who, self.output_size, shape), ops.amax)


class _LPPool(Cell):
    rank = 1
    ranks: tuple[int, ...] = (2, 3)

    def __init__(self, norm_type: Any, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        who = type(self).__name__
        if isinstance(norm_type, bool) or not isinstance(norm_type, int | float) or norm_type == 0:
            raise ValueError(f"{who}: norm_type must be a non-zero number, got {norm_type!r}")
        self.norm_type = norm_type
        self.kernel_size = ints(who, "kernel_size", kernel_size, self.rank)
        self.stride = self.kernel_size if stride is None else ints(who, "stride", stride, self.rank)
        self.ceil_mode = bool(ceil_mode)

    def construct(self, x):
        who = type(self).__name__
        shape = _rank(who, x, self.ranks)
        windows = Windows(shape, self.kernel_size, self.stride, (1,) * self.rank,
                          [(0, 0)] * self.rank, self.ceil_mode)
        p = float(self.norm_type)
        total = sum_of(windows.taps(ops.pow(x, p), 0.0))
        if self.ceil_mode:  # MindSpore's is a mean times the kernel size: a partial last
            # window's mean divides by the positions it covers
            from ..common.tensor import Tensor

            scale = math.prod(self.kernel_size) / windows.counts(True)
            total = total * Tensor(scale.astype(x.dtype.np))
        # MindSpore's: the sum's sign times its magnitude, to the power 1/p
        return ops.pow(ops.sign(total) * ops.relu(ops.abs(total)), 1.0 / p)


class LPPool1d(_LPPool):
    """``(sum over the window of x^p)^(1/p)`` along the last axis of (N, C, L) or (C, L)."""

    rank = 1


class LPPool2d(_LPPool):
    """``(sum over the window of x^p)^(1/p)`` over the last two axes of (N, C, H, W)."""

    rank = 2
    ranks = (4,)
