"""Tensors without values, MindSpore's ``Tensor(shape=[None, 3], dtype=ms.float32)``: input
signatures for ``Cell.set_inputs`` and ``jit(input_signature=...)``.

Contract:

- ``Tensor(shape=..., dtype=...)`` with no ``input_data`` and no ``init``: a dimension that
  is None or negative makes a *placeholder* (None is stored as -1, MindSpore's dynamic
  dimension; ``[-2]`` is a tensor of any rank). It has ``shape``, ``dtype``, ``ndim`` and
  ``size`` (0), ``repr`` as MindSpore prints it (``Tensor(shape=[-1, 3], dtype=Float32,
  value=\\n)``); anything that needs values (``asnumpy``, ``str``, an op) raises ValueError.
  A shape with every dimension known gives a Tensor of zeros (as MindSpore's does). The
  dtype is required.
- ``Cell.set_inputs`` checks graph-mode calls against such a signature
  (:mod:`framework.nn.inputs`).
- A :class:`framework.symbol.Symbol` as a dimension is a dynamic one that the placeholder
  keeps (``symbols``: axis -> Symbol); ``Cell.set_inputs`` checks calls against it.
- Dynamic dimensions compile symbolically where the function allows it: one compiled
  function for every size (:mod:`framework.dynamic_shapes`, :mod:`framework.ir.symbolic`);
  else graph mode compiles per concrete shape and the compile report says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtype as mstype
from .symbol import Symbol

DYNAMIC_DIM = -1
DYNAMIC_RANK = -2


class Placeholder:
    """A placeholder Tensor's data: a shape with -1 (or [-2]) and a dtype, no values."""

    __slots__ = ("shape", "dtype", "symbols")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype,
                 symbols: dict[int, Symbol] | None = None) -> None:
        self.shape = shape
        self.dtype = dtype
        self.symbols = dict(symbols or {})

    def concrete_error(self, what: str) -> None:
        raise ValueError(f"{what}: {self!r} is a placeholder (an input signature for set_inputs or "
                         "jit(input_signature=...)) and has no values; pass a Tensor with data")

    def __repr__(self) -> str:
        return (f"Tensor(shape={list(self.shape)}, dtype={mstype.from_numpy(self.dtype)}, "
                "value=\n)")

    def __str__(self) -> str:
        self.concrete_error("str()")
        return ""


def _dims(shape: Sequence[Any] | int) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int | np.integer | Symbol) or shape is None else tuple(shape)
    out = []
    for d in dims:
        if d is None or isinstance(d, Symbol):
            out.append(DYNAMIC_DIM)
        elif isinstance(d, bool) or not isinstance(d, int | np.integer):
            raise TypeError(f"Tensor: shape entries must be ints, None or Symbols, got {d!r} in {shape!r}")
        else:
            out.append(int(d))
    return tuple(out)


def placeholder_data(shape: Sequence[Any] | int, dtype: Any) -> Placeholder | np.ndarray:
    """The data of ``Tensor(shape=shape, dtype=dtype)`` without ``init``: zeros for a known
    shape, a :class:`Placeholder` for one with dynamic dimensions."""
    if dtype is None:
        raise ValueError(f"Tensor(shape={shape!r}): give a dtype (a tensor without data needs one)")
    dims = _dims(shape)
    np_dtype = np.dtype(mstype.to_np(dtype))
    if any(d < 0 for d in dims):
        entries = tuple(shape) if isinstance(shape, list | tuple) else (shape,)
        symbols = {axis: d for axis, d in enumerate(entries) if isinstance(d, Symbol)}
        return Placeholder(dims, np_dtype, symbols)
    return np.zeros(dims, np_dtype)


def is_placeholder(value: Any) -> bool:
    return isinstance(getattr(value, "_data", None), Placeholder)
