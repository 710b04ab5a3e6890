"""Argument checks shared by the layers: sizes must be positive ints, said in one line."""

from __future__ import annotations

import numbers
from typing import Any


def positive_ints(who: str, **sizes: Any) -> None:
    """``positive_ints("Dense", in_channels=4, out_channels=2)``: each must be an int >= 1
    (TypeError for another type, ValueError for a value below 1), before any tensor is made."""
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{who}: {name} must be a positive int, got {value!r} "
                            f"({type(value).__name__})")
        if value < 1:
            raise ValueError(f"{who}: {name} must be >= 1, got {value}")


def tensor_shape(who: str, x: Any) -> tuple[int, ...]:
    """The shape of a layer's input, or a TypeError saying what was passed instead."""
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"{who}: the input must be a Tensor, got {type(x).__name__} {x!r:.40}; "
                        "wrap data with Tensor(np.asarray(...))")
    return tuple(shape)
