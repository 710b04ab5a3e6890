"""``mindspore.dataset.transforms``' operations on one array of any shape: ``Concatenate``,
``Duplicate``, ``Mask`` (with :class:`Relational`), ``PadEnd``, ``Slice`` and ``Unique``.

Results are NumPy arrays as MindSpore's eager calls give them (Python ints as int64);
``Duplicate`` and ``Unique`` return several columns (a tuple), so in ``map`` they need
``output_columns`` naming as many.
"""

from __future__ import annotations

import operator
from enum import Enum
from typing import Any

import numpy as np

from ...dtype import to_np
from ..ops_base import SampleOp, eager_array


def _array(value: Any) -> np.ndarray:
    return np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)


class Relational(Enum):
    """The comparisons of :class:`Mask`."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {
    Relational.EQ: operator.eq,
    Relational.NE: operator.ne,
    Relational.GT: operator.gt,
    Relational.GE: operator.ge,
    Relational.LT: operator.lt,
    Relational.LE: operator.le,
}


class Concatenate:
    """``Concatenate(axis=0, prepend=None, append=None)``: ``prepend``, the inputs (one or
    more columns) and ``append`` joined along ``axis`` (MindSpore joins 1-D arrays only)."""

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Concatenate: axis must be an int, got {axis!r}")
        self.axis = axis
        self.prepend = None if prepend is None else _array(prepend)
        self.append = None if append is None else _array(append)
        for name, part in (("prepend", self.prepend), ("append", self.append)):
            if part is not None and part.ndim != 1:
                raise ValueError(f"Concatenate: {name} must be a 1-D array, got shape {part.shape}")

    def __call__(self, *values: Any) -> np.ndarray:
        inputs = [_array(v) for v in values]
        for x in inputs:
            if x.ndim != 1:
                raise RuntimeError(f"Concatenate: only 1-D arrays can be concatenated, got shape {x.shape}")
        parts = [p for p in (self.prepend, *inputs, self.append) if p is not None]
        strings = [p.dtype.kind in "US" for p in parts]
        if any(strings) and not all(strings):
            raise RuntimeError("Concatenate: cannot join strings with numbers")
        if not all(strings) and len({p.dtype for p in parts}) > 1:
            raise RuntimeError(f"Concatenate: the dtypes differ: {[str(p.dtype) for p in parts]}")
        return eager_array(np.concatenate(parts, axis=self.axis))

    def __repr__(self) -> str:
        return f"Concatenate(axis={self.axis})"


class Duplicate:
    """``Duplicate()``: the input twice (two columns: ``output_columns=["x", "y"]`` in ``map``)."""

    def __call__(self, value: Any) -> tuple[np.ndarray, np.ndarray]:
        x = eager_array(_array(value))
        return x, x.copy()

    def __repr__(self) -> str:
        return "Duplicate()"


class Mask(SampleOp):
    """``Mask(operator, constant, dtype=mstype.bool_)``: ``input <operator> constant``
    element-wise, as ``dtype``."""

    def __init__(self, operator: Relational, constant: Any, dtype: Any = None) -> None:
        if not isinstance(operator, Relational):
            raise TypeError(f"Mask: operator must be a transforms.Relational, got {operator!r}")
        if not isinstance(constant, str | bytes | int | float | bool | np.generic):
            raise TypeError(f"Mask: constant must be a number or a string, got {type(constant).__name__}")
        self.operator, self.constant = operator, constant
        self.dtype = np.dtype(np.bool_) if dtype is None else to_np(dtype)

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if (x.dtype.kind in "US") != isinstance(self.constant, str | bytes):
            raise RuntimeError(f"Mask: cannot compare {x.dtype} data with {self.constant!r}")
        constant = self.constant
        if x.dtype.kind not in "US" and not isinstance(constant, bool):
            constant = np.asarray(constant).astype(x.dtype) if x.dtype.kind in "iub" else constant
        return _COMPARE[self.operator](x, constant).astype(self.dtype)


class PadEnd(SampleOp):
    """``PadEnd(pad_shape, pad_value=None)``: pad (or cut) each axis at its end to
    ``pad_shape`` with ``pad_value`` (0, or "" for strings)."""

    def __init__(self, pad_shape: Any, pad_value: Any = None) -> None:
        if not isinstance(pad_shape, list | tuple) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in pad_shape
        ):
            raise TypeError(f"PadEnd: pad_shape must be a list of positive ints, got {pad_shape!r}")
        if pad_value is not None and not isinstance(pad_value, str | bytes | int | float | np.generic):
            raise TypeError(f"PadEnd: pad_value must be a number or a string, got {pad_value!r}")
        self.pad_shape, self.pad_value = tuple(pad_shape), pad_value

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(
                f"PadEnd: pad_shape {list(self.pad_shape)} has {len(self.pad_shape)} axes, "
                f"the input {x.ndim} (shape {x.shape})"
            )
        x = x[tuple(slice(0, s) for s in self.pad_shape)]
        fill = self.pad_value if self.pad_value is not None else ("" if x.dtype.kind in "US" else 0)
        if x.dtype.kind == "U":
            out_dtype = np.dtype(f"<U{max(x.dtype.itemsize // 4, len(str(fill)), 1)}")
        else:
            out_dtype = x.dtype
        out = np.full(self.pad_shape, fill, dtype=out_dtype)
        out[tuple(slice(0, s) for s in x.shape)] = x
        return out


def _slice_option(option: Any) -> Any:
    if option is None or option is Ellipsis or option is True:
        return slice(None)
    if isinstance(option, slice):
        return option
    if isinstance(option, int) and not isinstance(option, bool):
        return [option]
    if isinstance(option, list | tuple) and all(
        isinstance(i, int) and not isinstance(i, bool) for i in option
    ):
        return list(option)
    raise TypeError(
        f"Slice: each slice must be an int, a list of ints, a slice, None or Ellipsis, got {option!r}"
    )


class Slice(SampleOp):
    """``Slice(*slices)``: per axis an int or a list of indices (kept as an axis), a Python
    ``slice``, ``None`` or ``Ellipsis`` (the whole axis)."""

    def __init__(self, *slices: Any) -> None:
        self.slices = [_slice_option(s) for s in slices]

    def sample(self, x: np.ndarray, rng: Any = None) -> np.ndarray:
        if len(self.slices) > x.ndim:
            raise RuntimeError(f"Slice: {len(self.slices)} slices for an input of {x.ndim} axes")
        out = x
        for axis, option in enumerate(self.slices):
            if isinstance(option, list):
                n = out.shape[axis]
                if any(not -n <= i < n for i in option):
                    raise RuntimeError(f"Slice: index out of range for axis {axis} of size {n}: {option}")
                out = np.take(out, option, axis=axis)
            else:
                out = out[(slice(None),) * axis + (option,)]
        return np.ascontiguousarray(out)


class Unique:
    """``Unique()``: the distinct values in order of first appearance, each element's index
    among them (int32) and each value's count (int32), over the flattened input."""

    def __call__(self, value: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = _array(value)
        if x.dtype.kind in "US":
            raise RuntimeError("Unique: string arrays are not supported")
        flat = x.reshape(-1)
        values, first, inverse, counts = np.unique(
            flat, return_index=True, return_inverse=True, return_counts=True
        )
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (
            eager_array(values[order]),
            rank[inverse.reshape(-1)].astype(np.int32),
            counts[order].astype(np.int32),
        )

    def __repr__(self) -> str:
        return "Unique()"
