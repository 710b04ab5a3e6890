"""``nn.MaxUnpool1d/2d/3d``: each value of a max pool's output put back at the flat
position its index names, zeros elsewhere (a one-hot contraction, so the gradient reaches
the values)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..ops.conv_geometry import ints
from .cell import Cell
from .checks import tensor_shape


class _MaxUnpool(Cell):
    rank = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        who = type(self).__name__
        self.kernel_size = ints(who, "kernel_size", kernel_size, self.rank)
        self.stride = self.kernel_size if stride is None else ints(who, "stride", stride, self.rank)
        self.padding = ints(who, "padding", padding, self.rank, 0)

    def construct(self, x, indices, output_size=None):
        who = type(self).__name__
        shape = tensor_shape(who, x)
        if len(shape) not in (self.rank + 1, self.rank + 2):
            raise ValueError(f"{who}: expected a {self.rank + 1}-d or {self.rank + 2}-d input, "
                             f"got {shape}")
        if tuple(tensor_shape(who, indices)) != shape:
            raise ValueError(f"{who}: indices {tuple(indices.shape)} must have the input's shape {shape}")
        sizes = [(n - 1) * s - 2 * p + k for n, k, s, p in
                 zip(shape[-self.rank:], self.kernel_size, self.stride, self.padding)]
        if output_size is not None:
            if not isinstance(output_size, tuple) or not output_size:
                raise ValueError(f"{who}: output_size must be a non-empty tuple, got {output_size!r}")
            sizes = list(output_size[-self.rank:])
        lead = shape[:-self.rank]
        flat_in = int(np.prod(shape[-self.rank:]))
        flat_out = int(np.prod(sizes))
        from ..common.tensor import Tensor

        targets = Tensor(np.arange(flat_out, dtype=np.int64))
        idx = ops.reshape(ops.cast(indices, targets.dtype), (*lead, flat_in, 1))
        onehot = ops.cast(ops.equal(idx, targets), x.dtype)  # (..., in, out)
        values = ops.reshape(x, (*lead, flat_in, 1))
        out = ops.reduce_sum(values * onehot, len(lead))
        return ops.reshape(out, (*lead, *sizes))


class MaxUnpool1d(_MaxUnpool):
    """(N, C, L) or (C, L): length ``(L - 1) * stride - 2 * padding + kernel_size``."""

    rank = 1


class MaxUnpool2d(_MaxUnpool):
    """(N, C, H, W) or (C, H, W), each axis as MaxUnpool1d's; indices over H * W."""

    rank = 2


class MaxUnpool3d(_MaxUnpool):
    """(N, C, D, H, W) or (C, D, H, W); indices over D * H * W."""

    rank = 3
