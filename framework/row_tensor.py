"""Two sparse forms MindSpore keeps for older programs: ``RowTensor`` (a few rows of a dense
tensor, as the gradient of an embedding table) and ``SparseTensor`` (the old name of
``COOTensor``, :mod:`framework.ops.sparse_tensor`)."""

from __future__ import annotations

from typing import Any

from .common.tensor import Tensor
from .ops.sparse_tensor import COOTensor


def _as_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


class RowTensor:
    """``RowTensor(indices, values, shape)``: the rows ``indices`` (1-D ints) of a tensor of
    dense shape ``shape`` hold ``values`` (``len(indices)`` rows of ``shape[1:]``); the other
    rows are zero. ``row_tensor=`` copies another."""

    def __init__(self, indices: Any = None, values: Any = None, shape: Any = None,
                 row_tensor: RowTensor | None = None) -> None:
        if row_tensor is not None:
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        if indices is None or values is None or shape is None:
            raise ValueError("RowTensor: give indices, values and shape (or row_tensor)")
        indices, values = _as_tensor(indices), _as_tensor(values)
        shape = tuple(int(d) for d in shape)
        if len(indices.shape) != 1 or indices.dtype.np.kind not in "iu":
            raise TypeError(f"RowTensor: indices must be a 1-D integer tensor, got {indices.dtype} "
                            f"of shape {indices.shape}")
        if tuple(values.shape) != (indices.shape[0], *shape[1:]):
            raise ValueError(f"RowTensor: values of shape {values.shape} do not hold {indices.shape[0]} rows "
                             f"of the dense shape {shape}")
        self.indices, self.values, self.dense_shape = indices, values, shape

    def __repr__(self) -> str:
        return (f"RowTensor(shape={list(self.dense_shape)}, dtype={self.values.dtype}, "
                f"indices={self.indices!r}, values={self.values!r})")


class SparseTensor:
    """``SparseTensor(indices, values, shape)``: MindSpore's older COO form (not a
    ``COOTensor``, though it prints as one): ``indices``, ``values``, ``shape``, checked as a
    COOTensor's."""

    def __init__(self, indices: Any, values: Any, shape: Any) -> None:
        coo = COOTensor(indices, values, shape)
        self.indices, self.values, self.shape = coo.indices, coo.values, coo.shape
        self._coo = coo

    def __repr__(self) -> str:
        return repr(self._coo)
