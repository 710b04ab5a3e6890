"""Primitive classes that select by value: ``P.RaggedRange(Tsplits)`` and
``P.RandomChoiceWithMask(count=256, seed=0, seed2=0)``.

- ``RaggedRange(Tsplits)(starts, limits, deltas)``: ``(splits, values)``: the ranges
  ``range(starts[i], limits[i], deltas[i])`` end to end in ``values`` (the inputs' dtype),
  ``splits`` (``Tsplits``, int32 or int64) the offsets where each begins, then the total.
  Its length depends on the values: PyNative (graph mode raises one line saying so).
- ``RandomChoiceWithMask(count)(x)``: up to ``count`` positions of the True entries of the
  bool ``x``, in a random order: ``(index (count, rank) int32, mask (count,) bool)``; rows
  past the number of True entries are zeros with mask False. Static shapes: a random key per
  entry, the True entries' keys below every False one's, and the ``count`` smallest keys
  taken (``topk``), so it compiles in graph mode too. The draws come from our generator
  (``framework.set_seed``); MindSpore's seeds are accepted, not reproduced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtype as mstype
from .. import functional as ops
from .._class_form import REQUIRED, class_form
from .._utils import argument_error


def _ragged_range(starts: Any, limits: Any, deltas: Any, *, Tsplits: Any) -> Any:  # noqa: N803
    from ..value_shaped import _tensor, _values

    op = "RaggedRange"
    if Tsplits not in (mstype.int32, mstype.int64):
        raise argument_error(op, TypeError(f"Tsplits must be int32 or int64, got {Tsplits}"))
    start, limit, delta = (_values(op, t) for t in (starts, limits, deltas))
    if not start.shape == limit.shape == delta.shape or start.ndim > 1:
        raise argument_error(op, ValueError(
            f"starts, limits and deltas must have one shape (0-d or 1-d), got {start.shape}, "
            f"{limit.shape}, {delta.shape}"))
    if (delta == 0).any():
        raise argument_error(op, ValueError("deltas must not be 0"))
    start, limit, delta = (a.reshape(-1) for a in (start, limit, delta))
    sizes = np.maximum(np.ceil((limit - start) / delta), 0).astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(mstype.to_np(Tsplits))
    values = np.concatenate([s + d * np.arange(n) for s, d, n in zip(start, delta, sizes, strict=True)]
                            + [np.zeros(0)]).astype(start.dtype)
    return _tensor(splits), _tensor(values)


def _random_choice_with_mask(x: Any, *, count: int, seed: int, seed2: int) -> Any:
    from ..random_draw import random_draw

    if x.dtype != mstype.bool_ or not 1 <= len(x.shape) <= 5:
        raise argument_error("RandomChoiceWithMask", TypeError(
            f"x must be a bool tensor of rank 1 to 5, got {x.dtype} of shape {tuple(x.shape)}"))
    if not isinstance(count, int) or count <= 0:
        raise argument_error("RandomChoiceWithMask", ValueError(
            f"count must be a positive int, got {count!r}"))
    shape = tuple(int(d) for d in x.shape)
    size = int(np.prod(shape))
    flat = ops.reshape(x, (size,))
    # True entries draw keys in [0, 1), False ones in [2, 3): the smallest keys are True first
    keys = random_draw("uniform", (size,), np.float32) + ops.cast(ops.logical_not(flat), mstype.float32) * 2.0
    taken = min(count, size)
    order = ops.topk(-keys, taken)[1]
    mask = ops.gather(flat, order, 0)
    strides = np.array([int(np.prod(shape[i + 1:])) for i in range(len(shape))], np.int64)
    coords = [ops.cast(order // int(st) % int(n), mstype.int32) for st, n in zip(strides, shape, strict=True)]
    index = ops.stack(coords, 1) * ops.cast(ops.expand_dims(mask, 1), mstype.int32)
    if taken < count:
        index = ops.concat([index, ops.zeros((count - taken, len(shape)), mstype.int32)], 0)
        mask = ops.concat([mask, ops.zeros((count - taken,), mstype.bool_)], 0)
    return index, mask


RaggedRange = class_form("RaggedRange", _ragged_range, Tsplits=REQUIRED)
RandomChoiceWithMask = class_form("RandomChoiceWithMask", _random_choice_with_mask, count=256, seed=0,
                                  seed2=0)

__all__ = ["RaggedRange", "RandomChoiceWithMask"]
