"""Masks and triangles: ``ops.tril``/``ops.triu``, ``ops.masked_fill`` and ``ops.where``.

None of them is a new primitive: each is ONE ``Select`` (a broadcasting ``where``) whose
condition is either the user's mask or a constant bool matrix built from the static shape,
so both modes, the gradients (Select's bprop) and the TVM lowering come from ``Select``;
a compiled graph gains one node (plus a constant) per call.

- ``tril(input, diagonal=0)`` / ``triu(input, diagonal=0)``: MindSpore 2.x. The last two
  axes are the matrix, any leading axes are a batch; elements above (below) the
  ``diagonal``-th diagonal become 0 (False for bool input). ``diagonal > 0`` moves the
  border up (right), ``< 0`` down. The gradient is ``dout`` on the kept triangle, 0 elsewhere.
- ``masked_fill(input_x, mask, value)``: ``value`` where ``mask`` is True, ``input_x``
  elsewhere; ``mask`` is bool and broadcasts with ``input_x`` (the result has the
  broadcast shape and ``input_x``'s dtype); ``value`` is a Python number or a 0-d tensor
  (cast to ``input_x``'s dtype). Gradients: ``input_x`` gets ``dout`` where mask is False,
  a tensor ``value`` the sum of ``dout`` where it is True.
- ``where(condition, input, other)``: ``input`` where ``condition`` else ``other``, all
  three broadcast; ``input``/``other`` may be Python scalars. A scalar takes the dtype of
  the tensor operand when its kind (bool < int < float) is not above the tensor's
  (``where(c, x_f16, 0.5)`` stays float16, ``where(c, x_i32, 2)`` int32); otherwise, and
  when both are scalars, MindSpore's defaults for Python data (float32, int64, bool).

The class forms ``ops.Tril(diagonal)``, ``ops.Triu(diagonal)`` and ``ops.MaskedFill()``
call these (like ``ops.Zeros``), so they are not separate registry entries.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import NoAttributes
from ._utils import argument_error
from .elementwise import cast, select

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}


def _tensor_type():
    return Tensor


def _need_tensor(op: str, name: str, value: Any) -> None:
    if not isinstance(value, _tensor_type()):
        raise argument_error(op, TypeError(f"{name} must be a Tensor, got {type(value).__name__}"))


def _constant(array: np.ndarray) -> Any:
    return _tensor_type()(array)


def _triangle(op: str, input: Any, diagonal: Any, lower: bool) -> Any:  # noqa: A002
    _need_tensor(op, "input", input)
    if isinstance(diagonal, bool) or not isinstance(diagonal, int | np.integer):
        raise argument_error(op, TypeError(f"diagonal must be an int, got "
                                           f"{type(diagonal).__name__}"))
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise argument_error(op, ValueError(f"input must have rank >= 2 (a matrix or a batch "
                                            f"of them), got shape {shape}"))
    rows, cols = shape[-2:]
    diagonal = int(diagonal)
    if lower:
        keep = np.tri(rows, cols, diagonal, dtype=bool)
    else:
        keep = ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    zero = _constant(np.zeros((), input.dtype.np))
    return select(_constant(keep), input, zero)


def tril(input: Any, diagonal: int = 0) -> Any:  # noqa: A002  (MindSpore's parameter names)
    """``ops.tril(input, diagonal=0)``: the lower triangle of the last two axes."""
    return _triangle("tril", input, diagonal, lower=True)


def triu(input: Any, diagonal: int = 0) -> Any:  # noqa: A002
    """``ops.triu(input, diagonal=0)``: the upper triangle of the last two axes."""
    return _triangle("triu", input, diagonal, lower=False)


def masked_fill(input_x: Any, mask: Any, value: Any) -> Any:
    """``ops.masked_fill(input_x, mask, value)`` (see the module docstring)."""
    Tensor = _tensor_type()
    _need_tensor("masked_fill", "input_x", input_x)
    _need_tensor("masked_fill", "mask", mask)
    if mask.dtype != mstype.bool_:
        raise argument_error("masked_fill", TypeError(f"mask must be a bool tensor, got {mask.dtype}"))
    dtype = input_x.dtype
    if isinstance(value, Tensor):
        if tuple(value.shape) != ():
            raise argument_error("masked_fill", ValueError(
                f"value must be a Python number or a 0-d tensor, got a tensor of shape "
                f"{tuple(value.shape)}"))
        if value.dtype != dtype:
            value = cast(value, dtype)
    elif isinstance(value, bool | int | float | np.number | np.bool_):
        kind = np.asarray(value).dtype.kind
        if _KIND_RANK[kind] > _KIND_RANK[mstype.kind(dtype.np)]:
            raise argument_error("masked_fill", TypeError(
                f"value {value!r} ({type(value).__name__}) does not fit input_x's dtype {dtype}"))
        value = _constant(np.asarray(value).astype(dtype.np))
    else:
        raise argument_error("masked_fill", TypeError(
            f"value must be a Python number or a 0-d tensor, got {type(value).__name__}"))
    return select(mask, value, input_x)


def _scalar_operand(value: Any, like: Any) -> Any:
    """A Python scalar as a 0-d tensor: ``like``'s dtype when the scalar's kind fits it."""
    kind = np.asarray(value).dtype.kind
    if kind not in _KIND_RANK:
        raise TypeError(f"cannot use {type(value).__name__} as a where operand")
    if like is not None and _KIND_RANK[kind] <= _KIND_RANK[mstype.kind(like.dtype.np)]:
        return _constant(np.asarray(value).astype(like.dtype.np))
    return _constant(np.asarray(value).astype(mstype.default_for_python(value).np))


def where(condition: Any, input: Any, other: Any) -> Any:  # noqa: A002
    """``ops.where(condition, input, other)`` (see the module docstring)."""
    Tensor = _tensor_type()
    _need_tensor("where", "condition", condition)
    if condition.dtype != mstype.bool_:
        raise argument_error("where", TypeError(f"condition must be a bool tensor, got "
                                                f"{condition.dtype}"))
    tensors = [v for v in (input, other) if isinstance(v, Tensor)]
    like = tensors[0] if len(tensors) == 1 else None
    try:
        x = input if isinstance(input, Tensor) else _scalar_operand(input, like)
        y = other if isinstance(other, Tensor) else _scalar_operand(other, like)
    except TypeError as error:
        raise argument_error("where", error) from None
    return select(condition, x, y)


class Tril:
    """``ops.Tril(diagonal=0)(x)``, the class form of :func:`tril`."""

    def __init__(self, diagonal: int = 0) -> None:
        self.diagonal = diagonal

    def __call__(self, x: Any) -> Any:
        return tril(x, self.diagonal)


class Triu:
    """``ops.Triu(diagonal=0)(x)``, the class form of :func:`triu`."""

    def __init__(self, diagonal: int = 0) -> None:
        self.diagonal = diagonal

    def __call__(self, x: Any) -> Any:
        return triu(x, self.diagonal)


class MaskedFill(NoAttributes):
    """``ops.MaskedFill()(input_x, mask, value)``, the class form of :func:`masked_fill`."""

    def __call__(self, input_x: Any, mask: Any, value: Any) -> Any:
        return masked_fill(input_x, mask, value)
