"""Convolution and pooling geometry (per axis: paddings, output lengths) shared by the 1-d,
3-d and transposed convolutions and the N-d pools; plain Python on static shapes."""

from __future__ import annotations

import numbers
from typing import Any

PAD_MODES = ("same", "valid", "pad")


def ints(who: str, name: str, value: Any, n: int, minimum: int = 1) -> tuple[int, ...]:
    """``value`` as ``n`` ints >= ``minimum``: an int repeats, a tuple must have ``n``."""
    items = (value,) * n if isinstance(value, numbers.Integral) else value
    if (not isinstance(items, tuple | list) or len(items) != n
            or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum
                   for v in items)):
        raise ValueError(f"{who}: {name} must be an int >= {minimum} or a tuple of {n} of them, "
                         f"got {value!r}")
    return tuple(int(v) for v in items)


def pad_mode_of(who: str, pad_mode: Any, padding: tuple[int, ...]) -> str:
    if pad_mode not in PAD_MODES:
        raise ValueError(f"{who}: pad_mode must be one of {PAD_MODES}, got {pad_mode!r}")
    if pad_mode != "pad" and any(padding):
        raise ValueError(f"{who}: padding {padding} needs pad_mode='pad' (got {pad_mode!r})")
    return pad_mode


def same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """TensorFlow's 'same' padding of one axis (the odd one after)."""
    total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def conv_pads(pad_mode: str, sizes, ks, ss, ds, padding) -> list[tuple[int, int]]:
    """(before, after) padding per spatial axis of a convolution."""
    if pad_mode == "valid":
        return [(0, 0)] * len(sizes)
    if pad_mode == "pad":
        return [(padding[2 * i], padding[2 * i + 1]) for i in range(len(sizes))]
    return [same_pads(n, k, s, d) for n, k, s, d in zip(sizes, ks, ss, ds)]


def conv_out(size: int, k: int, s: int, d: int, before: int, after: int) -> int:
    return (size + before + after - (k - 1) * d - 1) // s + 1


def transpose_crop(pad_mode: str, size: int, k: int, s: int, d: int,
                   before: int, after: int) -> tuple[int, int]:
    """A transposed convolution's output on one axis as (crop before, length) of the full
    adjoint result, whose length is ``(size - 1) * s + (k - 1) * d + 1``: 'valid' keeps it
    (at least ``size * s``, zeros after), 'same' is ``size * s`` (crop as 'same' pads), 'pad'
    removes ``before``/``after``."""
    full = (size - 1) * s + (k - 1) * d + 1
    if pad_mode == "valid":
        return 0, max(full, size * s)
    if pad_mode == "same":
        out = size * s
        total = max(full - out, 0)
        return total // 2, out
    return before, full - before - after
