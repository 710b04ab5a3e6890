"""Helpers shared by ``framework.mint``'s modules: PyTorch-style ``dim`` arguments, dtype
promotion of reductions (integers and bools reduce to int64, as ``mint.sum`` does), and
the guard of data-dependent results (``nonzero``, ``masked_select``...) that only PyNative
can compute."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..ops._utils import argument_error, one_dim  # noqa: F401  (one_dim: mint.* use it from here)
from ..ops.elementwise_signatures import cast


def as_tensor(value: Any, like: Any = None) -> Any:
    """``value`` as a Tensor (a Python scalar takes ``like``'s dtype family)."""
    if isinstance(value, Tensor):
        return value
    if like is not None and isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, int) or not is_integral(like.dtype):
            return Tensor(np.asarray(value, mstype.to_np(like.dtype)))
    return Tensor(value)


def dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    """``dim`` (None, an int, a list/tuple; ``()`` means every axis) as a tuple of axes, or
    None for every axis."""
    if dim is None or (isinstance(dim, tuple | list) and len(dim) == 0):
        return None
    if isinstance(dim, int):
        return (dim % ndim if ndim else 0,)
    return tuple(int(d) % ndim if ndim else 0 for d in dim)


def is_integral(dtype: Any) -> bool:
    """Whether ``dtype`` (a framework dtype) is a bool or an integer type."""
    return np.dtype(mstype.to_np(dtype)).kind in "biu"


def reduce_dtype(x: Any, dtype: Any) -> Any:
    """``x`` cast for a sum/prod: to ``dtype`` when given, integers and bools to int64."""
    if dtype is not None:
        return cast(x, dtype)
    if is_integral(x.dtype) and x.dtype != mstype.int64:
        return cast(x, mstype.int64)
    return x


def concrete(op: str, *tensors: Any, shape_from_values: bool = False) -> list[np.ndarray]:
    """The NumPy values of ``tensors``, for a function computed from them on the host (its
    output shape depends on them when ``shape_from_values``): a traced input, which has no
    values yet, stops with one line."""
    out = []
    for t in tensors:
        data = getattr(t, "_data", t)
        if not isinstance(data, np.ndarray | np.generic | int | float | bool):
            what = ("its output shape depends on the input values" if shape_from_values
                    else "it is computed from the input values on the host")
            raise argument_error(op, RuntimeError(
                f"{what}, which graph mode (jit) cannot compile; call it in PyNative mode "
                "(set_context(mode=PYNATIVE_MODE), or without ms.jit)"))
        out.append(np.asarray(data))
    return out
