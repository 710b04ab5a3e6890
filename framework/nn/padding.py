"""``nn.Pad``: MindSpore's padding cell (CONSTANT zeros, REFLECT, SYMMETRIC)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..common.tensor import Tensor
from ..ops.shape_ops import pad as pad_pairs
from .cell import Cell

_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _check_paddings(paddings: Any) -> tuple[tuple[int, int], ...]:
    if not isinstance(paddings, tuple):
        raise TypeError(f"nn.Pad: paddings must be a tuple of (before, after) pairs, one per "
                        f"axis, got {type(paddings).__name__}")
    pairs = []
    for pair in paddings:
        if not isinstance(pair, tuple | list) or len(pair) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in pair):
            raise TypeError(f"nn.Pad: each entry of paddings must be a (before, after) pair "
                            f"of ints, got {pair!r}")
        if pair[0] < 0 or pair[1] < 0:
            raise ValueError(f"nn.Pad: paddings must be >= 0, got {pair!r}")
        pairs.append((int(pair[0]), int(pair[1])))
    return tuple(pairs)


def mirror_pad(x: Any, paddings: tuple[tuple[int, int], ...], mode: str) -> Any:
    """``x`` padded along each axis with its own entries mirrored: REFLECT leaves the edge
    entry out (``3 2 | 1 2 3 | 2 1``), SYMMETRIC repeats it (``2 1 | 1 2 3 | 3 2``); one
    Gather per padded axis (its gradient sums the mirrored entries' cotangents)."""
    shape = tuple(x.shape)
    if len(paddings) != len(shape):
        raise ValueError(f"nn.Pad: paddings has {len(paddings)} pairs for a {len(shape)}-d "
                         f"input; give one (before, after) pair per axis")
    for axis, (before, after) in enumerate(paddings):
        if before == 0 and after == 0:
            continue
        size = shape[axis]
        limit = size - 1 if mode == "REFLECT" else size
        if before > limit or after > limit:
            raise ValueError(f"nn.Pad: {mode} padding of axis {axis} (size {size}) must be at "
                             f"most {limit}, got {(before, after)}")
        index = np.pad(np.arange(size, dtype=np.int32), (before, after), mode=mode.lower())
        x = ops.gather(x, Tensor(index), axis)
    return x


class Pad(Cell):
    """``nn.Pad(paddings, mode="CONSTANT")``: ``paddings`` a tuple of ``(before, after)``
    pairs, one per axis of the input; ``mode`` 'CONSTANT' (zeros), 'REFLECT' or 'SYMMETRIC'
    (upper case, as MindSpore's). Differentiable; integer inputs too."""

    def __init__(self, paddings: Any, mode: str = "CONSTANT") -> None:
        super().__init__()
        if mode not in _MODES:
            raise ValueError(f"nn.Pad: mode must be one of {', '.join(_MODES)}, got {mode!r}")
        self.paddings = _check_paddings(paddings)
        self.mode = mode

    def construct(self, x):
        if self.mode == "CONSTANT":
            return pad_pairs(x, self.paddings)
        return mirror_pad(x, self.paddings, self.mode)
