"""Ops whose output shape depends on the input's values: ``masked_select``, ``nonzero`` /
``argwhere``, ``unique``, ``unique_consecutive`` (and ``is_nonzero``, a Python bool).

The positions they pick are found on the host by a NumPy function, then the values are
read with ``Gather``, so gradients flow to the input (MindSpore's ``masked_select`` has
that gradient; ours also differentiates ``unique`` and ``unique_consecutive``). In graph
mode a traced input whose values decide the shape splits the compiled function there
(:mod:`framework.ops.host_split`); a constant mask needs no split.

Conventions (MindSpore 2.10's): indices are int64 (``nonzero``, ``unique_consecutive``'s
inverse and counts) except ``unique``'s inverse, int32; ``unique`` keeps the order of
first appearance (it does not sort).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error, one_dim
from .host_split import host_computed
from .scatter_gather import gather
from .segment import unsorted_segment_sum
from .shape_ops import broadcast_to, reshape


def _values(op: str, tensor: Any) -> np.ndarray:
    data = getattr(tensor, "_data", tensor)
    if not isinstance(data, np.ndarray | np.generic | int | float | bool):
        raise argument_error(op, RuntimeError(
            "its output shape depends on the input values, which graph mode (jit) cannot "
            "compile; call it in PyNative mode (set_context(mode=PYNATIVE_MODE), or without "
            "ms.jit)"))
    return np.asarray(data)


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _as_tensor(value: Any) -> Any:
    return value if isinstance(value, Tensor) else Tensor(np.asarray(value))


def masked_select(input, mask):  # noqa: A002  (MindSpore's names)
    """The elements of ``input`` where ``mask`` (broadcast with it) holds, as a 1-d tensor."""
    mask = _as_tensor(mask)
    if np.dtype(mask._data.dtype) != np.bool_:
        raise argument_error("masked_select", TypeError(
            f"mask must be a bool tensor, got {mask._data.dtype}"))
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except ValueError:
        raise argument_error("masked_select", ValueError(
            f"mask of shape {tuple(mask.shape)} cannot be broadcast with input of shape "
            f"{tuple(input.shape)}")) from None
    (flat,) = host_computed(
        "masked_select", lambda m: (np.flatnonzero(np.broadcast_to(m, shape)).astype(np.int64),), mask)
    return gather(reshape(broadcast_to(input, shape), (-1,)), flat, 0)


def _coordinates(op: str, input: Any) -> int:  # noqa: A002
    ndim = len(input.shape)
    if ndim == 0:
        raise argument_error(op, ValueError("input must have at least one axis, got a 0-d tensor"))
    return ndim


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """The int64 coordinates of the nonzero elements: ``(count, ndim)``, or a tuple of
    ``ndim`` 1-d tensors with ``as_tuple``."""
    ndim = _coordinates("nonzero", _as_tensor(input))
    if as_tuple:
        return host_computed("nonzero", lambda a: [c.astype(np.int64) for c in np.nonzero(a)], input)
    return host_computed("nonzero", lambda a: (
        np.stack(np.nonzero(a), -1).astype(np.int64).reshape(-1, ndim),), input)[0]


def argwhere(input):  # noqa: A002
    """``nonzero(input)``: the int64 coordinates of the nonzero elements."""
    _coordinates("argwhere", _as_tensor(input))
    return host_computed("argwhere", lambda a: (np.argwhere(a).astype(np.int64),), input)[0]


def _unique_positions(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct value's first position, in order of first appearance, and each
    element's position among them (int32, shaped like ``a``)."""
    _, first, inverse = np.unique(a.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted values -> order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order].astype(np.int64), rank[inverse.reshape(-1)].reshape(a.shape).astype(np.int32)


def unique(input):  # noqa: A002
    """``(output, idx)``: the distinct elements in order of first appearance and, shaped
    like ``input``, each element's position in ``output`` (int32)."""
    first, inverse = host_computed("unique", _unique_positions, input)
    return gather(reshape(input, (-1,)), first, 0), inverse


def _runs(axis: int | None, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each run of equal consecutive elements (slices along ``axis``; of the flattened
    array when None) starts, each element's run and each run's length (int64)."""
    rows = a.reshape(-1, 1) if axis is None else \
        np.moveaxis(a, axis, 0).reshape(a.shape[axis] if a.ndim else 1, -1)
    starts = np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1))) if len(rows) else \
        np.zeros(0, bool)
    first = np.flatnonzero(starts)
    inverse = (np.cumsum(starts) - 1).astype(np.int64)
    return (first.astype(np.int64), inverse.reshape(a.shape) if axis is None else inverse,
            np.diff(np.append(first, len(rows))).astype(np.int64))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Each run of equal consecutive elements (slices along ``dim``; of the flattened
    input when ``dim`` is None) kept once; with the int64 inverse and run lengths on request."""
    x, axis = (reshape(input, (-1,)), None) if dim is None else \
        (input, one_dim("unique_consecutive", dim, len(input.shape)))
    first, inverse, counts = host_computed("unique_consecutive", lambda a: _runs(axis, a), input)
    output = gather(x, first, 0 if axis is None else axis)
    if not (return_inverse or return_counts):
        return output
    return tuple([output] + ([inverse] if return_inverse else []) + ([counts] if return_counts else []))


def is_nonzero(input):  # noqa: A002
    """Whether the one element of ``input`` is nonzero (a Python bool)."""
    a = _values("is_nonzero", input)
    if a.size != 1:
        raise argument_error("is_nonzero", ValueError(f"input must have one element, got {a.size}"))
    return bool(a.reshape(-1)[0])



def coalesce(x_indices, x_values, x_shape):
    """A COO tensor's entries with repeated indices summed and the indices sorted:
    ``(indices (ndim, count), values (count,), shape)``, int64 indices and shape."""
    indices = _values("coalesce", x_indices)
    shape = tuple(int(d) for d in _values("coalesce", x_shape).reshape(-1))
    if indices.ndim != 2 or indices.shape[0] != len(shape) or indices.shape[1] != x_values.shape[0]:
        raise argument_error("coalesce", ValueError(
            f"x_indices must be (ndim={len(shape)}, nnz={x_values.shape[0]}), got {indices.shape}"))
    if ((indices < 0) | (indices >= np.array(shape)[:, None])).any():
        raise argument_error("coalesce", IndexError(f"x_indices lie outside x_shape {shape}"))
    flat = np.ravel_multi_index(tuple(indices), shape)
    unique_flat, inverse = np.unique(flat, return_inverse=True)
    values = unsorted_segment_sum(x_values, _tensor(inverse.reshape(-1).astype(np.int64)), unique_flat.size)
    coords = np.stack(np.unravel_index(unique_flat, shape)).astype(np.int64).reshape(len(shape), -1)
    return _tensor(coords), values, _tensor(np.asarray(shape, np.int64))
