"""The ``P.*`` classes whose MindSpore constructor leaves an operand to the call: the axis
of the reductions, the permutation, shape, begin/size, dtype, ``k``. MindSpore spells
``P.Transpose()(x, perm)``, ``P.ReduceSum(keep_dims)(x, axis)``, ``P.Cast()(x, dtype)``;
our primitives carry that operand as a node attribute (``Transpose(perm)``), which is how
the library builds its nodes. Each class here takes MindSpore's constructor arguments and
applies the primitive at call time, so its graph, gradient and lowering are the
primitive's.

Contracts (``P.X(attrs)(tensors)``):

- ``ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())``, ``ReduceMean``,
  ``ReduceMax``, ``ReduceProd``, ``ReduceAll``, ``ReduceAny`` (``keep_dims=False``):
  ``axis=()`` reduces every axis (with ``skip_mode``, ReduceSum leaves ``x`` as it is);
- ``Transpose()(input_x, input_perm)``, ``Reshape()(input_x, input_shape)``,
  ``ExpandDims()(input_x, axis)``, ``Slice()(input_x, begin, size)``;
- ``Gather(batch_dims=0)(input_params, input_indices, axis)`` (batch axes first) and
  ``GatherV2()``;
- ``Cast()(input_x, type)``, ``CumSum(exclusive=False, reverse=False)(input, axis)``,
  ``TopK(sorted=True)(input_x, k)``, ``GeLU()(x)`` (the tanh form, MindSpore's primitive).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtype as mstype
from ...common.tensor import Tensor
from .. import activations, elementwise, reduce, reductions, scan, scatter_gather, shape_ops, sorting
from .._class_form import NoAttributes


class _KeepDims:
    """``P.ReduceX(keep_dims=False)(x, axis=())`` over the primitive ``_prim``."""

    _prim: Any = None

    def __init__(self, keep_dims: bool = False) -> None:
        self.keep_dims = keep_dims

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return type(self)._prim(self.keep_dims)(x, axis)


def _reduction(name: str, prim: Any) -> type:
    return type(name, (_KeepDims,), {"_prim": staticmethod(prim), "__module__": __name__,
                                      "__doc__": f"``P.{name}(keep_dims=False)(x, axis=())``."})


ReduceMean = _reduction("ReduceMean", reduce.ReduceMean)
ReduceMax = _reduction("ReduceMax", reduce.ReduceMax)
ReduceProd = _reduction("ReduceProd", reductions.ReduceProd)
ReduceAll = _reduction("ReduceAll", reduce.ReduceAll)
ReduceAny = _reduction("ReduceAny", reduce.ReduceAny)


class ReduceSum:
    """``P.ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())``."""

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        self.keep_dims, self.skip_mode = keep_dims, skip_mode

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return reduce.ReduceSum(bool(self.keep_dims), bool(self.skip_mode))(x, axis)


class Transpose(NoAttributes):
    def __call__(self, input_x: Any, input_perm: Any) -> Any:
        return shape_ops.Transpose()(input_x, input_perm)


class Reshape(NoAttributes):
    def __call__(self, input_x: Any, input_shape: Any) -> Any:
        return shape_ops.Reshape()(input_x, input_shape)


class ExpandDims(NoAttributes):
    def __call__(self, input_x: Any, axis: Any) -> Any:
        return shape_ops.ExpandDims()(input_x, axis)


class Slice(NoAttributes):
    def __call__(self, input_x: Any, begin: Any, size: Any) -> Any:
        return shape_ops.Slice()(input_x, begin, size)


class Gather:
    """``P.Gather(batch_dims=0)(input_params, input_indices, axis)``: with ``batch_dims`` b
    the first b axes of both are batch axes (equal sizes), each batch entry gathering from
    its own slice: the result is ``params.shape[:axis] + indices.shape[b:] +
    params.shape[axis + 1:]``."""

    def __init__(self, batch_dims: int = 0) -> None:
        self.batch_dims = batch_dims

    def __call__(self, input_params: Any, input_indices: Any, axis: Any) -> Any:
        if self.batch_dims == 0:
            return scatter_gather.Gather()(input_params, input_indices, axis)
        return _batched_gather(input_params, input_indices, int(axis), int(self.batch_dims))


def _batched_gather(params: Any, indices: Any, axis: int, b: int) -> Any:
    """Gather with ``b`` batch axes: the batch axes and ``axis`` merged into one axis of
    ``prod(batch) * n`` rows, each batch entry's indices offset by its first row."""
    rank, ni = len(params.shape), len(indices.shape) - b
    axis = axis + rank if axis < 0 else axis
    b = b + len(indices.shape) if b < 0 else b
    if not 0 <= b <= axis < rank or ni < 0 or tuple(params.shape[:b]) != tuple(indices.shape[:b]):
        raise ValueError(f"P.Gather: batch_dims={b} needs batch_dims <= axis ({axis}) < rank "
                         f"({rank}) and equal leading axes, got params {tuple(params.shape)} "
                         f"and indices {tuple(indices.shape)}")
    batch, n = tuple(params.shape[:b]), int(params.shape[axis])
    rows = int(np.prod(batch, dtype=np.int64))
    moved = shape_ops.transpose(params, (*range(b), axis, *(d for d in range(b, rank) if d != axis)))
    rest = tuple(moved.shape[b + 1:])
    offsets = (np.arange(rows) * n).reshape((rows,) + (1,) * ni)
    flat = elementwise.add(shape_ops.reshape(indices, (rows, *indices.shape[b:])),
                           Tensor(offsets.astype(mstype.to_np(indices.dtype))))
    rows_of = shape_ops.reshape(moved, (rows * n, *rest))
    got = scatter_gather.Gather(0)(rows_of, shape_ops.reshape(flat, (-1,)))
    got = shape_ops.reshape(got, (*batch, *indices.shape[b:], *rest))
    m = axis - b  # params' axes between the batch axes and ``axis`` come before the indices'
    return shape_ops.transpose(got, (*range(b), *range(b + ni, b + ni + m), *range(b, b + ni),
                                 *range(b + ni + m, b + ni + len(rest))))


class GatherV2(NoAttributes):
    def __call__(self, input_params: Any, input_indices: Any, axis: Any) -> Any:
        return scatter_gather.Gather()(input_params, input_indices, axis)


class Cast(NoAttributes):
    def __call__(self, input_x: Any, type: Any) -> Any:  # noqa: A002  (MindSpore's name)
        return elementwise.Cast()(input_x, type)


class CumSum:
    """``P.CumSum(exclusive=False, reverse=False)(input, axis)``."""

    def __init__(self, exclusive: bool = False, reverse: bool = False) -> None:
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, input: Any, axis: Any) -> Any:  # noqa: A002
        return scan.CumSum(self.exclusive, self.reverse)(input, axis)


class TopK:
    """``P.TopK(sorted=True)(input_x, k) -> (values, indices)``."""

    def __init__(self, sorted: bool = True) -> None:  # noqa: A002
        self.sorted = sorted

    def __call__(self, input_x: Any, k: Any) -> Any:
        return sorting.TopK(self.sorted)(input_x, k)


class GeLU(NoAttributes):
    def __call__(self, x: Any) -> Any:
        return activations.GeLU()(x)


__all__ = ["Cast", "CumSum", "ExpandDims", "Gather", "GatherV2", "GeLU", "ReduceAll", "ReduceAny",
           "ReduceMax", "ReduceMean", "ReduceProd", "ReduceSum", "Reshape", "Slice", "TopK",
           "Transpose"]
