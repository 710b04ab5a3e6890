"""``ops.clip_by_global_norm`` (MindSpore's), composed of primitives so both modes run it."""

from __future__ import annotations

from typing import Any

from .elementwise import add, div, maximum, mul, sqrt, square
from .reduce import reduce_sum


def clip_by_global_norm(x: Any, clip_norm: float = 1.0, use_norm: Any = None) -> tuple:
    """``x_i * clip_norm / max(global_norm, clip_norm)`` for each tensor of the tuple ``x``,
    where ``global_norm = sqrt(sum_i sum(x_i ** 2))`` (or ``use_norm`` when given): the
    tensors are scaled together so their joint L2 norm is at most ``clip_norm``."""
    tensors = tuple(x)
    if not tensors:
        raise ValueError("clip_by_global_norm: x must hold at least one tensor")
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, int | float) or clip_norm <= 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be a number > 0, got {clip_norm!r}")
    if use_norm is None:
        total = reduce_sum(square(tensors[0]))
        for t in tensors[1:]:
            total = add(total, reduce_sum(square(t)))
        use_norm = sqrt(total)
    scale = div(float(clip_norm), maximum(use_norm, float(clip_norm)))
    return tuple(mul(t, scale) for t in tensors)
