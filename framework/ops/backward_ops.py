"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` for losses, PReLU, slicing
and trace (``G.SmoothL1LossGrad()`` ...), as exact compositions of our primitives so they run
in both modes and have gradients of their own.

Argument orders and attributes are MindSpore 2.10's (checked on its CPU build):
``SigmoidCrossEntropyWithLogitsGrad()(x, y, dout)``; ``SmoothL1LossGrad(beta, reduction)(
prediction, target, dout)``; ``SoftShrinkGrad(lambd)(dy, x)``; ``PReLUGrad()(dy, x, w) ->
(dx, dw)`` (``w`` per channel, axis 1, or one value); ``SliceGrad()(dy, x, begin, size)``
(``dy`` placed in zeros shaped like ``x``); ``TraceGrad()(dout, x_shape)`` (``x_shape`` an
int64 Tensor, as MindSpore requires).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_layout import eye as _eye
from .elementwise import abs as _abs
from .elementwise import add, cast, div, greater, less, mul, sub
from .elementwise import sigmoid as _sigmoid
from .math_unary import sign as _sign
from .reduce import reduce_sum
from .shape_ops import pad as _pad
from .shape_ops import reshape as _reshape


def _mask(cond: Any, like: Any) -> Any:
    return cast(cond, like.dtype)


class SigmoidCrossEntropyWithLogitsGrad:
    """``SigmoidCrossEntropyWithLogitsGrad()(x, y, dout)``: ``dout * (sigmoid(x) - y)``."""

    def __call__(self, x: Any, y: Any, dout: Any) -> Any:
        return mul(dout, sub(_sigmoid(x), y))


class SmoothL1LossGrad:
    """``SmoothL1LossGrad(beta=1.0, reduction='none')(prediction, target, dout)``: with ``d =
    prediction - target``, ``d / beta`` where ``|d| < beta``, else ``sign(d)``, times ``dout``
    (a scalar for ``'mean'``/``'sum'``; ``'mean'`` also divides by the element count)."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"SmoothL1LossGrad: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        if not beta > 0:
            raise ValueError(f"SmoothL1LossGrad: beta must be > 0, got {beta}")
        self.beta, self.reduction = float(beta), reduction

    def __call__(self, prediction: Any, target: Any, dout: Any) -> Any:
        d = sub(prediction, target)
        inside = _mask(less(_abs(d), self.beta), d)
        slope = add(mul(inside, div(d, self.beta)), mul(sub(1, inside), _sign(d)))
        grad = mul(slope, dout)
        if self.reduction == "mean":
            grad = div(grad, int(np.prod(tuple(prediction.shape), dtype=np.int64)))
        return grad


class SoftShrinkGrad:
    """``SoftShrinkGrad(lambd=0.5)(dy, x)``: ``dy`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        if lambd < 0:
            raise ValueError(f"SoftShrinkGrad: lambd must be >= 0, got {lambd}")
        self.lambd = float(lambd)

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(dy, _mask(greater(_abs(x), self.lambd), dy))


class PReLUGrad:
    """``PReLUGrad()(dy, x, w) -> (dx, dw)``: ``dx = dy`` where ``x > 0``, else ``dy * w``;
    ``dw`` sums ``dy * x`` over the elements with ``x <= 0``, per channel (axis 1) or over all
    when ``w`` holds one value."""

    def __call__(self, dy: Any, x: Any, w: Any) -> tuple:
        rank, channels = len(x.shape), int(np.prod(tuple(w.shape), dtype=np.int64))
        if channels > 1 and rank >= 2:
            wb = _reshape(w, (1, channels) + (1,) * (rank - 2))
            axes = tuple(a for a in range(rank) if a != 1)
        else:
            wb, axes = _reshape(w, (1,) * rank) if rank else _reshape(w, ()), tuple(range(rank))
        positive = _mask(greater(x, 0), dy)
        dx = mul(dy, add(positive, mul(sub(1, positive), wb)))
        dw = reduce_sum(mul(mul(dy, x), sub(1, positive)), axes)
        return dx, _reshape(dw, tuple(w.shape))


def _ints(value: Any) -> tuple[int, ...]:
    array = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    return tuple(int(v) for v in np.ravel(array))


class SliceGrad:
    """``SliceGrad()(dy, x, begin, size)``: zeros shaped like ``x`` with ``dy`` at
    ``begin`` (``size``: the slice's extent, as ``dy``'s shape; no -1)."""

    def __call__(self, dy: Any, x: Any, begin: Any, size: Any) -> Any:
        begin, size, shape = _ints(begin), _ints(size), tuple(x.shape)
        if len(begin) != len(shape) or len(size) != len(shape):
            raise ValueError(f"SliceGrad: begin {begin} and size {size} must have one entry per "
                             f"axis of x (shape {shape})")
        if any(s < 0 for s in size):
            raise ValueError(f"SliceGrad: size {size} can not be negative")
        if any(b < 0 or b + s > n for b, s, n in zip(begin, size, shape)):
            raise ValueError(f"SliceGrad: begin {begin} + size {size} exceeds x's shape {shape}")
        return _pad(dy, tuple((b, n - b - s) for b, s, n in zip(begin, size, shape)))


class TraceGrad:
    """``TraceGrad()(dout, x_shape)``: ``dout`` on the main diagonal of a matrix shaped
    ``x_shape`` (an int64 Tensor of two entries), zeros elsewhere."""

    def __call__(self, dout: Any, x_shape: Any) -> Any:
        dims = _ints(x_shape)
        if len(dims) != 2:
            raise ValueError(f"TraceGrad: x_shape must hold 2 dimensions, got {dims}")
        return mul(_eye(dims[0], dims[1], dout.dtype), dout)


__all__ = ["PReLUGrad", "SigmoidCrossEntropyWithLogitsGrad", "SliceGrad", "SmoothL1LossGrad",
           "SoftShrinkGrad", "TraceGrad"]
