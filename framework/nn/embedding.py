"""``nn.Embedding``: a lookup table of ``vocab_size`` rows of ``embedding_size`` values.

MindSpore 2.x signature, defaults and parameter name (``embedding_table``, so checkpoints
carry over). The lookup is ``ops.Gather`` along axis 0; its gradient (Gather's bprop) is
``ops.IndexAdd`` into zeros, a scatter-add where repeated indices accumulate, lowered in
graph mode to one ``scatter_elements(reduction="add")``: never a one-hot matmul.
``use_one_hot=True`` takes MindSpore's other formulation, ``one_hot(ids) @ table``.

``padding_idx`` as MindSpore documents it: that row of the table starts at zero. Unlike
PyTorch's, the row still gets gradients (MindSpore masks nothing in the backward pass).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..common.initializer import initializer
from ..common.tensor import Tensor
from ..ops import nn_ops
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints, tensor_shape


class Embedding(Cell):
    """``Embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal',
    dtype=mstype.float32, padding_idx=None)``: ``x`` of integer ids, any shape, gives
    ``x.shape + (embedding_size,)``. ``dtype`` is the table's (and the one-hot's) dtype."""

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table: Any = "normal", dtype: Any = mstype.float32,
                 padding_idx: int | None = None) -> None:
        super().__init__()
        positive_ints("Embedding", vocab_size=vocab_size, embedding_size=embedding_size)
        if not isinstance(use_one_hot, bool):
            raise TypeError(f"Embedding: use_one_hot must be a bool, got {use_one_hot!r}")
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot, self.dtype = use_one_hot, dtype
        table = initializer(embedding_table, (self.vocab_size, self.embedding_size), dtype)
        self.padding_idx = padding_idx
        if padding_idx is not None:
            if (isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral)
                    or not 0 <= padding_idx < vocab_size):
                raise ValueError(f"Embedding: padding_idx must be an int in [0, {vocab_size}), "
                                 f"got {padding_idx!r}")
            values = np.array(table.asnumpy(), copy=True)
            values[padding_idx] = 0
            table = Tensor(values, dtype)
        self.embedding_table = Parameter(table, "embedding_table")

    def construct(self, x):
        shape = tensor_shape("Embedding", x)
        if x.dtype.np.kind not in "iu":
            raise TypeError(f"Embedding: ids must be an int32/int64 tensor, got {x.dtype}")
        if not self.use_one_hot:
            return ops.gather(self.embedding_table, x, 0)
        flat = ops.reshape(x, (-1,))
        hot = nn_ops.one_hot(flat, self.vocab_size, dtype=self.embedding_table.dtype)
        out = ops.matmul(hot, self.embedding_table)
        return ops.reshape(out, shape + (self.embedding_size,))

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, padding_idx={self.padding_idx}")
