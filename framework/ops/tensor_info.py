"""Static facts of a tensor as Python values (``F.shape``, ``F.dtype``, ``F.rank``,
``F.size``): known while tracing, so they fold into graph mode's Python control flow."""

from __future__ import annotations

from typing import Any


def shape(input_x: Any) -> tuple[int, ...]:
    return tuple(input_x.shape)


def dtype(input_x: Any) -> Any:
    return input_x.dtype


def rank(input_x: Any) -> int:
    return len(input_x.shape)


def size(input_x: Any) -> int:
    out = 1
    for d in input_x.shape:
        out *= int(d)
    return out
