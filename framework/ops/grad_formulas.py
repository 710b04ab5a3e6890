"""More of MindSpore's backward primitives (``G.AsinGrad()`` ...) whose derivative has a closed
form: inverse trigonometric/hyperbolic functions, activations, normalizations and losses.
Each is an exact composition of our primitives, so it runs in both modes and is itself
differentiable.

Argument orders are MindSpore 2.10's (checked by ``tests/mindspore_ref/ms_grad_ops_a_*``):
``ACosGrad``/``AsinGrad``/``AtanGrad(x, dy)`` read the forward's *input*;
``AcoshGrad``/``AsinhGrad``/``InvGrad(y, dy)`` and ``LogSoftmaxGrad(axis)(y, dy)`` read its
*output*; the activations take ``(dy, x)`` (``GeLUGrad(dy, x, y)``: the tanh-approximated GeLU's
derivative, ``y`` unread); the losses take ``(logits, labels, dy[, weight])``
(``BinaryCrossEntropyGrad``) and ``(dy, logits, labels)`` (``KLDivLossGrad``), ``dy`` a scalar
unless ``reduction='none'``.
"""

from __future__ import annotations

import math
from typing import Any

from .array_ops import split
from .elementwise import abs as _abs
from .elementwise import add, cast, div, exp, greater, less, maximum, mul, sqrt, sub, tanh
from .elementwise import sigmoid as _sigmoid
from .reduce import reduce_sum
from .shape_ops import concat, reshape

_REDUCTIONS = ("none", "mean", "sum")


def _mask(cond: Any, like: Any) -> Any:
    return cast(cond, like.dtype)


def _reduction(owner: str, reduction: str, allowed: tuple = _REDUCTIONS) -> str:
    if reduction not in allowed:
        raise ValueError(f"{owner}: reduction must be one of {allowed}, got {reduction!r}")
    return reduction


def _count(x: Any) -> int:
    return math.prod(x.shape)


class ACosGrad:
    """``ACosGrad()(x, dy)``: ``-dy / sqrt(1 - x**2)``."""

    def __call__(self, x: Any, dy: Any) -> Any:
        return div(mul(dy, -1), sqrt(sub(1, mul(x, x))))


class AsinGrad:
    """``AsinGrad()(x, dy)``: ``dy / sqrt(1 - x**2)``."""

    def __call__(self, x: Any, dy: Any) -> Any:
        return div(dy, sqrt(sub(1, mul(x, x))))


class AtanGrad:
    """``AtanGrad()(x, dy)``: ``dy / (1 + x**2)``."""

    def __call__(self, x: Any, dy: Any) -> Any:
        return div(dy, add(1, mul(x, x)))


class AcoshGrad:
    """``AcoshGrad()(y, dy)`` (``y = acosh(x)``): ``dy / sinh(y)``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return div(mul(dy, 2), sub(exp(y), exp(mul(y, -1))))


class AsinhGrad:
    """``AsinhGrad()(y, dy)`` (``y = asinh(x)``): ``dy / cosh(y)``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return div(mul(dy, 2), add(exp(y), exp(mul(y, -1))))


class InvGrad:
    """``InvGrad()(y, dy)`` (``y = 1 / x``): ``-dy * y**2``."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(dy, mul(mul(y, y), -1))


class GeLUGrad:
    """``GeLUGrad()(dy, x, y)``: ``dy`` times the derivative of the tanh-approximated GeLU
    ``x (1 + tanh(c (x + 0.044715 x**3))) / 2`` at ``x``, ``c = sqrt(2 / pi)``."""

    def __call__(self, dy: Any, x: Any, y: Any) -> Any:
        c = math.sqrt(2.0 / math.pi)
        x2 = mul(x, x)
        t = tanh(mul(mul(x, add(1, mul(x2, 0.044715))), c))
        inner = mul(add(1, mul(x2, 3 * 0.044715)), c)
        slope = add(mul(add(1, t), 0.5), mul(mul(mul(x, 0.5), sub(1, mul(t, t))), inner))
        return mul(dy, slope)


class FastGeLUGrad:
    """``FastGeLUGrad()(dy, x)``: the derivative of ``x * sigmoid(1.702 x)``: ``dy * (s + 1.702
    x s (1 - s))``."""

    def __call__(self, dy: Any, x: Any) -> Any:
        s = _sigmoid(mul(x, 1.702))
        return mul(dy, add(s, mul(mul(mul(x, 1.702), s), sub(1, s))))


class HShrinkGrad:
    """``HShrinkGrad(lambd=0.5)(dy, x)``: ``dy`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        if lambd < 0:
            raise ValueError(f"HShrinkGrad: lambd must be >= 0, got {lambd}")
        self.lambd = float(lambd)

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(dy, _mask(greater(_abs(x), self.lambd), dy))


class LogitGrad:
    """``LogitGrad(eps=-1.0)(dy, x)``: ``dy / (x (1 - x))``; with ``eps >= 0``, 0 where ``x``
    lies outside ``[eps, 1 - eps]`` (the forward clamps there)."""

    def __init__(self, eps: float = -1.0) -> None:
        self.eps = float(eps)

    def __call__(self, dy: Any, x: Any) -> Any:
        out = div(dy, mul(x, sub(1, x)))
        if self.eps < 0:
            return out
        inside = mul(sub(1, _mask(less(x, self.eps), dy)), sub(1, _mask(greater(x, 1 - self.eps), dy)))
        return mul(out, inside)


class LogSoftmaxGrad:
    """``LogSoftmaxGrad(axis=-1)(y, dy)`` (``y``: log_softmax's output): ``dy - exp(y) *
    sum(dy, axis)``."""

    def __init__(self, axis: int = -1) -> None:
        self.axis = int(axis)

    def __call__(self, y: Any, dy: Any) -> Any:
        return sub(dy, mul(exp(y), reduce_sum(dy, (self.axis,), True)))


class FlattenGrad:
    """``FlattenGrad()(dy, shape)``: ``dy`` reshaped back to the forward input's ``shape``."""

    def __call__(self, dy: Any, shape: Any) -> Any:
        return reshape(dy, tuple(int(s) for s in shape))


class GluGrad:
    """``GluGrad(axis)(grads, x)``: with ``x = [a, b]`` halved along ``axis`` and GLU ``a *
    sigmoid(b)``, the gradient ``[grads * s, grads * a * s (1 - s)]``, ``s = sigmoid(b)``."""

    def __init__(self, axis: int) -> None:
        self.axis = int(axis)

    def __call__(self, grads: Any, x: Any) -> Any:
        a, b = split(x, x.shape[self.axis] // 2, self.axis)
        s = _sigmoid(b)
        return concat((mul(grads, s), mul(mul(grads, a), mul(s, sub(1, s)))), self.axis)


class L2NormalizeGrad:
    """``L2NormalizeGrad(axis=0, epsilon=1e-4)(x, y, dy)`` (``y``: the normalized output):
    ``(dy - y * sum(y * dy, axis)) / max(sqrt(sum(x**2, axis)), epsilon)``."""

    def __init__(self, axis: int | tuple = 0, epsilon: float = 1e-4) -> None:
        self.axis = tuple(axis) if isinstance(axis, (tuple, list)) else (int(axis),)
        self.epsilon = float(epsilon)

    def __call__(self, x: Any, y: Any, dy: Any) -> Any:
        norm = maximum(sqrt(reduce_sum(mul(x, x), self.axis, True)), self.epsilon)
        return div(sub(dy, mul(y, reduce_sum(mul(y, dy), self.axis, True))), norm)


class BinaryCrossEntropyGrad:
    """``BinaryCrossEntropyGrad(reduction='mean')(logits, labels, dy, weight=None)``: ``dy *
    weight * (logits - labels) / max(logits (1 - logits), 1e-12)``, divided by the element
    count for ``'mean'``."""

    def __init__(self, reduction: str = "mean") -> None:
        self.reduction = _reduction("BinaryCrossEntropyGrad", reduction)

    def __call__(self, logits: Any, labels: Any, dy: Any, weight: Any = None) -> Any:
        slope = div(sub(logits, labels), maximum(mul(logits, sub(1, logits)), 1e-12))
        out = mul(slope, dy)
        if weight is not None:
            out = mul(out, weight)
        return div(out, _count(logits)) if self.reduction == "mean" else out


class KLDivLossGrad:
    """``KLDivLossGrad(reduction='mean')(dy, logits, labels)``: ``-labels * dy``, divided by the
    element count for ``'mean'`` and by the batch (first axis) for ``'batchmean'``."""

    def __init__(self, reduction: str = "mean") -> None:
        self.reduction = _reduction("KLDivLossGrad", reduction, _REDUCTIONS + ("batchmean",))

    def __call__(self, dy: Any, logits: Any, labels: Any) -> Any:
        out = mul(mul(labels, dy), -1)
        if self.reduction == "mean":
            return div(out, _count(logits))
        if self.reduction == "batchmean":
            return div(out, logits.shape[0])
        return out


__all__ = ["ACosGrad", "AcoshGrad", "AsinGrad", "AsinhGrad", "AtanGrad",
           "BinaryCrossEntropyGrad", "FastGeLUGrad", "FlattenGrad", "GeLUGrad", "GluGrad",
           "HShrinkGrad", "InvGrad", "KLDivLossGrad", "L2NormalizeGrad", "LogSoftmaxGrad",
           "LogitGrad"]
