"""MindSpore's backward primitives of the normalizations (``G.BatchNormGrad``, ``G.LRNGrad``),
as closed forms composed of our primitives (both modes, differentiable).

``BatchNormGrad(is_training, epsilon)(dy, x, scale, mean, variance, reserve)`` gives ``(dx,
dscale, dbias)`` per channel (axis 1, NCHW or ``(N, C)``): with ``xhat = (x - mean) /
sqrt(variance + epsilon)``, ``dscale = sum(dy xhat)`` and ``dbias = sum(dy)`` over every other
axis; ``dx = scale / sqrt(variance + epsilon) * (dy - mean(dy) - xhat mean(dy xhat))`` when
training (``mean``/``variance``: the batch's), ``dy scale / sqrt(variance + epsilon)``
otherwise (the running statistics are constants then).

``LRNGrad(depth_radius, bias, alpha, beta)(grads, x, y)``: LRN is ``y = x s**-beta`` with ``s
= bias + alpha * (window sum of x**2 over the channels c - r .. c + r)``; the window is
symmetric, so ``dx = grads s**-beta - 2 alpha beta x * window_sum(grads x s**(-beta - 1))``.
"""

from __future__ import annotations

from typing import Any

from .elementwise import add, div, mul, pow, sqrt, sub
from .reduce import reduce_sum
from .shape_ops import pad, reshape, slice_


def _channel_sum(v: Any, radius: int) -> Any:
    """The sum of ``v`` over the channels ``c - radius .. c + radius`` (NCHW), zeros beyond."""
    padded = pad(v, ((0, 0), (radius, radius), (0, 0), (0, 0)))
    total = slice_(padded, (0, 0, 0, 0), tuple(v.shape))
    for shift in range(1, 2 * radius + 1):
        total = add(total, slice_(padded, (0, shift, 0, 0), tuple(v.shape)))
    return total


class LRNGrad:
    """``LRNGrad(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5)(grads, x, y)``: see the module
    docstring (``y``, LRN's output, is not needed)."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0,
                 beta: float = 0.5) -> None:
        if int(depth_radius) < 0:
            raise ValueError(f"LRNGrad: depth_radius must be >= 0, got {depth_radius}")
        self.depth_radius, self.bias = int(depth_radius), float(bias)
        self.alpha, self.beta = float(alpha), float(beta)

    def __call__(self, grads: Any, x: Any, y: Any) -> Any:
        if len(x.shape) != 4:
            raise ValueError(f"LRNGrad: x must be NCHW, got shape {tuple(x.shape)}")
        s = add(mul(_channel_sum(mul(x, x), self.depth_radius), self.alpha), self.bias)
        scaled = pow(s, -self.beta)
        inner = _channel_sum(mul(mul(grads, x), div(scaled, s)), self.depth_radius)
        return sub(mul(grads, scaled), mul(mul(x, inner), 2 * self.alpha * self.beta))


class BatchNormGrad:
    """``BatchNormGrad(is_training=False, epsilon=1e-5, data_format='NCHW')(dy, x, scale,
    reserve_space_1, reserve_space_2, reserve_space_3)`` -> ``(dx, dscale, dbias)``: see the
    module docstring (``reserve_space_1``/``_2``: the mean and variance, ``_3`` unread)."""

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5,
                 data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"BatchNormGrad: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.is_training, self.epsilon, self.data_format = bool(is_training), float(epsilon), data_format

    def __call__(self, dy: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any,
                 reserve_space_3: Any = None) -> Any:
        if self.data_format != "NCHW":  # MindSpore's CPU kernel has NCHW only
            raise ValueError("BatchNormGrad: data_format 'NHWC' is not supported on CPU; use 'NCHW'")
        rank = len(x.shape)
        if rank < 2:
            raise ValueError(f"BatchNormGrad: x must be (N, C, ...), got shape {tuple(x.shape)}")
        channels = x.shape[1]
        per_channel = (1, channels) + (1,) * (rank - 2)
        others = tuple(a for a in range(rank) if a != 1)
        count = 1
        for a in others:
            count *= x.shape[a]
        inv_std = div(1.0, sqrt(add(reshape(reserve_space_2, per_channel), self.epsilon)))
        xhat = mul(sub(x, reshape(reserve_space_1, per_channel)), inv_std)
        dbias = reduce_sum(dy, others)
        dscale = reduce_sum(mul(dy, xhat), others)
        gain = mul(reshape(scale, per_channel), inv_std)
        if not self.is_training:
            return mul(dy, gain), dscale, dbias
        centred = sub(sub(dy, div(reshape(dbias, per_channel), count)),
                      mul(xhat, div(reshape(dscale, per_channel), count)))
        return mul(centred, gain), dscale, dbias


__all__ = ["BatchNormGrad", "LRNGrad"]
