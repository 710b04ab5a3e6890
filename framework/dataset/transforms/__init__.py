"""``mindspore.dataset.transforms``: ``TypeCast``, ``Compose``, ``OneHot``, ``Fill`` (vectorized,
see ``ops_base``; each is also called eagerly on one sample: ``trans.Fill(0)(np.array([1, 2]))``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dtype import to_np
from ..ops_base import Compose, DataOp


class TypeCast(DataOp):
    """``TypeCast(data_type)``: cast to ``ms.int32``, ``mstype.float32``, ``np.float32`` ..."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = to_np(data_type)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        return np.asarray(x).astype(self.dtype, copy=False)

    def __repr__(self) -> str:
        return f"TypeCast({self.dtype.name})"


class OneHot(DataOp):
    """``OneHot(num_classes, smoothing_rate=0.0)``: class index -> one-hot row (label smoothing:
    ``1 - rate + rate / num_classes`` on the class, ``rate / num_classes`` elsewhere)."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be an int >= 1, got {num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = np.asarray(x)
        if x.dtype.kind not in "iu":
            raise ValueError(f"OneHot: labels must be integers, got {x.dtype}")
        if x.size and (int(x.min()) < 0 or int(x.max()) >= self.num_classes):
            raise ValueError(f"OneHot: label {int(x.max())} out of range for {self.num_classes} classes")
        eye = np.eye(self.num_classes, dtype=x.dtype if not self.smoothing_rate else np.float32)
        out = eye[x]
        if self.smoothing_rate:
            rate = self.smoothing_rate
            out = out * (1.0 - rate) + rate / self.num_classes
            out = out.astype(np.float32)
        return out


class Fill(DataOp):
    """``Fill(fill_value)``: an array of the input's shape and dtype, every element ``fill_value``
    (cast to the input's dtype: ``Fill(2.5)`` on ints gives 2; strings stay strings)."""

    def __init__(self, fill_value: Any) -> None:
        if not isinstance(fill_value, int | float | str | bytes | bool | np.generic):
            raise TypeError(f"Fill: fill_value must be a number or a string, got {type(fill_value).__name__}")
        self.fill_value = fill_value

    def apply_batch(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        x = np.asarray(x)
        if x.dtype.kind in "US":
            return np.full(x.shape, str(self.fill_value) if x.dtype.kind == "U" else self.fill_value)
        if isinstance(self.fill_value, str | bytes):
            raise TypeError(f"Fill: cannot fill a {x.dtype} array with the string {self.fill_value!r}")
        return np.full(x.shape, np.asarray(self.fill_value).astype(x.dtype), dtype=x.dtype)

    def __repr__(self) -> str:
        return f"Fill({self.fill_value!r})"


__all__ = ["Compose", "Fill", "OneHot", "TypeCast"]

from framework import absent_names as _absent_names  # noqa: E402

# an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = _absent_names.module_getattr("dataset.transforms", __name__)
