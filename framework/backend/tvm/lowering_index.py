"""TVM Relax lowering of the index primitives (Gather, IndexAdd, ScatterUpdate), the floor
division family and the truth reductions (ReduceAll, ReduceAny).

Indices: negative ones are wrapped once (as the kernels do); out-of-range ones are clipped
(``take(mode="clip")``) where the kernels raise, so compiled code never reads outside a
tensor. Floor division/modulo follow NumPy (round toward -inf, the sign of the divisor).
"""

from __future__ import annotations

import numpy as np
from tvm import relax

from ...ops import elementwise as _ew
from ...ops import reduce as _reduce
from ...ops import scatter_gather as _gather
from ...ops._utils import normalize_axes, normalize_axis
from .lowering import LOWERINGS, _astype, _binary, _const, _emit, spec_of


def _wrap(bb: relax.BlockBuilder, indices: relax.Expr, dim: int) -> relax.Expr:
    """``indices + dim`` where negative (signed index dtypes only)."""
    dtype = spec_of(indices).dtype
    if dtype.kind == "u":
        return indices
    negative = bb.emit(relax.op.less(indices, _const(0, dtype)))
    shifted = bb.emit(relax.op.add(indices, _const(dim, dtype)))
    return bb.emit(relax.op.where(negative, shifted, indices))


def _lower_gather(prim, bb, x, indices):
    spec = spec_of(x)
    axis = normalize_axis(prim.axis, len(spec.shape))
    return relax.op.take(x, _wrap(bb, indices, spec.shape[axis]), axis, mode="clip")


def _flat_indices(bb, indices, axis: int, target: tuple[int, ...]) -> relax.Expr:
    """1-d indices as a tensor of ``target``'s shape, varying along ``axis`` only."""
    count = target[axis]
    shape = [1] * len(target)
    shape[axis] = count
    flat = bb.emit(relax.op.reshape(indices, shape))
    return bb.emit(relax.op.broadcast_to(flat, list(target)))


def _clip(bb, indices, dim: int) -> relax.Expr:
    dtype = spec_of(indices).dtype
    low = bb.emit(relax.op.maximum(indices, _const(0, dtype)))
    return bb.emit(relax.op.minimum(low, _const(dim - 1, dtype)))


def _lower_index_add(prim, bb, x, indices, y):
    spec = spec_of(x)
    axis = normalize_axis(prim.axis, len(spec.shape))
    count = int(np.prod(spec_of(indices).shape, dtype=np.int64))
    target = spec.shape[:axis] + (count,) + spec.shape[axis + 1:]
    if count == 0:
        return x
    index = _clip(bb, _wrap(bb, indices, spec.shape[axis]), spec.shape[axis])
    index = _flat_indices(bb, index, axis, target)
    updates = bb.emit(relax.op.reshape(y, list(target)))
    return relax.op.scatter_elements(x, index, updates, axis, reduction="add")


def _lower_scatter_update(prim, bb, x, indices, updates):
    spec = spec_of(x)
    count = int(np.prod(spec_of(indices).shape, dtype=np.int64))
    if count == 0:
        return x
    target = (count,) + spec.shape[1:]
    index = _clip(bb, _wrap(bb, indices, spec.shape[0]), spec.shape[0])
    index = _flat_indices(bb, index, 0, target)
    rows = bb.emit(relax.op.reshape(updates, list(target)))
    return relax.op.scatter_elements(x, index, rows, 0, reduction="update")


def _truth(any_: bool):
    def lower(prim, bb, x):
        spec = spec_of(x)
        axes = normalize_axes(prim.axis, len(spec.shape))
        flags = _astype(_emit(bb, relax.op.not_equal(x, _const(0, spec.dtype)))
                        if spec.dtype != np.bool_ else x, np.int8)
        flags = _emit(bb, flags)
        if not axes:
            return _astype(flags, np.bool_)
        reduce = relax.op.max if any_ else relax.op.min
        return _astype(bb.emit(reduce(flags, list(axes), prim.keep_dims)), np.bool_)

    lower.__name__ = "_lower_reduce_any" if any_ else "_lower_reduce_all"
    return lower


NEW_LOWERINGS = {
    _gather.Gather: _lower_gather,
    _gather.IndexAdd: _lower_index_add,
    _gather.ScatterUpdate: _lower_scatter_update,
    _ew.FloorDiv: _binary(relax.op.floor_divide),
    _ew.FloorMod: _binary(relax.op.floor_mod),
    _reduce.ReduceAll: _truth(False),
    _reduce.ReduceAny: _truth(True),
}


def install() -> None:
    LOWERINGS.update(NEW_LOWERINGS)
    for cls, fn in NEW_LOWERINGS.items():
        cls.lower = fn
