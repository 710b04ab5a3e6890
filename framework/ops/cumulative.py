"""Cumulative products, maxima, minima and log-sum-exp along an axis: one
slice per position along the axis, combined with the running value and concatenated, so
both modes and the gradients come from the primitives' rules (a gradient through the
product is exact with zeros too: no division).

Contracts:

- ``cumprod(input, dim, dtype=None)``: ``y_i = x_0 * ... * x_i`` (cast to ``dtype`` first);
- ``cummax(input, axis)`` / ``cummin``: ``(values, indices)``, the running maximum
  (minimum) and the index of the entry it came from (int64 for ``cummax``, int32 for
  ``cummin``: MindSpore 2.10's dtypes); on ties the later index (MindSpore's convention);
  the gradient reaches that entry;
- ``logcumsumexp(input, axis)``: ``log(sum_{j <= i} exp(x_j))``, computed with the
  axis' maximum taken out (no overflow).
"""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .creation import full
from .elementwise import cast, exp, greater_equal, less_equal, log, select
from .reduce import reduce_max
from .scan import cumsum
from .shape_ops import concat, stop_gradient


def _axis(who: str, x: Any, axis: Any) -> int:
    rank = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{who}: axis must be an int in [{-max(rank, 1)}, {max(rank, 1)}) for "
                         f"input {tuple(x.shape)}, got {axis!r}")
    return axis % max(rank, 1)


def _pieces(x: Any, axis: int) -> list[Any]:
    lead = (slice(None),) * axis
    return [x[(*lead, slice(i, i + 1))] for i in range(x.shape[axis])]


def cumprod(input, dim, dtype=None):  # noqa: A002  (MindSpore's parameter names)
    axis = _axis("cumprod", input, dim)
    x = input if dtype is None else cast(input, dtype)
    if not x.shape:
        return x
    out = [None] * x.shape[axis]
    for i, piece in enumerate(_pieces(x, axis)):
        out[i] = piece if i == 0 else out[i - 1] * piece
    return concat(out, axis)


def _running(who: str, input: Any, axis: Any, keep_new: Any, dtype: Any) -> tuple[Any, Any]:  # noqa: A002
    axis = _axis(who, input, axis)
    values, indices = [], []
    for i, piece in enumerate(_pieces(input, axis)):
        index = full(tuple(piece.shape), i, dtype=dtype)
        if i:
            take = keep_new(piece, values[-1])
            piece = select(take, piece, values[-1])
            index = select(take, index, indices[-1])
        values.append(piece)
        indices.append(index)
    return concat(values, axis), concat(indices, axis)


def cummax(input, axis):  # noqa: A002
    return _running("cummax", input, axis, greater_equal, mstype.int64)


def cummin(input, axis):  # noqa: A002
    return _running("cummin", input, axis, less_equal, mstype.int32)


def logcumsumexp(input, axis):  # noqa: A002
    axis = _axis("logcumsumexp", input, axis)
    top = stop_gradient(reduce_max(input, axis, True))
    return log(cumsum(exp(input - top), axis)) + top
