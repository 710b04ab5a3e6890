"""Basic layers: Dense, Flatten, activations, Dropout."""

from __future__ import annotations

import math
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import HeUniform, Uniform, initializer
from ..parameter import Parameter
from .cell import Cell, StatelessCell
from .checks import positive_ints, tensor_shape


class ReLU(StatelessCell):
    def construct(self, x):
        return ops.relu(x)


class ReLU6(StatelessCell):
    """MindSpore's ``nn.ReLU6``: ``min(max(x, 0), 6)`` (MobileNet's activation)."""

    def construct(self, x):
        return ops.minimum(ops.relu(x), 6.0)


class Sigmoid(StatelessCell):
    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(StatelessCell):
    def construct(self, x):
        return ops.tanh(x)


class Softmax(Cell):
    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.softmax = ops.Softmax(axis)

    def construct(self, x):
        return self.softmax(x)


class LogSoftmax(Cell):
    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.log_softmax = ops.LogSoftmax(axis)

    def construct(self, x):
        return self.log_softmax(x)


class GELU(Cell):
    """``GELU(approximate=True)``: the tanh approximation; ``False``: ``0.5 x (1 + erf(x/sqrt 2))``."""

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = bool(approximate)
        self.mode = "tanh" if self.approximate else "none"

    def construct(self, x):
        return ops.gelu(x, approximate=self.mode)


class FastGelu(StatelessCell):
    def construct(self, x):
        return ops.fast_gelu(x)


class SiLU(StatelessCell):
    def construct(self, x):
        return ops.silu(x)


class Softplus(Cell):
    """``Softplus(beta=1, threshold=20)``: ``log(1 + exp(beta x)) / beta``, linear above threshold."""

    def __init__(self, beta: float = 1, threshold: float = 20) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
                "gelu": GELU, "fast_gelu": FastGelu, "silu": SiLU, "softplus": Softplus}


def get_activation(name: Any) -> Cell | None:
    if name is None or isinstance(name, Cell):
        return name
    if isinstance(name, str) and name.lower() in _ACTIVATIONS:
        return _ACTIVATIONS[name.lower()]()
    raise ValueError(f"unknown activation {name!r}; known: {', '.join(_ACTIVATIONS)}")


class Flatten(Cell):
    """Flatten every axis from ``start_dim`` (default 1) on: (N, ...) -> (N, -1)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        if end_dim != -1:
            raise ValueError("Flatten: only end_dim=-1 is supported")
        self.start_dim = start_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim)


class Dense(Cell):
    """``y = activation(x @ weight.T + bias)``; weight (out_channels, in_channels).

    Defaults as in MindSpore 2.x: weight HeUniform(a=sqrt(5)), bias
    Uniform(1/sqrt(in_channels)).
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = None,
                 bias_init: Any = None, has_bias: bool = True, activation: Any = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()

        positive_ints("Dense", in_channels=in_channels, out_channels=out_channels)
        self.in_channels, self.out_channels, self.has_bias = in_channels, out_channels, has_bias
        dt = dtype or mstype.float32
        winit = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(winit, (out_channels, in_channels), dt), "weight")
        if has_bias:
            binit = Uniform(1 / math.sqrt(in_channels)) if bias_init is None else bias_init
            self.bias = Parameter(initializer(binit, (out_channels,), dt), "bias")
        else:
            self.bias = None  # as MindSpore's: ``cell.bias is None`` tells there is none
        self.matmul = ops.MatMul(transpose_b=True)
        self.bias_add = ops.BiasAdd()
        self.activation = get_activation(activation)

    def construct(self, x):
        shape = tensor_shape(f"Dense({self.in_channels}, {self.out_channels})", x)
        if not shape or shape[-1] != self.in_channels:
            from ..errors import user_location, with_location

            raise ValueError(with_location(
                f"Dense({self.in_channels}, {self.out_channels}): expected input (..., "
                f"{self.in_channels}), got {shape}", user_location()))
        if len(shape) != 2:  # (*, in_channels), as MindSpore accepts
            x = ops.reshape(x, (-1, self.in_channels))
        out = self.matmul(x, self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        if len(shape) != 2:
            out = ops.reshape(out, shape[:-1] + (self.out_channels,))
        return self.activation(out) if self.activation is not None else out

    def extend_repr(self) -> str:
        text = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        return text + (", has_bias=True" if self.has_bias else "")  # MindSpore omits False


class Dropout(Cell):
    """Zero entries with probability ``p`` in training (MindSpore 2.x ``p``; ``keep_prob``
    is the older spelling); identity in evaluation."""

    def __init__(self, keep_prob: float = 0.5, p: float | None = None,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        # ``dtype``: MindSpore's input-dtype declaration, unused (the output is the input's dtype)
        if p is None:
            p = 1.0 - keep_prob
        if not 0.0 <= p < 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
        self.p = p
        self.dropout = ops.Dropout(1.0 - p) if p > 0 else None

    def construct(self, x):
        if not self.training or self.dropout is None:
            return x
        return self.dropout(x)[0]
