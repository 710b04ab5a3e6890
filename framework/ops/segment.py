"""Segment reductions: ``UnsortedSegment(kind, num_segments)(x, segment_ids)``.

``segment_ids`` (integers, the shape of ``x``'s leading axes) assigns each slice
``x[i...]`` to a segment; the result (``(num_segments,) + x.shape[ids.ndim:]``) holds per
segment the sum / product / max / min of its slices. Ids outside ``[0, num_segments)`` are
dropped; an empty segment holds the reduction's identity (0, 1) or, for max and min,
the dtype's lowest and highest finite value (MindSpore's convention).

Gradients: a sum's is ``dout`` at each id; a product's, the product of the segment's other
entries; a max's (min's) goes to the entries equal to the result, split evenly among ties.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from ._utils import argument_error
from .scatter_gather import _as_index_tensor

KINDS = ("sum", "prod", "max", "min")


def _extreme(dtype: np.dtype, kind: str) -> Any:
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def _flat(x: np.ndarray, ids: np.ndarray, num: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x`` as (n, rest), the ids as (n,), and which of them are kept."""
    rows = x.reshape((ids.size, -1))
    flat = ids.reshape(-1).astype(np.int64)
    return rows, flat, (flat >= 0) & (flat < num)


class UnsortedSegment(Primitive):
    """``UnsortedSegment(kind, num_segments)(x, segment_ids)``: see the module docstring."""

    def __init__(self, kind: str, num_segments: int) -> None:
        if kind not in KINDS:
            raise ValueError(f"UnsortedSegment: kind must be one of {KINDS}, got {kind!r}")
        super().__init__(kind=kind, num_segments=int(num_segments))

    @property
    def op(self) -> str:
        return f"UnsortedSegment{self.kind.capitalize()}"

    def infer(self, x: Any, ids: Any) -> Spec:
        if np.dtype(ids.dtype).kind not in "iu":
            raise TypeError(f"{self.op}: segment_ids must be an integer tensor, got {ids.dtype}")
        if tuple(x.shape[:len(ids.shape)]) != tuple(ids.shape):
            raise ValueError(f"{self.op}: segment_ids of shape {shape_str(ids.shape)} must be the "
                             f"leading axes of x {shape_str(x.shape)}")
        if self.num_segments <= 0:
            raise ValueError(f"{self.op}: num_segments must be positive, got {self.num_segments}")
        return Spec((self.num_segments,) + tuple(x.shape[len(ids.shape):]), x.dtype)

    def kernel(self, x, ids):
        rows, flat, keep = _flat(x, ids, self.num_segments)
        shape = (self.num_segments,) + x.shape[ids.ndim:]
        init = {"sum": 0, "prod": 1}.get(self.kind)
        out = np.full((self.num_segments, rows.shape[1]),
                      _extreme(x.dtype, self.kind) if init is None else init, x.dtype)
        ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[self.kind]
        ufunc.at(out, flat[keep], rows[keep])
        return out.reshape(shape)

    def bprop(self, x, ids, *, out, dout, needs):
        return SegmentGrad(self.kind, self.num_segments)(x, ids, out, dout), None


class SegmentGrad(Primitive):
    """The gradient of ``UnsortedSegment`` at ``x`` (see the module docstring)."""

    differentiable = False
    first_order_only = True

    def __init__(self, kind: str, num_segments: int) -> None:
        super().__init__(kind=kind, num_segments=int(num_segments))

    def infer(self, x: Any, ids: Any, out: Any, dout: Any) -> Spec:
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, ids, out, dout):
        rows, flat, keep = _flat(x, ids, self.num_segments)
        at = np.where(keep, flat, 0)
        douts = dout.reshape((self.num_segments, -1))[at].astype(x.dtype)
        if self.kind == "sum":
            grad = douts
        elif self.kind == "prod":
            grad = douts * _others_product(rows, at, keep, self.num_segments)
        else:
            hit = rows == out.reshape((self.num_segments, -1))[at]
            hit &= keep[:, None]
            ties = np.zeros((self.num_segments, rows.shape[1]), np.int64)
            np.add.at(ties, flat[keep], hit[keep].astype(np.int64))
            grad = np.where(hit, douts / np.maximum(ties[at], 1), 0)
        return np.where(keep[:, None], grad, 0).astype(x.dtype).reshape(x.shape)


def _others_product(rows: np.ndarray, at: np.ndarray, keep: np.ndarray, num: int) -> np.ndarray:
    """Per entry, the product of the other entries of its segment (exact with zeros)."""
    zero = rows == 0
    nonzero = np.where(zero, 1, rows)
    prod = np.ones((num, rows.shape[1]), rows.dtype)
    zeros = np.zeros((num, rows.shape[1]), np.int64)
    np.multiply.at(prod, at[keep], nonzero[keep])
    np.add.at(zeros, at[keep], zero[keep].astype(np.int64))
    prod, zeros = prod[at], zeros[at]
    return np.where(zero, np.where(zeros == 1, prod, 0), np.where(zeros == 0, prod / nonzero, 0))


def _segment(kind: str, op: str, x: Any, segment_ids: Any, num_segments: Any) -> Any:
    try:
        ids = _as_index_tensor(segment_ids)
    except TypeError as error:
        raise argument_error(op, error) from None
    data = getattr(num_segments, "_data", num_segments)
    if not isinstance(data, np.ndarray | np.generic | int):
        raise argument_error(op, RuntimeError(
            "num_segments decides the output's shape: pass an int (graph mode cannot read a "
            "traced tensor's value)"))
    return UnsortedSegment(kind, int(np.asarray(data)))(x, ids)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    return _segment("sum", "unsorted_segment_sum", input_x, segment_ids, num_segments)


def unsorted_segment_prod(x, segment_ids, num_segments):
    return _segment("prod", "unsorted_segment_prod", x, segment_ids, num_segments)


def unsorted_segment_max(x, segment_ids, num_segments):
    return _segment("max", "unsorted_segment_max", x, segment_ids, num_segments)


def unsorted_segment_min(x, segment_ids, num_segments):
    return _segment("min", "unsorted_segment_min", x, segment_ids, num_segments)
