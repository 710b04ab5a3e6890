"""Array primitive classes (ranges, index sets, searching, scattering, row updates) over
the functional ops we have, as MindSpore 2.10's ``mindspore.ops.operations``
spell them: attributes in the constructor, tensors in the call.
Gradients and graph mode are those of the functional ops each one applies.

Contracts (``P.X(attrs)(inputs)``):

- ``LinSpace()(start, stop, num)``; ``LogSpace(steps=10, base=10, dtype=float32)(start,
  end)``; ``ScalarToTensor()(x, dtype=float32)``; ``TupleToArray()(tuple)``;
  ``TrilIndices(row, col, offset=0, dtype=int32)()`` / ``TriuIndices``: ``(2, n)`` indices;
- ``Partial()(fn, *args)``: ``fn`` with ``args`` bound first; ``IdentityN()(xs)``: the
  tensors of ``xs`` as a tuple;
- ``SearchSorted(dtype=int64, right=False)(sorted_sequence, values)``;
  ``Bucketize(boundaries)(x)``: int32 ``i`` with ``boundaries[i-1] <= x < boundaries[i]``;
- ``MatrixInverse(adjoint=False)(x)``: the inverse (of the conjugate transpose with
  ``adjoint``); ``LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(x)``;
- ``Lcm()(x1, x2)``: ``|x1 * x2| / gcd``, 0 where either is 0;
- ``TensorScatterElements(axis=0, reduction='none')(data, indices, updates)``: ``data`` with
  ``updates`` written (``'add'``: added) at ``indices`` along ``axis``;
- ``InplaceAdd(indices)(x, v)`` / ``InplaceSub``: rows ``indices`` of ``x`` plus (minus) the
  rows of ``v``, as a new tensor; ``InplaceUpdateV2()(x, indices, v)``: those rows replaced;
- ``IndexFill()(x, dim, index, value)``: the entries at ``index`` along ``dim`` set to ``value``;
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ... import dtype as mstype
from ...mint import linalg as mint_linalg
from ...mint import math as mint_math
from ...mint import reduce as mint_reduce
from ...mint import shape as mint_shape
from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _linspace(start: Any, stop: Any, num: Any) -> Any:
    return ops.linspace(start, stop, num)


def _logspace(start: Any, end: Any, *, steps: int, base: int, dtype: Any) -> Any:
    return ops.logspace(start, end, steps, base, dtype=dtype)


def _scalar_to_tensor(x: Any, dtype: Any = mstype.float32) -> Any:
    return ops.scalar_to_tensor(x, dtype)


def _tuple_to_array(x: Any) -> Any:
    return ops.tuple_to_array(x)


def _tril_indices(*, row: int, col: int, offset: int, dtype: Any) -> Any:
    return ops.tril_indices(row, col, offset, dtype=dtype)


def _triu_indices(*, row: int, col: int, offset: int, dtype: Any) -> Any:
    return ops.triu_indices(row, col, offset, dtype=dtype)


def _partial(fn: Any, *args: Any) -> Any:
    return functools.partial(fn, *args)


def _identity_n(xs: Any) -> Any:
    if not isinstance(xs, list | tuple):
        raise TypeError(f"IdentityN: needs a tuple or list of tensors, got {type(xs).__name__}")
    return tuple(xs)


def _search_sorted(sorted_sequence: Any, values: Any, *, dtype: Any, right: bool) -> Any:
    out = mint_reduce.searchsorted(sorted_sequence, values, right=right)
    return out if out.dtype == dtype else ops.cast(out, dtype)


def _bucketize(x: Any, *, boundaries: Any) -> Any:
    from ...common.tensor import Tensor

    if not isinstance(boundaries, list | tuple):
        raise TypeError(f"Bucketize: boundaries must be a list of floats, got {type(boundaries).__name__}")
    edges = Tensor(np.asarray(boundaries, np.float32 if x.dtype != mstype.float64 else np.float64))
    return mint_reduce.searchsorted(edges, ops.cast(x, edges.dtype), right=True, out_int32=True)


def _matrix_inverse(x: Any, *, adjoint: bool) -> Any:
    if adjoint:
        x = ops.swapaxes(x, -1, -2)
    return mint_linalg.inv(x)


def _lp_norm(x: Any, *, axis: Any, p: int, keep_dims: bool, epsilon: float) -> Any:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    return ops.norm(x, p, axes, keep_dims)


def _lcm(x1: Any, x2: Any) -> Any:
    gcd = mint_math.gcd(x1, x2)
    zero = ops.equal(gcd, 0)
    safe = ops.select(zero, ops.ones_like(gcd), gcd)
    return ops.abs(ops.floor_div(x1, safe) * x2)


def _scatter_elements(data: Any, indices: Any, updates: Any, *, axis: int, reduction: str) -> Any:
    if reduction == "add":
        return mint_shape.scatter_add(data, axis, indices, updates)
    if reduction != "none":
        raise ValueError(f"TensorScatterElements: reduction must be 'none' or 'add', got {reduction!r}")
    return mint_shape.scatter(data, axis, indices, updates)


def _rows(who: str, indices: Any) -> Any:
    from ...common.tensor import Tensor

    if isinstance(indices, int) and not isinstance(indices, bool):
        indices = (indices,)
    if isinstance(indices, list | tuple):
        return Tensor(np.asarray(indices, np.int32))
    if isinstance(indices, Tensor):
        return indices
    raise TypeError(f"{who}: indices must be an int, a tuple of ints or a tensor, "
                    f"got {type(indices).__name__}")


def _inplace_add(x: Any, v: Any, *, indices: Any) -> Any:
    return ops.index_add(x, _rows("InplaceAdd", indices), v, 0)


def _inplace_sub(x: Any, v: Any, *, indices: Any) -> Any:
    return ops.index_add(x, _rows("InplaceSub", indices), -v, 0)


def _row_mask(x: Any, dim: int, index: Any) -> Any:
    """A bool tensor broadcastable to ``x``: True at ``index`` along ``dim``."""
    hits = ops.zeros((x.shape[dim],), mstype.float32)
    hits = ops.index_add(hits, index, ops.ones((index.shape[0] if index.shape else 1,), mstype.float32), 0)
    shape = [1] * len(x.shape)
    shape[dim] = x.shape[dim]
    return ops.reshape(ops.greater(hits, 0), tuple(shape))


def _inplace_update(x: Any, indices: Any, v: Any) -> Any:
    rows = _rows("InplaceUpdateV2", indices)
    placed = ops.index_add(ops.zeros_like(x), rows, v, 0)
    return ops.select(ops.broadcast_to(_row_mask(x, 0, rows), x.shape), placed, x)


def _index_fill(x: Any, dim: Any, index: Any, value: Any) -> Any:
    dim = int(dim.asnumpy()) if hasattr(dim, "asnumpy") else int(dim)
    dim %= max(len(x.shape), 1)
    index = ops.reshape(index, (-1,))
    mask = ops.broadcast_to(_row_mask(x, dim, index), x.shape)
    fill = value if hasattr(value, "shape") else ops.scalar_to_tensor(value, x.dtype)
    return ops.select(mask, ops.broadcast_to(ops.cast(fill, x.dtype), x.shape), x)


LinSpace = class_form("LinSpace", _linspace)
LogSpace = class_form("LogSpace", _logspace, steps=10, base=10, dtype=mstype.float32)
ScalarToTensor = class_form("ScalarToTensor", _scalar_to_tensor)
TupleToArray = class_form("TupleToArray", _tuple_to_array)
TrilIndices = class_form("TrilIndices", _tril_indices, row=REQUIRED, col=REQUIRED, offset=0,
                         dtype=mstype.int32)
TriuIndices = class_form("TriuIndices", _triu_indices, row=REQUIRED, col=REQUIRED, offset=0,
                         dtype=mstype.int32)
Partial = class_form("Partial", _partial)
IdentityN = class_form("IdentityN", _identity_n)
SearchSorted = class_form("SearchSorted", _search_sorted, dtype=mstype.int64, right=False)
Bucketize = class_form("Bucketize", _bucketize, boundaries=REQUIRED)
MatrixInverse = class_form("MatrixInverse", _matrix_inverse, adjoint=False)
LpNorm = class_form("LpNorm", _lp_norm, axis=REQUIRED, p=2, keep_dims=False, epsilon=1e-12)
Lcm = class_form("Lcm", _lcm)
TensorScatterElements = class_form("TensorScatterElements", _scatter_elements, axis=0, reduction="none")
InplaceAdd = class_form("InplaceAdd", _inplace_add, indices=REQUIRED)
InplaceSub = class_form("InplaceSub", _inplace_sub, indices=REQUIRED)
InplaceUpdateV2 = class_form("InplaceUpdateV2", _inplace_update)
IndexFill = class_form("IndexFill", _index_fill)

__all__ = ["Bucketize", "IdentityN", "IndexFill", "InplaceAdd", "InplaceSub", "InplaceUpdateV2", "Lcm",
           "LinSpace", "LogSpace", "LpNorm", "MatrixInverse", "Partial", "ScalarToTensor", "SearchSorted",
           "TensorScatterElements", "TrilIndices", "TriuIndices", "TupleToArray"]
