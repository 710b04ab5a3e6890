"""Tensors of a given shape and value: ``ops.zeros``, ``ops.ones``, ``ops.fill`` ...

They are constants (a traced function bakes them into its graph); ``zeros_like`` and
``ones_like`` of a tensor go through the ZerosLike/OnesLike primitives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import NoAttributes
from ._utils import argument_error
from .elementwise import cast
from .shape_ops import ones_like as _ones_like
from .shape_ops import zeros_like as _zeros_like


def _shape(op: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, int | np.integer):
        shape = (shape,)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise argument_error(op, TypeError(f"shape must be an int or a tuple of ints, got "
                                           f"{shape!r}")) from None
    if any(d < 0 for d in shape):
        raise argument_error(op, ValueError(f"shape {shape} has a negative dimension"))
    return shape


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Any:
    """``ops.full(size, fill_value, dtype=None)``: dtype from the value when not given."""
    dtype = mstype.default_for_python(fill_value) if dtype is None else mstype.to_dtype(dtype)
    return Tensor(np.full(_shape("full", size), fill_value, dtype=dtype.np))


def zeros(size: Any, dtype: Any = None) -> Any:
    """``ops.zeros(size, dtype=None)``: float32 by default."""
    return full(size, 0, dtype=mstype.float32 if dtype is None else dtype)


def ones(shape: Any, dtype: Any = None) -> Any:
    """``ops.ones(shape, dtype=None)``: float32 by default."""
    return full(shape, 1, dtype=mstype.float32 if dtype is None else dtype)


def fill(type: Any, shape: Any, value: Any) -> Any:  # noqa: A002  (MindSpore's name)
    """``ops.fill(type, shape, value)``."""
    return full(shape, value, dtype=type)


def eps(x: Any) -> Any:
    """A tensor like ``x`` filled with its float dtype's machine epsilon."""
    kind = np.dtype(mstype.to_np(x.dtype))
    if kind.kind != "f":
        raise argument_error("eps", TypeError(f"x must be a float tensor, got {x.dtype}"))
    return full(tuple(x.shape), float(np.finfo(kind).eps), dtype=x.dtype)


def zeros_like(input: Any, *, dtype: Any = None) -> Any:  # noqa: A002
    out = _zeros_like(input)
    return out if dtype is None else cast(out, dtype)


def ones_like(input: Any, *, dtype: Any = None) -> Any:  # noqa: A002
    out = _ones_like(input)
    return out if dtype is None else cast(out, dtype)


class Zeros(NoAttributes):
    """``ops.Zeros()(shape, type)``."""

    def __call__(self, shape: Any, type: Any = None) -> Any:  # noqa: A002
        return zeros(shape, type)


class Ones(NoAttributes):
    """``ops.Ones()(shape, type)``."""

    def __call__(self, shape: Any, type: Any = None) -> Any:  # noqa: A002
        return ones(shape, type)


class Fill(NoAttributes):
    """``ops.Fill()(type, shape, value)``."""

    def __call__(self, type: Any, shape: Any, value: Any) -> Any:  # noqa: A002
        return fill(type, shape, value)
