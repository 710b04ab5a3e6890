"""MindSpore's backward primitives of ops that select entries (``G.SparseSliceGrad``,
``G.UniqueGrad``): each routes the output's gradient back to the entries it was selected
from, so it is linear in the gradient (both modes, differentiable).

- ``SparseSliceGrad()(backprop_val_grad, indices, start, new_indices)``: ``SparseSlice``
  kept the entries of a sparse tensor (``indices``, (N, R)) inside a box starting at
  ``start`` and renumbered them (``new_indices``, (M, R), ``indices - start``); entry ``i``
  of the gradient, (N,), is ``backprop_val_grad[j]`` where ``new_indices[j] == indices[i] -
  start`` and 0 for an entry sliced away. The matching (a 0/1 (N, M) matrix, a primitive of
  its own on int64 indices) times the gradient, summed, gives it.
- ``UniqueGrad()(dout, out)``: ``dout = (dy, _)`` the gradients of ``Unique``'s ``(y,
  idx)``, ``out = (y, idx)`` its outputs; ``x[k]`` is ``y[idx[k]]``, so its gradient is
  ``dy[idx[k]]`` (a gather, ``idx``'s shape and ``dy``'s dtype).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec
from .elementwise import mul
from .reduce import reduce_sum
from .scatter_gather import gather
from .shape_ops import reshape


def _check_indices(indices: Any, start: Any, new_indices: Any, dtype_of: Any, int64: bool = True) -> None:
    """MindSpore's checks (int64 positions; the matching primitive takes any integers, as graph
    mode may hold them in int32)."""
    for name, t, rank in (("indices", indices, 2), ("start", start, 1), ("new_indices", new_indices, 2)):
        if dtype_of(t) != np.int64 if int64 else dtype_of(t).kind not in "iu":
            wanted = "int64" if int64 else "integers"
            raise TypeError(f"SparseSliceGrad: {name} must be {wanted}, got {dtype_of(t)}")
        if len(t.shape) != rank:
            raise ValueError(f"SparseSliceGrad: {name} must be {rank}-D, got shape {tuple(t.shape)}")
    if not indices.shape[1] == start.shape[0] == new_indices.shape[1]:
        raise ValueError(f"SparseSliceGrad: indices {tuple(indices.shape)}, start {tuple(start.shape)} "
                         f"and new_indices {tuple(new_indices.shape)} must have one rank R")


class SparseSliceMatches(Primitive):
    """SparseSliceGrad's matching, ``(indices (N, R), start (R,), new_indices (M, R))`` -> the
    (N, M) matrix, in ``dtype``, with 1 where ``indices[i] - start == new_indices[j]`` (not
    differentiable: positions)."""

    differentiable = False

    def __init__(self, dtype: Any = np.float32) -> None:
        super().__init__(dtype=np.dtype(dtype))

    def infer(self, indices: Any, start: Any, new_indices: Any) -> Spec:
        _check_indices(indices, start, new_indices, lambda t: np.dtype(t.dtype), int64=False)
        return Spec((indices.shape[0], new_indices.shape[0]), self.dtype)

    def kernel(self, indices, start, new_indices):
        shifted = indices - start
        return (shifted[:, None, :] == new_indices[None, :, :]).all(-1).astype(self.dtype)


class SparseSliceGrad:
    """``SparseSliceGrad()(backprop_val_grad, indices, start, new_indices)``: see the module
    docstring."""

    def __call__(self, backprop_val_grad: Any, indices: Any, start: Any, new_indices: Any) -> Any:
        _check_indices(indices, start, new_indices, lambda t: np.dtype(t.dtype.np))
        if len(backprop_val_grad.shape) != 1 or backprop_val_grad.shape[0] != new_indices.shape[0]:
            raise ValueError(f"SparseSliceGrad: backprop_val_grad must be 1-D with new_indices' "
                             f"{new_indices.shape[0]} entries, got shape {tuple(backprop_val_grad.shape)}")
        matches = SparseSliceMatches(backprop_val_grad.dtype.np)(indices, start, new_indices)
        return reduce_sum(mul(matches, reshape(backprop_val_grad, (1, -1))), (1,))


class UniqueGrad:
    """``UniqueGrad()(dout, out)``: see the module docstring."""

    def __call__(self, dout: Any, out: Any) -> Any:
        if len(dout) != 2 or len(out) != 2:
            raise ValueError("UniqueGrad: dout and out must be Unique's (y, idx) pairs")
        dy, idx = dout[0], out[1]
        if len(dy.shape) != 1 or len(idx.shape) != 1:
            raise ValueError(f"UniqueGrad: y's gradient and idx must be 1-D, got shapes {tuple(dy.shape)} "
                             f"and {tuple(idx.shape)}")
        return gather(dy, idx, 0)


__all__ = ["SparseSliceGrad", "SparseSliceMatches", "UniqueGrad"]
