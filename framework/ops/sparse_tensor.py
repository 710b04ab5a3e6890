"""MindSpore's sparse tensors: ``COOTensor(indices, values, shape)`` and
``CSRTensor(indptr, indices, values, shape)``, as plain containers of dense tensors.

Contracts (MindSpore 2.10's documented behaviour):

- ``COOTensor``: ``indices`` an integer tensor of shape ``(nnz, ndim)``, ``values`` of
  shape ``(nnz,)``, ``shape`` a tuple of ``ndim`` ints; ``CSRTensor`` (2-D): ``indptr`` of
  length ``shape[0] + 1``, ``indices`` (the column of each value) and ``values`` of length
  ``nnz``. Properties ``indices``, ``values``, ``shape``, ``dtype`` (the values'),
  ``size`` (nnz), ``ndim``, ``itemsize``; ``to_tuple()``; ``to_dense()``; ``abs()``,
  ``astype(dtype)``; CSR's ``to_coo()``, ``mv``, ``mm``, ``sum(axis)``; COO's ``to_csr()``.
- Everything is a composition of dense primitives on the component tensors (gather,
  index-add, compares, sums), so both modes run it and gradients reach ``values``.
  The structure (indices, indptr, shape) is never differentiated.
- A sparse tensor crosses ``jit``/``Cell`` boundaries as its tensors plus its static shape
  (the ``_tree_flatten`` protocol of :mod:`framework.signature`), as MindSpore's graph
  mode passes and returns them.
- Checks are MindSpore's: the components' ranks and lengths, one ``ValueError`` line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from . import sparse as _sparse
from ._utils import argument_error
from .array_ops import stack
from .creation import zeros
from .elementwise import abs as _abs
from .elementwise import cast, less, less_equal, mul
from .reduce import reduce_sum
from .scatter_gather import gather, index_add
from .shape_ops import broadcast_to, reshape
from .sorting import sort


def tensor_class() -> type:
    """``Tensor``, imported on use: the Tensor class's module imports the ops (its methods)."""
    return Tensor


def is_tensor(value: Any) -> bool:
    return isinstance(value, tensor_class())


def const(value: Any) -> Any:
    """A constant tensor of ``value`` (a NumPy array or number)."""
    return tensor_class()(np.asarray(value))


def _tensor(value: Any) -> Any:
    return value if is_tensor(value) else const(value)


def _shape_tuple(op: str, shape: Any) -> tuple[int, ...]:
    try:
        out = tuple(int(s) for s in shape)
    except TypeError as error:
        raise argument_error(op, ValueError(f"shape must be a tuple of ints, got {shape!r}")) from error
    if any(s < 0 for s in out):
        raise argument_error(op, ValueError(f"shape must be non-negative, got {out}"))
    return out


def _check_int(op: str, name: str, t: Any) -> None:
    if mstype.kind(mstype.to_np(t.dtype)) not in "iu":
        raise argument_error(op, TypeError(f"{name} must be an integer tensor, got {t.dtype}"))


def _arange(n: int, dtype: Any = np.int32) -> Any:
    return const(np.arange(n, dtype=dtype))


def flat_index(indices: Any, shape: tuple[int, ...]) -> Any:
    """Each row of ``indices`` (nnz, ndim) as its offset in the dense row-major layout (int64)."""
    strides = np.array([int(np.prod(shape[k + 1:])) for k in range(len(shape))], np.int64)
    return reduce_sum(mul(cast(indices, mstype.int64), const(strides)), 1)


def scatter_dense(values: Any, flat: Any, shape: tuple[int, ...]) -> Any:
    """The dense tensor of ``shape`` holding ``values`` at the flat offsets (repeats add)."""
    size = int(np.prod(shape)) if shape else 1
    return reshape(index_add(zeros((size,), values.dtype), flat, values, 0), shape)


def rows_of(indptr: Any, nnz: int) -> Any:
    """The row (int32) of each of the ``nnz`` values of a CSR layout: the number of rows
    that end at or before its position."""
    ends = reshape(indptr[1:], (1, -1))
    below = less_equal(ends, reshape(_arange(nnz, mstype.to_np(indptr.dtype)), (nnz, 1)))
    return reduce_sum(cast(below, mstype.int32), 1)


def indptr_of(rows: Any, height: int) -> Any:
    """The CSR row pointer (int32, ``height + 1``) of values whose rows are ``rows`` (sorted):
    entry ``r`` counts the values in rows before ``r``."""
    bounds = reshape(_arange(height + 1, mstype.to_np(rows.dtype)), (-1, 1))
    before = less(reshape(rows, (1, -1)), bounds)
    return reduce_sum(cast(before, mstype.int32), 1)


class _Sparse:
    """What COO and CSR tensors share: their stored indices and values and their dense shape."""

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._values.dtype)
    size = property(lambda self: int(self._values.shape[0]))
    ndim = property(lambda self: len(self._shape))
    itemsize = property(lambda self: mstype.to_np(self._values.dtype).itemsize)


class COOTensor(_Sparse):
    """``COOTensor(indices=None, values=None, shape=None, coo_tensor=None)``."""

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 coo_tensor: COOTensor | None = None) -> None:
        if coo_tensor is not None:
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        if indices is None or values is None or shape is None:
            raise argument_error("COOTensor", ValueError("give indices, values and shape (or coo_tensor)"))
        indices, values, shape = _tensor(indices), _tensor(values), _shape_tuple("COOTensor", shape)
        _check_int("COOTensor", "indices", indices)
        if len(indices.shape) != 2:
            raise argument_error("COOTensor", ValueError(
                "'indices' must be a 2-dimensional tensor, but got a "
                f"{len(indices.shape)}-dimensional tensor"))
        if len(values.shape) != 1:
            raise argument_error("COOTensor", ValueError(
                f"'values' must be a 1-dimensional tensor, but got a {len(values.shape)}-dimensional tensor"))
        if indices.shape[0] != values.shape[0]:
            raise argument_error("COOTensor", ValueError(
                f"indices have {indices.shape[0]} rows but values {values.shape[0]} entries"))
        if indices.shape[1] != len(shape):
            raise argument_error("COOTensor", ValueError(
                f"indices have {indices.shape[1]} columns but shape {shape} has {len(shape)} dimensions"))
        self._init(indices, values, shape)

    def _init(self, indices: Any, values: Any, shape: tuple[int, ...]) -> None:
        self._indices, self._values, self._shape = indices, values, shape

    @classmethod
    def _make(cls, indices: Any, values: Any, shape: tuple[int, ...]) -> COOTensor:
        out = cls.__new__(cls)
        out._init(indices, values, tuple(shape))
        return out

    # the signature protocol: tensors as leaves, the shape as structure
    def _tree_flatten(self) -> tuple[tuple[Any, ...], Any]:
        return (self._indices, self._values), self._shape

    @classmethod
    def _tree_unflatten(cls, shape: Any, children: list[Any]) -> COOTensor:
        return cls._make(children[0], children[1], shape)


    def __repr__(self) -> str:
        return (f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, indices={self._indices!r}, "
                f"values={self._values!r})")

    def to_tuple(self) -> tuple[Any, Any, tuple[int, ...]]:
        return self._indices, self._values, self._shape

    def to_dense(self) -> Any:
        return scatter_dense(self._values, flat_index(self._indices, self._shape), self._shape)

    def with_values(self, values: Any) -> COOTensor:
        return COOTensor._make(self._indices, values, self._shape)

    def abs(self) -> COOTensor:
        return self.with_values(_abs(self._values))

    def astype(self, dtype: Any) -> COOTensor:
        return self.with_values(cast(self._values, dtype))

    def to_csr(self) -> CSRTensor:
        """The same matrix in CSR form (2-D; entries ordered by row, then column)."""
        if len(self._shape) != 2:
            raise argument_error("COOTensor.to_csr",
                                 ValueError(f"needs a 2-D tensor, got shape {self._shape}"))
        _, order = sort(cast(flat_index(self._indices, self._shape), mstype.float64))
        indices = gather(self._indices, order, 0)
        rows, cols = (reshape(gather(indices, _arange(1) + k, 1), (-1,)) for k in (0, 1))
        return CSRTensor._make(indptr_of(cast(rows, mstype.int32), self._shape[0]),
                               cast(cols, mstype.int32), gather(self._values, order, 0), self._shape)

    def coalesce(self) -> COOTensor:
        return _sparse.coalesce(self)

    def add(self, coo_tensor: COOTensor, thresh: Any) -> COOTensor:
        return _sparse.coo_add(self, coo_tensor, thresh)

    def __neg__(self) -> COOTensor:
        return self.with_values(-self._values)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, COOTensor):
            return self.add(other, const(np.array(0, mstype.to_np(self._values.dtype))))
        return self.to_dense() + other

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def _dense_at(self, other: Any) -> Any:
        dense = reshape(broadcast_to(_tensor(other), self._shape), (-1,))
        return gather(dense, flat_index(self._indices, self._shape), 0)

    def __mul__(self, other: Any) -> COOTensor:
        return self.with_values(self._values * self._dense_at(other))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> COOTensor:
        return self.with_values(self._values / self._dense_at(other))


class CSRTensor(_Sparse):
    """``CSRTensor(indptr=None, indices=None, values=None, shape=None, csr_tensor=None)``."""

    def __init__(self, indptr: Any = None, indices: Any = None, values: Any = None,
                 shape: Any = None, csr_tensor: CSRTensor | None = None) -> None:
        if csr_tensor is not None:
            indptr, indices = csr_tensor.indptr, csr_tensor.indices
            values, shape = csr_tensor.values, csr_tensor.shape
        if indptr is None or indices is None or values is None or shape is None:
            raise argument_error("CSRTensor",
                                 ValueError("give indptr, indices, values and shape (or csr_tensor)"))
        indptr, indices = _tensor(indptr), _tensor(indices)
        values, shape = _tensor(values), _shape_tuple("CSRTensor", shape)
        _check_int("CSRTensor", "indptr", indptr)
        _check_int("CSRTensor", "indices", indices)
        if len(shape) != 2:
            raise argument_error("CSRTensor", ValueError(f"shape must have 2 dimensions, got {shape}"))
        if len(indptr.shape) != 1 or len(indices.shape) != 1:
            raise argument_error("CSRTensor", ValueError("indptr and indices must be 1-dimensional tensors"))
        if indptr.shape[0] != shape[0] + 1:
            raise argument_error("CSRTensor", ValueError(
                f"indptr must have length (1 + shape[0]), but got: {indptr.shape[0]}"))
        if len(values.shape) != 1 or indices.shape[0] != values.shape[0]:
            raise argument_error("CSRTensor", ValueError(
                f"indices (length {indices.shape[0]}) and values (shape {tuple(values.shape)}) "
                "must be 1-dimensional of one length"))
        self._init(indptr, indices, values, shape)

    def _init(self, indptr: Any, indices: Any, values: Any, shape: tuple[int, ...]) -> None:
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    @classmethod
    def _make(cls, indptr: Any, indices: Any, values: Any, shape: tuple[int, ...]) -> CSRTensor:
        out = cls.__new__(cls)
        out._init(indptr, indices, values, tuple(shape))
        return out

    def _tree_flatten(self) -> tuple[tuple[Any, ...], Any]:
        return (self._indptr, self._indices, self._values), self._shape

    @classmethod
    def _tree_unflatten(cls, shape: Any, children: list[Any]) -> CSRTensor:
        return cls._make(children[0], children[1], children[2], shape)

    indptr = property(lambda self: self._indptr)

    def __repr__(self) -> str:
        return (f"CSRTensor(shape={list(self._shape)}, dtype={self.dtype}, indptr={self._indptr!r}, "
                f"indices={self._indices!r}, values={self._values!r})")

    def to_tuple(self) -> tuple[Any, Any, Any, tuple[int, ...]]:
        return self._indptr, self._indices, self._values, self._shape

    def rows(self) -> Any:
        """The row (int32) of each value."""
        return rows_of(self._indptr, self.size)

    def flat(self) -> Any:
        """Each value's offset in the dense row-major layout (int64)."""
        rows = cast(self.rows(), mstype.int64)
        return rows * self._shape[1] + cast(self._indices, mstype.int64)

    def to_dense(self) -> Any:
        return scatter_dense(self._values, self.flat(), self._shape)

    def to_coo(self) -> COOTensor:
        indices = stack((self.rows(), cast(self._indices, mstype.int32)), 1)
        return COOTensor._make(indices, self._values, self._shape)

    def with_values(self, values: Any) -> CSRTensor:
        return CSRTensor._make(self._indptr, self._indices, values, self._shape)

    def abs(self) -> CSRTensor:
        return self.with_values(_abs(self._values))

    def astype(self, dtype: Any) -> CSRTensor:
        return self.with_values(cast(self._values, dtype))

    def mm(self, matrix: Any) -> Any:
        """``self @ matrix`` (a dense 2-D tensor), dense: each value times its column's row of
        ``matrix``, added into its row."""
        matrix = _tensor(matrix)
        if len(matrix.shape) != 2 or matrix.shape[0] != self._shape[1]:
            raise argument_error("CSRTensor.mm", ValueError(
                f"the dense operand must be 2-D with {self._shape[1]} rows, got shape {tuple(matrix.shape)}"))
        picked = gather(matrix, self._indices, 0) * reshape(self._values, (-1, 1))
        out = zeros((self._shape[0], matrix.shape[1]), picked.dtype)
        return index_add(out, self.rows(), picked, 0)

    def mv(self, dense_vector: Any) -> Any:
        """``self @ dense_vector``, a dense ``(shape[1], 1)`` column (MindSpore takes 2-D only)."""
        vector = _tensor(dense_vector)
        if len(vector.shape) != 2 or tuple(vector.shape) != (self._shape[1], 1):
            raise argument_error("CSRTensor.mv", ValueError(
                f"only support 2-D inputs: the dense vector must have shape ({self._shape[1]}, 1), "
                f"got {tuple(vector.shape)}"))
        return self.mm(vector)

    def sum(self, axis: int) -> Any:
        """The sum along ``axis`` (1 or -1: each row's), dense ``(shape[0], 1)``."""
        if int(axis) not in (1, -1):
            raise argument_error("CSRTensor.sum", ValueError(f"axis must be 1 (or -1), got {axis}"))
        out = zeros((self._shape[0],), self._values.dtype)
        return reshape(index_add(out, self.rows(), self._values, 0), (self._shape[0], 1))

    def add(self, b: CSRTensor, alpha: Any, beta: Any) -> CSRTensor:
        return _sparse.csr_add(self, b, alpha, beta)

    def _dense_at(self, other: Any) -> Any:
        dense = reshape(broadcast_to(_tensor(other), self._shape), (-1,))
        return gather(dense, self.flat(), 0)

    def __neg__(self) -> CSRTensor:
        return self.with_values(-self._values)

    def __add__(self, other: Any) -> Any:
        if isinstance(other, CSRTensor):
            one = const(np.array(1, mstype.to_np(self._values.dtype)))
            return self.add(other, one, one)
        return self.to_dense() + other

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, CSRTensor):
            one = const(np.array(1, mstype.to_np(self._values.dtype)))
            return self.add(other, one, -one)
        return self.to_dense() - other

    def __mul__(self, other: Any) -> CSRTensor:
        return self.with_values(self._values * self._dense_at(other))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> CSRTensor:
        return self.with_values(self._values / self._dense_at(other))
