"""``nn.EmbeddingLookup``: rows of an embedding table by index (MindSpore's host-side
lookup), optionally clipped to a maximal norm."""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import initializer
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints


class EmbeddingLookup(Cell):
    """``embedding_table[indices]`` (table (vocab_size, embedding_size), ``param_init``
    'normal' by default); an index outside ``[0, vocab_size)`` gives a row of zeros, as
    MindSpore's CPU lookup; ``max_norm``: each row scaled down to that L2 norm when above.
    Only ``target='CPU'`` with ``sparse=True`` (the one MindSpore runs on CPU); the sharding
    arguments (``slice_mode``, ``manual_shapes``) have no effect on one process."""

    def __init__(self, vocab_size: int, embedding_size: int, param_init: Any = "normal",
                 target: str = "CPU", slice_mode: str = "batch_slice", manual_shapes: Any = None,
                 max_norm: float | None = None, sparse: bool = True,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        positive_ints("EmbeddingLookup", vocab_size=vocab_size, embedding_size=embedding_size)
        if not isinstance(sparse, bool):
            raise TypeError(f"EmbeddingLookup: sparse must be a bool, got {sparse!r}")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        if target == "CPU" and not sparse:
            raise ValueError("EmbeddingLookup: with target='CPU' the lookup must be sparse "
                             "(sparse=True)")
        if max_norm is not None and (not isinstance(max_norm, float) or max_norm <= 0):
            raise ValueError(f"EmbeddingLookup: max_norm must be a positive float, got {max_norm!r}")
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.target, self.sparse, self.max_norm = target, sparse, max_norm
        self.slice_mode, self.manual_shapes = slice_mode, manual_shapes
        self.embedding_table = Parameter(
            initializer(param_init, (vocab_size, embedding_size), dtype), "embedding_table")

    def construct(self, indices):
        # an index is inside the table when clipping leaves it unchanged (no boolean
        # arithmetic: TVM's vectorized and/or of two masks fails to compile on CPU)
        clipped = ops.clip_by_value(indices, 0, self.vocab_size - 1)
        inside = ops.equal(clipped, indices)
        out = ops.gather(self.embedding_table, clipped, 0)
        out = out * ops.expand_dims(ops.cast(inside, out.dtype), -1)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.ReduceSum(keep_dims=True)(out * out, -1))
            scale = self.max_norm / ops.maximum(norm, self.max_norm)
            out = out * scale
        return out

    def extend_repr(self) -> str:
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}"
