"""Ops whose output shape depends on the input's values: ``masked_select``, ``nonzero`` /
``argwhere``, ``unique``, ``unique_consecutive`` (and ``is_nonzero``, a Python bool).

The positions they pick are found on the host from concrete values, then the values are
read with ``Gather``, so gradients flow to the input (MindSpore's ``masked_select`` has
that gradient; ours also differentiates ``unique`` and ``unique_consecutive``). A traced
input whose values decide the shape (graph mode, ``jit``) stops with one line: such ops
need PyNative (MindSpore compiles them as dynamic shapes, which our graphs do not have).
``masked_select`` needs only its mask concrete, so a constant mask compiles.

Conventions (MindSpore 2.10's): indices are int64 (``nonzero``, ``unique_consecutive``'s
inverse and counts) except ``unique``'s inverse, int32; ``unique`` keeps the order of
first appearance (it does not sort).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error, one_dim
from .scatter_gather import gather
from .segment import unsorted_segment_sum
from .shape_ops import broadcast_to, reshape


def _values(op: str, tensor: Any) -> np.ndarray:
    data = getattr(tensor, "_data", tensor)
    if not isinstance(data, np.ndarray | np.generic | int | float | bool):
        raise argument_error(op, RuntimeError(
            "its output shape depends on the input values, which graph mode (jit) cannot "
            "compile; call it in PyNative mode (outside the compiled Cell)"))
    return np.asarray(data)


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))


def masked_select(input, mask):  # noqa: A002  (MindSpore's names)
    """The elements of ``input`` where ``mask`` (broadcast with it) holds, as a 1-d tensor."""
    m = _values("masked_select", mask)
    if m.dtype != np.bool_:
        raise argument_error("masked_select", TypeError(f"mask must be a bool tensor, got {m.dtype}"))
    try:
        shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    except ValueError:
        raise argument_error("masked_select", ValueError(
            f"mask of shape {m.shape} cannot be broadcast with input of shape "
            f"{tuple(input.shape)}")) from None
    (flat,) = np.nonzero(np.broadcast_to(m, shape).reshape(-1))
    return gather(reshape(broadcast_to(input, shape), (-1,)), _tensor(flat.astype(np.int64)), 0)


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """The int64 coordinates of the nonzero elements: ``(count, ndim)``, or a tuple of
    ``ndim`` 1-d tensors with ``as_tuple``."""
    a = _values("nonzero", input)
    if a.ndim == 0:
        raise argument_error("nonzero", ValueError("input must have at least one axis, got a 0-d tensor"))
    coords = np.nonzero(a)
    if as_tuple:
        return tuple(_tensor(c.astype(np.int64)) for c in coords)
    return _tensor(np.stack(coords, -1).astype(np.int64).reshape(-1, a.ndim))


def argwhere(input):  # noqa: A002
    """``nonzero(input)``: the int64 coordinates of the nonzero elements."""
    a = _values("argwhere", input)
    if a.ndim == 0:
        raise argument_error("argwhere", ValueError("input must have at least one axis, got a 0-d tensor"))
    return _tensor(np.argwhere(a).astype(np.int64))


def unique(input):  # noqa: A002
    """``(output, idx)``: the distinct elements in order of first appearance and, shaped
    like ``input``, each element's position in ``output`` (int32)."""
    a = _values("unique", input).reshape(-1)
    _, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted values -> order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    output = gather(reshape(input, (-1,)), _tensor(first[order].astype(np.int64)), 0)
    return output, _tensor(rank[inverse.reshape(-1)].reshape(tuple(input.shape)).astype(np.int32))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Each run of equal consecutive elements (slices along ``dim``; of the flattened
    input when ``dim`` is None) kept once; with the int64 inverse and run lengths on request."""
    a = _values("unique_consecutive", input)
    x = input
    if dim is None:
        a, x = a.reshape(-1), reshape(input, (-1,))
        axis = 0
    else:
        axis = one_dim("unique_consecutive", dim, a.ndim)
    rows = np.moveaxis(a, axis, 0).reshape(a.shape[axis] if a.ndim else 1, -1)
    starts = np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1))) if len(rows) else \
        np.zeros(0, bool)
    first = np.flatnonzero(starts)
    output = gather(x, _tensor(first.astype(np.int64)), axis)
    if not (return_inverse or return_counts):
        return output
    result = [output]
    if return_inverse:
        inverse = (np.cumsum(starts) - 1).astype(np.int64)
        result.append(_tensor(inverse.reshape(tuple(input.shape)) if dim is None else inverse))
    if return_counts:
        result.append(_tensor(np.diff(np.append(first, len(rows))).astype(np.int64)))
    return tuple(result)


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
