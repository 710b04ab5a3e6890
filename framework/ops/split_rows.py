"""``SplitRows(parts)(x)``: ``x`` cut along axis 0 into ``parts`` equal pieces, as ONE
primitive (``ops.Split`` is a composite of slices).

Internal (MindSpore's ``Split`` primitive does this along any axis; ``ops.Split`` here keeps
its composite form). An unrolled recurrent layer takes its T input steps from one
``(T * N, G)`` projection: as slices, each step's gradient is a pad of the whole
projection (summed level by level); here the backward is one concatenate (a copy per
piece, :mod:`..backend.tvm.lower.concat_copies`), and in graph mode each piece is a row slice
emitted next to the kernel that reads it (:func:`..backend.tvm.lower.lowerings.shape.lower_split_rows`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from .shape_ops import concat, zeros_like


class SplitRows(Primitive):
    """See the module docstring: ``parts`` outputs of shape ``(rows // parts, *rest)``."""

    none_douts = True

    def __init__(self, parts: int) -> None:
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 2:
            raise ValueError(f"SplitRows: parts must be an int >= 2, got {parts!r}")
        super().__init__(parts=parts)

    @property
    def num_outputs(self) -> int:  # type: ignore[override]
        return self.parts

    def infer(self, x: Any) -> tuple[Spec, ...]:
        shape = tuple(x.shape)
        if not shape or shape[0] % self.parts:
            raise ValueError(f"SplitRows: x {shape_str(shape)} does not split into {self.parts} "
                             "equal pieces along axis 0")
        return (Spec((shape[0] // self.parts,) + shape[1:], x.dtype),) * self.parts

    def kernel(self, x):
        return tuple(np.array(p) for p in np.split(x, self.parts, axis=0))

    def bprop(self, x, *, out, dout, needs):
        pieces = [zeros_like(o) if d is None else d for o, d in zip(out, dout)]
        return (concat(pieces, 0),)
