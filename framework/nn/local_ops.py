"""``nn.LRN`` (local response normalization across channels) and ``nn.RReLU`` (randomized
leaky ReLU), compositions of ops."""

from __future__ import annotations

from .. import ops
from ..ops.random_draw import random_draw
from ..ops.shape_ops import pad as pad_pairs
from .cell import Cell
from .checks import tensor_shape


class LRN(Cell):
    """``x / (bias + alpha * s)^beta`` with ``s`` the sum of ``x^2`` over the channels
    ``c - depth_radius .. c + depth_radius`` (those that exist) of a 4-d NCHW input."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                 beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
            raise ValueError(f"LRN: depth_radius must be an int >= 0, got {depth_radius!r}")
        for name, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            if not isinstance(value, float):
                raise TypeError(f"LRN: {name} must be a float, got {value!r}")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta

    def construct(self, input_x):
        shape = tensor_shape("LRN", input_x)
        if len(shape) != 4:
            raise ValueError(f"LRN: expected a 4-d NCHW input, got {shape}")
        r, c = self.depth_radius, shape[1]
        square = input_x * input_x
        if r:
            square = pad_pairs(square, ((0, 0), (r, r), (0, 0), (0, 0)))
        total = square[:, 0:c]
        for j in range(1, 2 * r + 1):
            total = total + square[:, j:j + c]
        return input_x / ops.pow(total * self.alpha + self.bias, self.beta)


class RReLU(Cell):
    """``x`` where ``x >= 0``, else ``a * x`` with ``a`` drawn uniformly from
    ``[lower, upper)`` per element at every call (training or not, as MindSpore's)."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3) -> None:
        super().__init__()
        for name, value in (("lower", lower), ("upper", upper)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"RReLU: {name} must be a float or an int, got {value!r}")
        if lower > upper:
            raise ValueError(f"RReLU: upper must be >= lower, got upper {upper}, lower {lower}")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        shape = tensor_shape("RReLU", x)
        draw = random_draw("uniform", shape, x.dtype.np)
        slope = draw * (self.upper - self.lower) + self.lower
        return ops.select(ops.less(x, 0.0), x * slope, x)
