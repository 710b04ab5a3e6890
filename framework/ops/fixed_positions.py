"""Reads and writes at positions fixed by shapes and attributes: diagonals, slices, rows.

Each function finds, on the host, the flat positions it reads or writes (NumPy's own
``diagonal`` / slicing of an ``arange`` shaped like the tensor), then gathers
(``diagonal``) or scatters (``*_scatter``, ``diag_embed``, ``inplace_*``) there with the
``Gather``/``ScatterUpdate``/``IndexAdd`` primitives, so both modes and the gradients are
theirs. ``index_fill`` takes its positions from a tensor (a mask built with framework ops).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error, one_dim
from .creation import zeros
from .elementwise import cast, equal, neg, select
from .reduce import reduce_any
from .scatter_gather import gather, index_add, scatter_update
from .shape_ops import broadcast_to, reshape, stop_gradient


def _tensor(array: Any) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _grid(shape: tuple[int, ...]) -> np.ndarray:
    """The flat position of every element of a tensor of ``shape``."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def _write(op: str, x: Any, positions: np.ndarray, src: Any) -> Any:
    """A copy of ``x`` with ``src`` (shaped like ``positions``) written at the positions."""
    if tuple(src.shape) != positions.shape:
        raise argument_error(op, ValueError(
            f"src of shape {tuple(src.shape)} must have shape {positions.shape} (the part of "
            f"the input of shape {tuple(x.shape)} it replaces)"))
    flat = scatter_update(reshape(x, (-1,)), _tensor(positions.reshape(-1)), reshape(src, (-1,)))
    return reshape(flat, tuple(x.shape))


def _diagonal_positions(op: str, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> np.ndarray:
    a, b = one_dim(op, dim1, len(shape)), one_dim(op, dim2, len(shape))
    if a == b:
        raise argument_error(op, ValueError(f"dim1 and dim2 must differ, got {dim1} and {dim2}"))
    return np.diagonal(_grid(shape), int(offset), a, b)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002  (MindSpore's names)
    """The diagonal ``offset`` of the planes ``(dim1, dim2)``, as the last axis."""
    positions = _diagonal_positions("diagonal", tuple(input.shape), offset, dim1, dim2)
    return gather(reshape(input, (-1,)), _tensor(positions), 0)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A copy of ``input`` whose diagonal (as ``diagonal`` reads it) is ``src``."""
    positions = _diagonal_positions("diagonal_scatter", tuple(input.shape), offset, dim1, dim2)
    return _write("diagonal_scatter", input, positions, src)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Zeros with the last axis of ``input`` on the diagonal ``offset`` of the planes
    ``(dim1, dim2)`` of the result (one axis more than ``input``)."""
    ndim = len(input.shape) + 1
    a, b = one_dim("diag_embed", dim1, ndim), one_dim("diag_embed", dim2, ndim)
    if a == b:
        raise argument_error("diag_embed", ValueError(f"dim1 and dim2 must differ, got {dim1} and {dim2}"))
    if not input.shape:
        raise argument_error("diag_embed", ValueError("input must have at least one axis"))
    size = input.shape[-1] + abs(int(offset))
    batch = iter(input.shape[:-1])
    shape = tuple(size if d in (a, b) else next(batch) for d in range(ndim))
    positions = np.diagonal(_grid(shape), int(offset), a, b)
    return _write("diag_embed", zeros(shape, input.dtype), positions, input)


def select_scatter(input, src, axis, index):  # noqa: A002
    """A copy of ``input`` whose entry ``index`` along ``axis`` is ``src``."""
    ax = one_dim("select_scatter", axis, len(input.shape))
    size = input.shape[ax]
    if not -size <= int(index) < size:
        raise argument_error("select_scatter", IndexError(
            f"index {index} is out of range for axis {axis} of size {size}"))
    positions = np.take(_grid(tuple(input.shape)), int(index), ax)
    return _write("select_scatter", input, positions, src)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002
    """A copy of ``input`` whose slice ``start:end:step`` along ``axis`` is ``src``."""
    ax = one_dim("slice_scatter", axis, len(input.shape))
    where = (slice(None),) * ax + (slice(start, end, step),)
    return _write("slice_scatter", input, _grid(tuple(input.shape))[where], src)


def _rows(op: str, indices: Any) -> Any:
    if isinstance(indices, Tensor):
        return reshape(indices, (-1,))
    rows = np.asarray(indices).reshape(-1)
    if rows.dtype.kind not in "iu":
        raise argument_error(op, TypeError(f"indices must be an int or a tuple of ints, got {indices!r}"))
    return _tensor(rows.astype(np.int32))


def inplace_update(x, v, indices):
    """A copy of ``x`` with rows ``indices`` (an int, a tuple of ints, or a tensor) set to ``v``."""
    return scatter_update(x, _rows("inplace_update", indices), v)


def inplace_add(x, v, indices):
    """A copy of ``x`` with ``v`` added to rows ``indices`` (repeats accumulate)."""
    return index_add(x, _rows("inplace_add", indices), v, 0)


def inplace_sub(x, v, indices):
    """A copy of ``x`` with ``v`` subtracted from rows ``indices`` (repeats accumulate)."""
    return index_add(x, _rows("inplace_sub", indices), neg(v), 0)


def inplace_index_add(var, indices, updates, axis):
    """``updates`` added to ``var`` at ``indices`` along ``axis``; a Parameter is updated."""
    return index_add(var, _rows("inplace_index_add", indices), updates, axis)


def index_fill(x, axis, index, value):
    """A copy of ``x`` with the entries at ``index`` along ``axis`` set to ``value`` (a
    number or a 0-d tensor, which gets no gradient, as in MindSpore)."""
    ax = one_dim("index_fill", int(axis), len(x.shape))
    size = x.shape[ax] if x.shape else 1
    index = _rows("index_fill", index)
    index = cast(index, mstype.int64)
    index = select(index < 0, index + size, index)
    hit = reduce_any(equal(reshape(index, (-1, 1)), _tensor(np.arange(size)[None, :])), 0)
    shape = [1] * len(x.shape)
    if shape:
        shape[ax] = size
    hit = broadcast_to(reshape(hit, tuple(shape)), tuple(x.shape))
    if not isinstance(value, Tensor):
        value = Tensor(np.asarray(value, mstype.to_np(x.dtype)))
    elif value.dtype != x.dtype:
        value = cast(value, x.dtype)
    return select(hit, broadcast_to(stop_gradient(value), tuple(x.shape)), x)
