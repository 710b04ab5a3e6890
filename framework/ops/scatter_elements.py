"""Element-wise indexing along one axis: ``GatherElements`` and ``ScatterElements``.

``index`` has the input's rank; along ``axis`` it holds positions (negative ones count
from the end), along every other axis ``d`` it covers the first ``index.shape[d]``
entries (``index.shape[d] <= input.shape[d]``, as MindSpore's ``GatherD``):

- ``GatherElements(axis)(x, index)[i][j] = x[index[i][j]][j]`` for ``axis=0``;
- ``ScatterElements(axis, reduction)(x, index, updates)``: a copy of ``x`` with
  ``updates[i][j]`` written at ``[index[i][j]][j]`` (``reduction='add'`` adds, repeats
  accumulating; ``'none'`` writes, and which of repeated positions wins is unspecified).

MindSpore's names on them: ``gather_d``/``gather_elements``, ``tensor_scatter_elements``
and ``scatter`` (``reduction='none'`` only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from ._utils import argument_error, normalize_axis
from .scatter_gather import _as_index_tensor, _normalized
from .shape_ops import zeros_like

REDUCTIONS = ("none", "add")


def _check(op: str, x: Any, index: Any, axis: int) -> int:
    if np.dtype(index.dtype).kind not in "iu":
        raise TypeError(f"{op}: index must be an integer tensor, got {index.dtype}")
    if len(index.shape) != len(x.shape):
        raise ValueError(f"{op}: index of shape {shape_str(index.shape)} must have the input's "
                         f"rank {len(x.shape)} (input {shape_str(x.shape)})")
    axis = normalize_axis(axis, len(x.shape))
    for d, (i, n) in enumerate(zip(index.shape, x.shape)):
        if d != axis and i > n:
            raise ValueError(f"{op}: index of shape {shape_str(index.shape)} is larger than the "
                             f"input {shape_str(x.shape)} along axis {d}")
    return axis


def _positions(op: str, index: np.ndarray, size: int, axis: int) -> tuple[np.ndarray, ...]:
    """The NumPy index tuple of the elements ``index`` names (an open grid off ``axis``)."""
    grid = list(np.ogrid[tuple(slice(0, n) for n in index.shape)]) if index.ndim else []
    grid[axis] = _normalized(op, index, size, axis)
    return tuple(grid)


class GatherElements(Primitive):
    """``GatherElements(axis)(x, index)``: see the module docstring."""

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=int(axis))

    def infer(self, x: Any, index: Any) -> Spec:
        _check(self.name, x, index, self.axis)
        return Spec(tuple(index.shape), x.dtype)

    def kernel(self, x, index):
        axis = normalize_axis(self.axis, x.ndim)
        return x[_positions(self.name, index, x.shape[axis], axis)]

    def bprop(self, x, index, *, out, dout, needs):
        return ScatterElements(self.axis, "add")(zeros_like(x), index, dout), None


class ScatterElements(Primitive):
    """``ScatterElements(axis, reduction)(x, index, updates)``: see the module docstring."""

    def __init__(self, axis: int = 0, reduction: str = "none") -> None:
        if reduction not in REDUCTIONS:
            raise ValueError(f"ScatterElements: reduction must be one of {REDUCTIONS}, "
                             f"got {reduction!r}")
        super().__init__(axis=int(axis), reduction=reduction)

    def infer(self, x: Any, index: Any, updates: Any) -> Spec:
        _check(self.name, x, index, self.axis)
        if tuple(updates.shape) != tuple(index.shape):
            raise ValueError(f"{self.name}: updates of shape {shape_str(updates.shape)} must have "
                             f"the index's shape {shape_str(index.shape)}")
        if np.dtype(updates.dtype) != np.dtype(x.dtype):
            raise TypeError(f"{self.name}: updates ({updates.dtype}) must have the input's dtype "
                            f"({x.dtype})")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, index, updates):
        axis = normalize_axis(self.axis, x.ndim)
        where = _positions(self.name, index, x.shape[axis], axis)
        out = np.array(x, copy=True)
        if self.reduction == "add":
            np.add.at(out, where, updates)
        else:
            out[where] = updates
        return out

    def bprop(self, x, index, updates, *, out, dout, needs):
        dx = dout
        if self.reduction == "none" and needs[0]:  # the overwritten entries get none
            dx = ScatterElements(self.axis, "none")(dout, index, zeros_like(updates))
        dupdates = GatherElements(self.axis)(dout, index) if needs[2] else None
        return dx, None, dupdates


def _index(op: str, index: Any) -> Any:
    try:
        return _as_index_tensor(index)
    except TypeError as error:
        raise argument_error(op, error) from None


def gather_d(x, dim, index):
    """MindSpore's ``ops.gather_d``: ``GatherElements(dim)(x, index)``."""
    return GatherElements(int(dim))(x, _index("gather_d", index))


def gather_elements(input, dim, index):  # noqa: A002  (MindSpore's names)
    return GatherElements(int(dim))(input, _index("gather_elements", index))


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """MindSpore's ``ops.tensor_scatter_elements`` (``reduction`` 'none' or 'add')."""
    if reduction not in REDUCTIONS:
        raise argument_error("tensor_scatter_elements", ValueError(
            f"reduction must be one of {REDUCTIONS}, got {reduction!r}"))
    return ScatterElements(int(axis), reduction)(input_x, _index("tensor_scatter_elements", indices),
                                                 updates)


def scatter(input, axis, index, src):  # noqa: A002
    """MindSpore's ``ops.scatter``: ``src`` written into a copy of ``input`` at ``index``
    along ``axis`` (``tensor_scatter_elements`` with ``reduction='none'``)."""
    return ScatterElements(int(axis), "none")(input, _index("scatter", index), src)
