"""``ops.clip_by_global_norm`` (MindSpore's), composed of primitives so both modes run it."""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .elementwise import abs as absolute
from .elementwise import add, cast, div, maximum, minimum, mul, pow, sqrt, square
from .reduce import reduce_max, reduce_sum


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


def clip_by_norm(x: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False) -> Any:
    """MindSpore 2.x's ``ops.clip_by_norm``: a tensor (or a list/tuple of tensors, scaled
    together) times ``min(1, max_norm / (norm + 1e-6))``, where ``norm`` is the
    ``norm_type``-norm of all their entries (``inf``: the largest magnitude)."""
    many = isinstance(x, list | tuple)
    tensors = tuple(x) if many else (x,)
    if not tensors:
        raise ValueError("clip_by_norm: x must hold at least one tensor")
    norm_type = float(norm_type)
    if norm_type <= 0:
        raise ValueError(f"clip_by_norm: norm_type must be > 0 or inf, got {norm_type}")
    if math.isinf(norm_type):
        parts = [reduce_max(absolute(cast(t, mstype.float32))) for t in tensors]
        norm = parts[0]
        for part in parts[1:]:
            norm = maximum(norm, part)
    else:
        total = reduce_sum(pow(absolute(cast(tensors[0], mstype.float32)), norm_type))
        for t in tensors[1:]:
            total = add(total, reduce_sum(pow(absolute(cast(t, mstype.float32)), norm_type)))
        norm = pow(total, 1.0 / norm_type)
    if error_if_nonfinite:
        data = getattr(norm, "_data", None)
        if data is not None and hasattr(data, "dtype") and not (abs(float(data)) < float("inf")):
            raise RuntimeError(f"clip_by_norm: the total norm of order {norm_type} is not finite")
    scale = minimum(div(float(max_norm), add(norm, 1e-6)), 1.0)
    out = tuple(mul(t, cast(scale, t.dtype)) for t in tensors)
    return out if many else out[0]
