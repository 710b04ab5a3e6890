"""MindSpore 2.x's ``ops.pad(input_x, padding, mode='constant', value=None)``: ``padding``
holds ``(before, after)`` pairs from the last axis backwards (``(left, right, top,
bottom, ...)``); ``mode`` is ``'constant'`` (``value``, default 0), ``'reflect'`` (mirror
without repeating the edge), ``'replicate'`` (the edge repeated) or ``'circular'`` (wrap
around). A negative amount crops that side instead.

Composed of the ``Pad`` primitive (per-axis pairs, :func:`framework.ops.shape_ops.pad`), slices
and gathers, so both modes and the gradients are theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error
from .elementwise import cast
from .scatter_gather import gather
from .shape_ops import ones_like, slice_
from .shape_ops import pad as pad_pairs

MODES = ("constant", "reflect", "replicate", "circular")


def source_index(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each padded position along an axis, the index it copies (``mode``: replicate,
    reflect or circular)."""
    where = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(where, 0, size - 1)
    if mode == "circular":
        return where % size
    period = 2 * (size - 1)  # reflect: mirror without repeating the edge
    folded = np.abs(where) % period if period else np.zeros_like(where)
    return np.where(folded < size, folded, period - folded)


def _pairs(input_x: Any, padding: Any) -> list[tuple[int, int]]:
    if hasattr(padding, "asnumpy"):
        padding = padding.asnumpy().tolist()
    amounts = tuple(int(p) for p in padding)
    rank = len(input_x.shape)
    if len(amounts) % 2 or len(amounts) > 2 * rank:
        raise argument_error("pad", ValueError(
            f"padding needs an even number of values, at most 2 * rank ({2 * rank}), got {amounts}"))
    pairs = [(0, 0)] * rank
    for i in range(len(amounts) // 2):
        pairs[rank - 1 - i] = (amounts[2 * i], amounts[2 * i + 1])
    return pairs


def pad(input_x: Any, padding: Any, mode: str = "constant", value: Any = None) -> Any:
    """See the module docstring."""
    if mode not in MODES:
        raise argument_error("pad", ValueError(f"mode must be one of {MODES}, got {mode!r}"))
    if value is not None and mode != "constant":
        raise argument_error("pad", ValueError(f"value is for mode 'constant', got mode {mode!r}"))
    pairs = _pairs(input_x, padding)
    if any(b < 0 or a < 0 for b, a in pairs):  # crop first
        shape = tuple(input_x.shape)
        begin = tuple(max(-b, 0) for b, _ in pairs)
        size = tuple(n - max(-b, 0) - max(-a, 0) for n, (b, a) in zip(shape, pairs))
        if min(size, default=1) < 0:
            raise argument_error("pad", ValueError(f"padding {tuple(padding)} crops more than "
                                                   f"the input's shape {shape}"))
        input_x = slice_(input_x, begin, size)
        pairs = [(max(b, 0), max(a, 0)) for b, a in pairs]
    if mode != "constant":
        out = input_x
        for axis, (before, after) in enumerate(pairs):
            if before or after:
                size = int(input_x.shape[axis])
                if mode == "reflect" and (before >= size or after >= size):
                    raise argument_error("pad", ValueError(
                        f"reflect padding ({before}, {after}) must be smaller than axis {axis}'s "
                        f"size {size}"))
                index = source_index(size, before, after, mode)
                out = gather(out, Tensor(index.astype(np.int64)), axis)
        return out
    out = pad_pairs(input_x, tuple(pairs))
    if value:
        inside = pad_pairs(ones_like(input_x), tuple(pairs))
        out = cast(out + (1 - inside) * value, input_x.dtype)
    return out
