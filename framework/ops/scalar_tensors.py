"""MindSpore's functional helpers that make tensors of Python scalars and tuples
(``F.tuple_to_array``, ``F.scalar_to_array``, ``F.scalar_to_tensor``)."""

from __future__ import annotations

from ..common.tensor import Tensor
from .creation import full


def tuple_to_array(input_x):
    """MindSpore's ``F.tuple_to_array((1, 2, 3))``: a 1-D tensor of the tuple's numbers (int32
    for ints, as MindSpore 2.10 gives; float32 for floats)."""
    if not isinstance(input_x, tuple):
        raise TypeError(f"tuple_to_array: input_x must be a tuple, got {type(input_x).__name__}")
    if not input_x:
        raise ValueError("tuple_to_array: input_x must not be empty")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in input_x):
        return Tensor(input_x, "int32")
    return Tensor(input_x)


def scalar_to_array(input_x):
    """MindSpore's ``F.scalar_to_array(x)``: a 0-d tensor (int64 for an int, else float32)."""
    if isinstance(input_x, bool) or not isinstance(input_x, int | float):
        raise TypeError(f"scalar_to_array: input_x must be an int or a float, got {type(input_x).__name__}")
    return Tensor(input_x)


def scalar_to_tensor(input_x, dtype=None):
    """``F.scalar_to_tensor(1, mstype.int32)``: a 0-d tensor (float32 by default)."""
    return full((), input_x, dtype=dtype or "float32")
