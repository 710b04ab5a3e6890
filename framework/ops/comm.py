"""Collective communication as a primitive: ``ops.AllReduce`` (MindSpore's name).

``AllReduce(op='sum')(x)`` is the element-wise sum of ``x`` over every rank of the job
(:mod:`framework.communication`), the same shape and dtype on each. PyNative calls MPI
at once; graph mode lowers it to a call of the registered packed function
``twinmode.allreduce_sum`` inside the compiled step
(:mod:`framework.backend.tvm.lower.lowerings.comm`), so a data-parallel train step stays one
compiled call. Every rank must run the same AllReduces in the same order.

Gradient: the sum's vector-Jacobian product is the sum of the upstream gradients over
the ranks, i.e. ``AllReduce`` of ``dout`` (what ``SyncBatchNorm`` relies on).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..communication import allreduce_array
from ..primitive import Primitive, Spec


class ReduceOp:
    """MindSpore's reduce operation names."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


class AllReduce(Primitive):
    """``AllReduce(op=ReduceOp.SUM, group="hccl_world_group")(x)`` (None is the world group
    too); in graph mode only 'sum' (the gradients' reduction) is compiled."""

    def __init__(self, op: str = ReduceOp.SUM, group: Any = "hccl_world_group") -> None:
        if op not in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD):
            raise ValueError(f"AllReduce: op must be 'sum', 'max', 'min' or 'prod', got {op!r}")
        if group not in (None, "hccl_world_group", "nccl_world_group", "mpi_world_group"):
            raise ValueError(f"AllReduce: group {group!r}: only the world group exists")
        super().__init__(op=op)

    def infer(self, x: Any) -> Spec:
        if mstype.kind(np.dtype(x.dtype)) not in "fiu":
            raise TypeError(f"AllReduce: x must be a numeric tensor, got {x.dtype}")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x: np.ndarray) -> np.ndarray:
        return allreduce_array(x, op=self.op)

    def bprop(self, x, *, out, dout, needs):
        if self.op != ReduceOp.SUM:
            raise NotImplementedError(f"AllReduce(op={self.op!r}) has no gradient; only 'sum' has")
        return (AllReduce()(dout),)


def all_reduce(x, op: str = ReduceOp.SUM):
    """Functional form of :class:`AllReduce` over the world group."""
    return AllReduce(op)(x)
