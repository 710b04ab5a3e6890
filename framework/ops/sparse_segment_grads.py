"""Backward primitives of MindSpore's sparse segment reductions (``ops.operations._grad_ops``:
``SparseSegmentMeanGrad()``, ``SparseSegmentSqrtNGrad()``), as compositions of gathers and
segment sums so both modes run them.

Argument order (MindSpore 2.10's): ``(grad, indices, segment_ids, output_dim0)``. The
forward read row ``indices[k]`` of its input into segment ``segment_ids[k]`` and divided each
segment's sum by its row count (``Mean``) or its square root (``SqrtN``); the backward adds
``grad[segment_ids[k]]`` so divided back to row ``indices[k]`` of an ``output_dim0``-row
result (``output_dim0``: an int or an int Tensor known while compiling).
"""

from __future__ import annotations

from typing import Any

from ._utils import concrete_ints
from .elementwise import cast, div, equal, sqrt
from .scatter_gather import gather
from .segment import unsorted_segment_sum
from .shape_ops import reshape


class _SparseSegmentGrad:
    root = False

    def __init__(self) -> None:  # no attributes, as MindSpore's
        pass

    def __call__(self, grad: Any, indices: Any, segment_ids: Any, output_dim0: Any) -> Any:
        name = type(self).__name__
        rows = concrete_ints(output_dim0, f"{name}: output_dim0")
        if not isinstance(rows, int) or rows < 0:
            raise ValueError(f"{name}: output_dim0 must be one int >= 0, got {rows!r}")
        shape = tuple(grad.shape)
        if not shape:
            raise ValueError(f"{name}: grad must have rank >= 1, got a scalar")
        ones = cast(equal(segment_ids, segment_ids), grad.dtype)
        counts = gather(unsorted_segment_sum(ones, segment_ids, shape[0]), segment_ids, 0)
        if self.root:
            counts = sqrt(counts)
        picked = gather(grad, segment_ids, 0)
        share = div(picked, reshape(counts, (-1,) + (1,) * (len(shape) - 1)))
        return unsorted_segment_sum(share, indices, rows)


class SparseSegmentMeanGrad(_SparseSegmentGrad):
    """``SparseSegmentMeanGrad()(grad, indices, segment_ids, output_dim0)``: each segment's
    gradient shared out over its rows, divided by their count."""


class SparseSegmentSqrtNGrad(_SparseSegmentGrad):
    """``SparseSegmentSqrtNGrad()(grad, indices, segment_ids, output_dim0)``: as
    ``SparseSegmentMeanGrad``, divided by the square root of the row count."""

    root = True


__all__ = ["SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"]
