"""``mindspore.common.sparse_tensor``: the sparse tensor classes (:mod:`framework.ops.sparse_tensor`)."""

from ..ops.sparse_tensor import COOTensor, CSRTensor

__all__ = ["COOTensor", "CSRTensor"]
