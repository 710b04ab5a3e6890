"""Static facts of a tensor as Python values (``F.shape``, ``F.dtype``, ``F.rank``,
``F.size``): known while tracing, so they fold into graph mode's Python control flow."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._class_form import NoAttributes


def shape(input_x: Any) -> tuple[int, ...]:
    return tuple(input_x.shape)


def dyn_shape(input_x: Any) -> Any:
    """The shape as a 1-d int64 tensor (MindSpore's ``TensorShape``)."""
    return Tensor(np.asarray(tuple(input_x.shape), np.int64).reshape(len(input_x.shape)))


def dtype(input_x: Any) -> Any:
    return input_x.dtype


def rank(input_x: Any) -> int:
    return len(input_x.shape)


def size(input_x: Any) -> int:
    out = 1
    for d in input_x.shape:
        out *= int(d)
    return out


class Shape(NoAttributes):
    """``P.Shape()(x)``: the shape as a tuple of ints."""

    def __call__(self, input_x: Any) -> tuple[int, ...]:
        return shape(input_x)


class Rank(NoAttributes):
    def __call__(self, input_x: Any) -> int:
        return rank(input_x)


class Size(NoAttributes):
    def __call__(self, input_x: Any) -> int:
        return size(input_x)


class DType(NoAttributes):
    """``P.DType()(x)``: the dtype (``mstype.float32`` ...)."""

    def __call__(self, input_x: Any) -> Any:
        return dtype(input_x)
