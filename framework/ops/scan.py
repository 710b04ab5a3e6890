"""Scans: ``CumSum(exclusive=False, reverse=False)(x, axis)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from . import elementwise as _elementwise
from ._utils import float32_accumulation, normalize_axis


class CumSum(Primitive):
    """Cumulative sum along ``axis``: ``y_i = x_1 + ... + x_i``.

    ``exclusive`` leaves the element itself out (``y_1 = 0``), ``reverse`` sums from the
    end. As in MindSpore the axis is a call argument (a Python int, a constant):
    ``ops.CumSum()(x, 1)``; it becomes part of the primitive's attributes.
    """

    def __init__(self, exclusive: bool = False, reverse: bool = False, axis: int | None = None) -> None:
        super().__init__(exclusive=bool(exclusive), reverse=bool(reverse),
                         axis=None if axis is None else int(axis))

    def __call__(self, x: Any, axis: Any = None) -> Any:
        if axis is None:
            if self.axis is None:
                raise TypeError("CumSum: axis is required, as in CumSum()(x, axis)")
            return Primitive.__call__(self, x)
        if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
            raise TypeError(f"CumSum: axis must be an int, got {type(axis).__name__}")
        return Primitive.__call__(CumSum(self.exclusive, self.reverse, int(axis)), x)

    def infer(self, x: Any) -> Spec:
        if self.axis is None:
            raise TypeError("CumSum: axis is required")
        if np.dtype(x.dtype) == np.bool_:
            raise TypeError("CumSum: needs a numeric input, got bool")
        normalize_axis(self.axis, len(x.shape))
        return Spec(tuple(x.shape), np.dtype(x.dtype))

    @float32_accumulation
    def kernel(self, x):
        axis = normalize_axis(self.axis, x.ndim)
        data = np.flip(x, axis) if self.reverse else x
        out = np.cumsum(data, axis=axis, dtype=x.dtype)
        if self.exclusive:  # shift by one along the axis, a zero first
            out = np.concatenate([np.zeros_like(np.take(out, [0], axis)),
                                  np.take(out, np.arange(out.shape[axis] - 1), axis)], axis)
        return np.flip(out, axis) if self.reverse else out

    def bprop(self, x, *, out, dout, needs):
        # the transpose of a prefix sum is the suffix sum (same exclusiveness)
        return (CumSum(self.exclusive, not self.reverse, self.axis)(dout),)


def cumsum(x, axis, dtype=None):
    """MindSpore's ``ops.cumsum(x, axis, dtype=None)``: inclusive, forward."""
    if dtype is not None:
        x = _elementwise.cast(x, dtype)
    return CumSum(False, False, axis)(x)
