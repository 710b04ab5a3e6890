"""MindSpore 2.x's 2-d pooling functions with explicit padding:
``max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
ceil_mode=False)`` and ``avg_pool2d(input_x, kernel_size=1, stride=1, padding=0,
ceil_mode=False, count_include_pad=True, divisor_override=0)`` over (N, C, H, W).

- ``kernel_size``, ``stride``, ``dilation``: an int or ``(h, w)``; ``max_pool2d``'s stride
  defaults to the kernel;
- ``padding``: an int or ``(h, w)`` on both sides; ``avg_pool2d`` also takes
  ``(top, bottom, left, right)``; padded positions never win a max;
- ``ceil_mode``: a last partial window counts when it starts inside the input or its
  leading padding;
- ``return_indices``: also each maximum's flat ``H * W`` index (int64, the first maximum);
- ``count_include_pad``: the mean divides by the window's positions inside the padded
  input, else by those inside the input; ``divisor_override`` (non-zero) divides by itself.

Without padding, dilation or ceil_mode the ``MaxPool``/``AvgPool`` primitives run (their
fast kernels and lowerings); otherwise the windows' strided slices
(:mod:`framework.ops.pool_windows`), a composition of primitives in both modes.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error
from .conv_geometry import ints
from .pool import AvgPool, MaxPool
from .pool_windows import Windows, argmax_index, max_of, sum_of


def _input(who: str, x: Any) -> tuple[int, ...]:
    shape = tuple(x.shape)
    if len(shape) != 4:
        raise argument_error(who, ValueError(f"needs an (N, C, H, W) input, got shape {shape}"))
    return shape


def _pads(who: str, padding: Any, four: bool) -> list[tuple[int, int]]:
    if isinstance(padding, numbers.Integral) or (isinstance(padding, tuple | list) and len(padding) == 2):
        ph, pw = ints(who, "padding", padding, 2, 0)
        return [(ph, ph), (pw, pw)]
    if four:
        top, bottom, left, right = ints(who, "padding", padding, 4, 0)
        return [(top, bottom), (left, right)]
    raise argument_error(who, ValueError(f"padding must be an int or (h, w), got {padding!r}"))


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    who = "max_pool2d"
    shape = _input(who, x)
    kernel = ints(who, "kernel_size", kernel_size, 2)
    strides = kernel if stride is None else ints(who, "stride", stride, 2)
    dilations = ints(who, "dilation", dilation, 2)
    pads = _pads(who, padding, four=False)
    if not any(a or b for a, b in pads) and dilations == (1, 1) and not ceil_mode \
            and not return_indices:
        return MaxPool(kernel, strides, "valid")(x)
    if any(2 * p > k for (p, _), k in zip(pads, kernel)):
        raise argument_error(who, ValueError(f"padding {padding!r} must be at most half the "
                                             f"kernel {kernel}"))
    windows = Windows(shape, kernel, strides, dilations, pads, bool(ceil_mode))
    taps = windows.taps(x, -math.inf)
    best = max_of(taps)
    return (best, argmax_index(windows, taps, best)) if return_indices else best


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    who = "avg_pool2d"
    shape = _input(who, input_x)
    kernel = ints(who, "kernel_size", kernel_size, 2)
    strides = ints(who, "stride", stride, 2)
    pads = _pads(who, padding, four=True)
    divisor = 0 if divisor_override is None else int(divisor_override)
    if divisor < 0:
        raise argument_error(who, ValueError(f"divisor_override must be >= 0, got {divisor_override!r}"))
    if not any(a or b for a, b in pads) and not ceil_mode and not divisor:
        return AvgPool(kernel, strides, "valid")(input_x)
    if any(b + a > k for (b, a), k in zip(pads, kernel)):
        raise argument_error(who, ValueError(f"padding {padding!r}: the pads of an axis must sum "
                                             f"to at most its kernel size {kernel}"))
    windows = Windows(shape, kernel, strides, (1, 1), pads, bool(ceil_mode))
    total = sum_of(windows.taps(input_x, 0.0))
    if divisor:
        return total / float(divisor)
    counts = windows.counts(bool(count_include_pad))
    return total * Tensor((1.0 / counts).astype(np.dtype(input_x.dtype.np)))
