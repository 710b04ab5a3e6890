"""More of MindSpore's activation cells (and a few one-op cells): each ``construct`` is
one functional op of ``framework.ops`` (see ``ops/composed_activations.py`` for the formulas
and their gradients at kinks). ``PReLU`` holds its slopes as the Parameter ``w``
(``channel`` values, ``w`` each), as MindSpore's."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..common.tensor import Tensor
from ..parameter import Parameter
from .cell import Cell, StatelessCell


class ELU(Cell):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.elu(x, self.alpha)


class SeLU(StatelessCell):
    def construct(self, x):
        return ops.selu(x)


class CELU(Cell):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.celu(x, self.alpha)


class LeakyReLU(Cell):
    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class PReLU(Cell):
    """``PReLU(channel=1, w=0.25)``: ``x`` where positive, else ``w * x`` (``w`` learned)."""

    def __init__(self, channel: int = 1, w: Any = 0.25) -> None:
        super().__init__()
        if isinstance(w, Tensor):
            init = w.asnumpy().astype(np.float32).reshape(-1)
        else:
            init = np.full(int(channel), float(w), np.float32)
        if init.shape[0] != int(channel):
            raise ValueError(f"PReLU: w has {init.shape[0]} values for {channel} channels")
        self.w = Parameter(Tensor(init), name="w")

    def construct(self, x):
        return ops.prelu(x, self.w)


class HSwish(StatelessCell):
    def construct(self, x):
        return ops.hardswish(x)


class HSigmoid(StatelessCell):
    def construct(self, x):
        return ops.hardsigmoid(x)


class Hardtanh(Cell):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val >= max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must be below max_val {max_val}")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class Mish(StatelessCell):
    def construct(self, x):
        return ops.mish(x)


class LogSigmoid(StatelessCell):
    def construct(self, x):
        return ops.logsigmoid(x)


class Softsign(StatelessCell):
    def construct(self, x):
        return ops.softsign(x)


class SoftShrink(Cell):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, x):
        return ops.softshrink(x, self.lambd)


class HShrink(Cell):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, x):
        return ops.hardshrink(x, self.lambd)


class Tanhshrink(StatelessCell):
    def construct(self, x):
        return ops.tanhshrink(x)


class Threshold(Cell):
    def __init__(self, threshold: float, value: float) -> None:
        super().__init__()
        self.threshold, self.value = float(threshold), float(value)

    def construct(self, x):
        return ops.threshold(x, self.threshold, self.value)


class Softmin(Cell):
    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmin(x, self.axis)


class GLU(Cell):
    """``GLU(axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the second."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x):
        a, b = ops.chunk(x, 2, self.axis)
        return a * ops.sigmoid(b)


class Identity(Cell):
    def construct(self, x):
        return x


class Tril(StatelessCell):
    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(StatelessCell):
    def construct(self, x, k=0):
        return ops.triu(x, k)


class Roll(Cell):
    def __init__(self, shift: Any, axis: Any) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, x):
        return ops.roll(x, self.shift, self.axis)


class Norm(Cell):
    """``Norm(axis=(), keep_dims=False)``: the 2-norm over ``axis`` (``()``: every entry)."""

    def __init__(self, axis: Any = (), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return ops.norm(x, None, self.axis if self.axis != () else None, self.keep_dims)


class ReduceLogSumExp(Cell):
    def __init__(self, axis: Any, keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return ops.logsumexp(x, self.axis, self.keep_dims)


__all__ = ["CELU", "ELU", "GLU", "HShrink", "HSigmoid", "HSwish", "Hardtanh", "Identity",
           "LeakyReLU", "LogSigmoid", "Mish", "Norm", "PReLU", "ReduceLogSumExp", "Roll", "SeLU",
           "SoftShrink", "Softmin", "Softsign", "Tanhshrink", "Threshold", "Tril", "Triu"]
