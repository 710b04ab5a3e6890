"""Index primitives: Gather (read at integer indices), IndexAdd (its gradient), ScatterUpdate.

Indices are integer tensors of any shape; negative indices count from the end of the
axis. Out-of-range indices stop with one line naming the op, the value and the user's
line in both modes: the NumPy kernels check them, and graph mode traces a range check
next to each Gather (``range_check.py``); the TVM lowerings also clip (no out-of-bounds
memory access on the device).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import parameter as _parameter
from ..common.tensor import Tensor
from ..errors import user_location, with_location
from ..interpreters import is_tracing
from ..primitive import Primitive, Spec, shape_str
from ._class_form import class_form
from ._utils import normalize_axis
from .elementwise import cast, mul
from .range_check import check_range, worst
from .reduce import reduce_sum
from .shape_ops import reshape, zeros_like


def _check_indices(op: str, indices: Any) -> None:
    if np.dtype(indices.dtype).kind not in "iu":
        raise TypeError(f"indices must be an integer tensor, got {indices.dtype}")


def _out_of_bounds(op: str, dim: int, axis: int) -> Any:
    """The message of an out-of-range index (both modes; ``range_check`` picks the value)."""
    location = user_location()
    return lambda bad: with_location(
        f"{op}: index {bad} is out of bounds for axis {axis} of size {dim}", location)


def _normalized(op: str, indices: np.ndarray, dim: int, axis: int) -> np.ndarray:
    """Negative indices wrapped once; out-of-range ones stop with one clear line."""
    bad = worst(indices, -dim, dim)
    if bad is not None:
        raise IndexError(_out_of_bounds(op, dim, axis)(bad))
    return np.where(indices < 0, indices + dim, indices)


def _as_index_tensor(indices: Any) -> Any:
    if isinstance(indices, Tensor):
        return indices
    array = np.asarray(indices)
    if array.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers, got {array.dtype}")
    return Tensor(array)


def gathered_shape(x_shape: tuple, idx_shape: tuple, axis: int) -> tuple[int, ...]:
    return tuple(x_shape[:axis]) + tuple(idx_shape) + tuple(x_shape[axis + 1:])


class Gather(Primitive):
    """``Gather()(x, indices, axis)``: ``x`` along ``axis`` at ``indices``; the axis is
    replaced by the indices' axes (a 0-d index removes it)."""

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=int(axis))

    def __call__(self, x: Any, indices: Any, axis: Any = None) -> Any:
        prim = self if axis is None else Gather(int(axis))
        indices = _as_index_tensor(indices)
        if is_tracing() and len(x.shape):  # graph mode checks the range too (ops/range_check.py)
            ax = normalize_axis(prim.axis, len(x.shape))
            check_range(indices, -x.shape[ax], x.shape[ax], _out_of_bounds(prim.name, x.shape[ax], ax))
        return Primitive.__call__(prim, x, indices)

    def infer(self, x: Any, indices: Any) -> Spec:
        _check_indices(self.name, indices)
        axis = normalize_axis(self.axis, len(x.shape))
        return Spec(gathered_shape(x.shape, indices.shape, axis), x.dtype)

    def kernel(self, x, indices):
        axis = normalize_axis(self.axis, x.ndim)
        return np.take(x, _normalized(self.name, indices, x.shape[axis], axis), axis=axis)

    def bprop(self, x, indices, *, out, dout, needs):
        if dout.dtype != x.dtype:  # a wider cotangent (e.g. float64 from a mixed product)
            dout = cast(dout, x.dtype)
        return index_add(zeros_like(x), indices, dout, self.axis), None


def _add_rows(out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    """``out[index[k]] += rows[k]`` for every k, repeats accumulating: the rows sorted by
    index (stably), each run summed by one ``np.add.reduceat``, each sum added once. About
    4x faster than ``np.add.at`` (an embedding's gradient: 2048 rows of 256 into 65); the
    sums are taken in another order, so they may differ from it in the last bits."""
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    out[ordered[starts]] += np.add.reduceat(rows[order], starts, axis=0)


class IndexAdd(Primitive):
    """``IndexAdd(axis)(x, indices, y)``: ``x`` with ``y`` added at ``indices`` along
    ``axis`` (repeated indices accumulate); ``y`` has Gather's output shape. Given a
    Parameter it updates the Parameter and returns it (MindSpore's in-place form)."""

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=int(axis))

    def __call__(self, x: Any, indices: Any, y: Any) -> Any:
        result = Primitive.__call__(self, x, _as_index_tensor(indices), y)
        return x.set_data(result) if isinstance(x, _parameter.Parameter) else result

    def infer(self, x: Any, indices: Any, y: Any) -> Spec:
        _check_indices(self.name, indices)
        axis = normalize_axis(self.axis, len(x.shape))
        want = gathered_shape(x.shape, indices.shape, axis)
        if tuple(y.shape) != want:
            raise ValueError(f"y of shape {shape_str(y.shape)} must have shape {shape_str(want)} "
                             f"(x {shape_str(x.shape)}, indices {shape_str(indices.shape)})")
        if np.dtype(y.dtype) != np.dtype(x.dtype):
            raise TypeError(f"y ({y.dtype}) must have x's dtype ({x.dtype})")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, indices, y):
        axis = normalize_axis(self.axis, x.ndim)
        out = np.array(x, copy=True)
        index = _normalized(self.name, indices, x.shape[axis], axis)
        if axis == 0 and index.size:
            _add_rows(out, index.reshape(-1), y.reshape((index.size,) + out.shape[1:]))
        else:
            np.add.at(out, (slice(None),) * axis + (index,), y)
        return out

    def bprop(self, x, indices, y, *, out, dout, needs):
        return dout, None, (gather(dout, indices, self.axis) if needs[2] else None)


class ScatterUpdate(Primitive):
    """``ScatterUpdate()(x, indices, updates)``: ``x`` with rows ``x[indices]`` (axis 0)
    replaced by ``updates`` of shape ``indices.shape + x.shape[1:]``.

    Functional on Tensors; given a Parameter it updates the Parameter and returns it
    (MindSpore's in-place form). Repeated indices: which update wins is unspecified.
    """

    def __call__(self, x: Any, indices: Any, updates: Any) -> Any:
        result = Primitive.__call__(self, x, _as_index_tensor(indices), updates)
        if isinstance(x, _parameter.Parameter):
            return x.set_data(result)
        return result

    def infer(self, x: Any, indices: Any, updates: Any) -> Spec:
        _check_indices(self.name, indices)
        if not x.shape:
            raise ValueError("x must have at least one axis")
        want = tuple(indices.shape) + tuple(x.shape[1:])
        if tuple(updates.shape) != want:
            raise ValueError(f"updates of shape {shape_str(updates.shape)} must have shape "
                             f"{shape_str(want)} (x {shape_str(x.shape)}, indices "
                             f"{shape_str(indices.shape)})")
        if np.dtype(updates.dtype) != np.dtype(x.dtype):
            raise TypeError(f"updates ({updates.dtype}) must have x's dtype ({x.dtype})")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, indices, updates):
        out = np.array(x, copy=True)
        out[_normalized(self.name, indices, x.shape[0], 0)] = updates
        return out

    def bprop(self, x, indices, updates, *, out, dout, needs):
        zeros = zeros_like(updates)
        zeros = zeros if zeros.dtype == dout.dtype else cast(zeros, dout.dtype)
        dx = scatter_update(dout, indices, zeros) if needs[0] else None
        dupdates = gather(dout, indices, 0) if needs[2] else None
        return dx, None, dupdates


_SCATTER_UPDATE = ScatterUpdate()


def gather(x, indices, axis=0):
    """MindSpore's ``ops.gather(input_params, input_indices, axis)``."""
    return Gather(axis)(x, indices)


def index_add(x, indices, y, axis=0):
    return IndexAdd(axis)(x, indices, y)


def scatter_update(x, indices, updates):
    return _SCATTER_UPDATE(x, indices, updates)


def scatter_nd(indices, updates, shape):
    """MindSpore's ``ops.scatter_nd(indices, updates, shape)``: zeros of ``shape`` with each
    ``updates[i...]`` added at the position ``indices[i...]`` (its last axis, ``K`` long,
    indexes the first ``K`` axes; repeated positions accumulate). An ``IndexAdd`` on the
    row-major position, so both modes and the gradient (``gather`` of ``dout`` for the
    updates) follow it. ``shape`` is a tuple of ints (a list or Tensor is a TypeError, as MindSpore's);
    positions out of range are a RuntimeError (checked in PyNative, as MindSpore's kernel)."""
    op = "ScatterNd"
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d > 0 for d in shape):
        raise TypeError(f"{op}: shape must be a tuple of positive ints (not a list or Tensor, as "
                        f"MindSpore's), got {shape!r}")
    indices = _as_index_tensor(indices)
    shape, ishape = tuple(shape), tuple(indices.shape)
    depth = ishape[-1] if ishape else 0
    if not 1 <= depth <= len(shape):
        raise ValueError(f"{op}: indices' last axis must be 1..{len(shape)} (the rank of shape), "
                         f"got indices of shape {shape_str(ishape)}")
    want = ishape[:-1] + shape[depth:]
    if tuple(updates.shape) != want:
        raise ValueError(f"{op}: updates must have shape {shape_str(want)} (indices "
                         f"{shape_str(ishape)}, shape {shape_str(shape)}), got {shape_str(updates.shape)}")
    values = indices._data
    if isinstance(values, np.ndarray) and values.size:  # concrete (PyNative)
        if (values < 0).any() or (values >= np.array(shape[:depth])).any():
            raise RuntimeError(f"{op}: indices {values.tolist()} are out of range for shape {shape}")
    strides = np.cumprod((shape[1:depth] + (1,))[::-1])[::-1].astype(mstype.to_np(indices.dtype))
    position = reduce_sum(mul(indices, strides), -1) if depth > 1 else reshape(indices, ishape[:-1])
    rows = int(np.prod(shape[:depth]))
    zeros = np.zeros((rows,) + shape[depth:], mstype.to_np(updates.dtype))
    flat_updates = reshape(updates, (int(np.prod(ishape[:-1], dtype=np.int64)),) + shape[depth:])
    out = IndexAdd(0)(zeros, reshape(cast(position, indices.dtype), (-1,)), flat_updates)
    return reshape(out, shape)


ScatterNd = class_form("ScatterNd", scatter_nd)  # P.ScatterNd()(indices, updates, shape)
