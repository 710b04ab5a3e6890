"""Binary search in sorted rows: ``SearchSorted(right, dtype)(sorted_sequence, values)``.

``sorted_sequence`` is 1-d (searched for every value) or has ``values``' leading axes
(each row searched for the values of the same row). Each result is the insertion
position that keeps the row sorted: the first (``right=False``: ``seq[i-1] < v <=
seq[i]``) or the last (``right=True``: ``seq[i-1] <= v < seq[i]``). No gradient.
MindSpore's names: ``searchsorted`` (int64 unless ``out_int32``; ``side`` overrides
``right``; ``sorter`` sorts an unsorted sequence) and ``bucketize`` (int32, boundaries a list).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec, shape_str
from . import scatter_elements as _scatter_elements
from ._utils import argument_error


class SearchSorted(Primitive):
    """``SearchSorted(right, dtype)(sorted_sequence, values)``: see the module docstring."""

    differentiable = False

    def __init__(self, right: bool = False, dtype: str = "int64") -> None:
        super().__init__(right=bool(right), dtype=str(np.dtype(dtype)))

    def infer(self, seq: Any, values: Any) -> Spec:
        if len(seq.shape) == 0:
            raise ValueError("SearchSorted: sorted_sequence must have at least one axis")
        if len(seq.shape) > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
            raise ValueError(f"SearchSorted: sorted_sequence of shape {shape_str(seq.shape)} must be "
                             f"1-d or share the leading axes of values {shape_str(values.shape)}")
        return Spec(tuple(values.shape), np.dtype(self.dtype))

    def kernel(self, seq, values):
        side = "right" if self.right else "left"
        if seq.ndim == 1:
            return np.searchsorted(seq, values, side=side).astype(self.dtype)
        rows = seq.reshape((-1, seq.shape[-1]))
        vals = values.reshape((rows.shape[0], -1))
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
        return out.reshape(values.shape).astype(self.dtype)


def _tensor(value: Any, like: Any = None) -> Any:
    if isinstance(value, Tensor):
        return value
    array = np.asarray(value)
    if like is not None and array.dtype.kind in "if":
        want = np.dtype(mstype.to_np(like.dtype))
        array = array.astype(want) if want.kind == "f" else array
    return Tensor(array)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """MindSpore's ``ops.searchsorted`` (see the module docstring)."""
    if side not in (None, "left", "right"):
        raise argument_error("searchsorted", ValueError(f"side must be 'left' or 'right', got {side!r}"))
    if side is not None:
        right = side == "right"
    seq = _tensor(sorted_sequence)
    if sorter is not None:
        seq = _scatter_elements.gather_elements(seq, -1, _tensor(sorter))
    return SearchSorted(right, "int32" if out_int32 else "int64")(seq, _tensor(values, seq))


def bucketize(input, boundaries, *, right=False):  # noqa: A002  (MindSpore's names)
    """MindSpore's ``ops.bucketize``: the int32 bucket of each element among ``boundaries``
    (a list, increasing)."""
    if not isinstance(boundaries, list | tuple):
        raise argument_error("bucketize", TypeError(
            f"boundaries must be a list of numbers, got {type(boundaries).__name__}"))
    kind = np.dtype(mstype.to_np(input.dtype))
    edges = np.asarray(boundaries, np.float64 if kind.kind == "f" else None)
    if edges.ndim != 1:
        raise argument_error("bucketize", ValueError("boundaries must be a flat list of numbers"))
    edges = edges.astype(np.result_type(edges.dtype, kind))
    return SearchSorted(right, "int32")(Tensor(edges), input)
