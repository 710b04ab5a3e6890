"""``mindspore.common.sparse_tensor``: the sparse tensor classes (:mod:`framework.ops.sparse_tensor`,
:mod:`framework.row_tensor`)."""

from ..ops.sparse_tensor import COOTensor, CSRTensor
from ..row_tensor import RowTensor, SparseTensor

__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]
