"""N-d scatters: ``TensorScatter(mode)(x, indices, updates)``.

``indices`` of shape ``(..., K)`` names ``x[i_1, ..., i_K]`` (a slice of ``x.shape[K:]``)
per leading position; ``updates`` has shape ``indices.shape[:-1] + x.shape[K:]``. The
result is a copy of ``x`` with each update written (``mode='update'``; of repeated
positions, which wins is unspecified) or added (``'add'``, repeats accumulating). Indices
must lie in ``[0, x.shape[k])`` (MindSpore refuses negative ones too).

MindSpore's names on it: ``tensor_scatter_update``/``tensor_scatter_add`` (functional),
``scatter_nd_update``/``scatter_nd_add`` (given a Parameter they update it and return it,
MindSpore's in-place form), and ``scatter_add`` (rows along axis 0, ``IndexAdd``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..parameter import Parameter
from ..primitive import Primitive, Spec, shape_str
from ._utils import argument_error
from .model_zoo_ops import gather_nd
from .scatter_gather import _as_index_tensor, index_add
from .shape_ops import zeros_like

MODES = ("update", "add")


def _positions(op: str, x: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, ...]:
    depth = indices.shape[-1]
    bounds = np.array(x.shape[:depth])
    bad = (indices < 0) | (indices >= bounds)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0][:-1])
        raise IndexError(f"{op}: indices{list(where)} = {indices[where].tolist()} is out of range "
                         f"for an input of shape {shape_str(x.shape)}")
    return tuple(np.moveaxis(indices, -1, 0))


class TensorScatter(Primitive):
    """``TensorScatter(mode)(x, indices, updates)``: see the module docstring."""

    def __init__(self, mode: str = "update") -> None:
        if mode not in MODES:
            raise ValueError(f"TensorScatter: mode must be one of {MODES}, got {mode!r}")
        super().__init__(mode=mode)

    def infer(self, x: Any, indices: Any, updates: Any) -> Spec:
        op = f"TensorScatter{self.mode.capitalize()}"
        if np.dtype(indices.dtype).kind not in "iu":
            raise TypeError(f"{op}: indices must be an integer tensor, got {indices.dtype}")
        ishape = tuple(indices.shape)
        if not ishape or not 1 <= ishape[-1] <= len(x.shape):
            raise ValueError(f"{op}: indices' last axis must be 1..{len(x.shape)} (the input's "
                             f"rank), got indices of shape {shape_str(ishape)}")
        want = ishape[:-1] + tuple(x.shape[ishape[-1]:])
        if tuple(updates.shape) != want:
            raise ValueError(f"{op}: updates of shape {shape_str(updates.shape)} must have shape "
                             f"{shape_str(want)} (input {shape_str(x.shape)}, indices "
                             f"{shape_str(ishape)})")
        if np.dtype(updates.dtype) != np.dtype(x.dtype):
            raise TypeError(f"{op}: updates ({updates.dtype}) must have the input's dtype "
                            f"({x.dtype})")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, indices, updates):
        where = _positions(f"TensorScatter{self.mode.capitalize()}", x, indices)
        out = np.array(x, copy=True)
        if self.mode == "add":
            np.add.at(out, where, updates)
        else:
            out[where] = updates
        return out

    def bprop(self, x, indices, updates, *, out, dout, needs):
        dx = dout
        if self.mode == "update" and needs[0]:  # the overwritten entries get none
            dx = TensorScatter("update")(dout, indices, zeros_like(updates))
        return dx, None, (gather_nd(dout, indices) if needs[2] else None)


def _scatter(op: str, mode: str, x: Any, indices: Any, updates: Any) -> Any:
    try:
        indices = _as_index_tensor(indices)
    except TypeError as error:
        raise argument_error(op, error) from None
    return TensorScatter(mode)(x, indices, updates)


def _in_place(x: Any, result: Any) -> Any:
    return x.set_data(result) if isinstance(x, Parameter) else result


def tensor_scatter_update(input_x, indices, updates):
    """MindSpore's ``ops.tensor_scatter_update``: a copy with the updates written."""
    return _scatter("tensor_scatter_update", "update", input_x, indices, updates)


def tensor_scatter_add(input_x, indices, updates):
    """MindSpore's ``ops.tensor_scatter_add``: a copy with the updates added."""
    return _scatter("tensor_scatter_add", "add", input_x, indices, updates)


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """MindSpore's ``ops.scatter_nd_update``: a Parameter is updated and returned."""
    return _in_place(input_x, _scatter("scatter_nd_update", "update", input_x, indices, updates))


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """MindSpore's ``ops.scatter_nd_add``: a Parameter is updated and returned."""
    return _in_place(input_x, _scatter("scatter_nd_add", "add", input_x, indices, updates))


def scatter_add(input_x, indices, updates):
    """MindSpore's ``ops.scatter_add``: ``updates`` (``indices.shape + input_x.shape[1:]``)
    added to rows of ``input_x`` (repeats accumulate); a Parameter is updated and returned."""
    return index_add(input_x, indices, updates, 0)
