"""``nn.DistributedGradReducer``: the gradients of data parallelism, summed over ranks.

``DistributedGradReducer(parameters, mean=True, degree=None)`` maps a tuple of gradients
(one per parameter, in ``parameters`` order) to the same tuple all-reduced over the
ranks, divided by ``degree`` (default: the world size) when ``mean``.

Gradients are fused: consecutive gradients of one dtype, taken in reverse parameter
order (the order backward produces them), are flattened into one buffer of at least
``comm_fusion_bytes`` (the parallel context; 4 MB by default, never under 1 MB; the last
bucket holds the rest), each buffer is all-reduced in one message (``ops.AllReduce``)
and cut back into the gradients. The code is the same in both modes: in graph mode the
concatenation, the all-reduce call and the slicing are all inside the compiled step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..dtype import to_np
from ..ops.comm import AllReduce
from ..parallel_context import get_auto_parallel_context
from .cell import Cell

Bucket = tuple[tuple[int, int, tuple[int, ...]], ...]  # (gradient index, size, shape) each


def plan_buckets(shapes: list[tuple[int, ...]], dtypes: list[Any], bucket_bytes: int) -> list[Bucket]:
    """Buckets of gradient indices: reverse order, one dtype each, >= ``bucket_bytes``
    except the last of each dtype."""
    buckets: list[Bucket] = []
    current: list[tuple[int, int, tuple[int, ...]]] = []
    size_bytes, dtype = 0, None
    for i in reversed(range(len(shapes))):
        item_dtype = np.dtype(dtypes[i])
        if current and item_dtype != dtype:
            buckets.append(tuple(current))
            current, size_bytes = [], 0
        dtype = item_dtype
        size = int(np.prod(shapes[i], dtype=np.int64))
        current.append((i, size, tuple(shapes[i])))
        size_bytes += size * item_dtype.itemsize
        if size_bytes >= bucket_bytes:
            buckets.append(tuple(current))
            current, size_bytes = [], 0
    if current:
        buckets.append(tuple(current))
    return buckets


def reduce_buckets(grads: tuple, buckets: list[Bucket], scale: float) -> tuple:
    """``grads`` all-reduced bucket by bucket, times ``scale``."""
    out = list(grads)
    for bucket in buckets:
        parts = [ops.reshape(grads[i], (size,)) for i, size, _ in bucket]
        flat = parts[0] if len(parts) == 1 else ops.concat(parts, 0)
        total = AllReduce()(flat)
        if scale != 1.0:
            total = ops.mul(total, scale)
        offset = 0
        for i, size, shape in bucket:
            piece = total if len(bucket) == 1 else ops.slice_(total, (offset,), (size,))
            out[i] = ops.reshape(piece, shape)
            offset += size
    return tuple(out)


class DistributedGradReducer(Cell):
    """All-reduce (and average) gradients over the data-parallel ranks.

    ``parameters``: the parameters whose gradients come in, in order; ``mean``: divide
    the sum by ``degree`` (None: the parallel context's ``gradients_mean``); ``degree``:
    the number of ranks (default: the world size); ``fusion_type``: MindSpore's fusion
    label (the buckets here are sized by bytes, see ``plan``); ``group``: the world group
    (the only one). The buckets' size is the context's ``comm_fusion_bytes``; ``plan(n)``
    re-plans them for ``n`` bytes.
    """

    def __init__(self, parameters: Any, mean: bool | None = None, degree: int | None = None,
                 fusion_type: int = 1, group: Any = "hccl_world_group") -> None:
        super().__init__(auto_prefix=False)
        if group not in (None, "hccl_world_group", "nccl_world_group", "mpi_world_group"):
            raise ValueError(f"DistributedGradReducer: group {group!r}: only the world group exists")
        if mean is None:
            mean = get_auto_parallel_context("gradients_mean")
        params = list(parameters)
        if degree is None:
            from ..communication import get_group_size

            degree = get_group_size()
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be an int >= 1, got {degree!r}")
        self.mean = bool(mean)
        self.degree = degree
        self.scale = 1.0 / degree if self.mean else 1.0
        self.fusion_type = fusion_type
        self._layout = ([tuple(p.shape) for p in params], [to_np(p.dtype) for p in params])
        self.plan(get_auto_parallel_context("comm_fusion_bytes"))
        self.num_grads = len(params)

    def plan(self, fusion_bytes: int) -> None:
        """Group the gradients into buckets of about ``fusion_bytes`` bytes each."""
        self.buckets = plan_buckets(*self._layout, fusion_bytes)

    def construct(self, grads):
        if len(grads) != self.num_grads:
            raise ValueError(f"DistributedGradReducer: expected {self.num_grads} gradients (one per "
                             f"parameter), got {len(grads)}")
        return reduce_buckets(grads, self.buckets, self.scale)
