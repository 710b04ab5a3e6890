"""``nn.PoissonNLLLoss`` and ``nn.TripletMarginWithDistanceLoss`` (compositions of ops)."""

from __future__ import annotations

import math
from typing import Any

from .. import ops
from .loss import LossBase


def _tensor(who: str, name: str, x: Any) -> None:
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise TypeError(f"{who}: {name} must be a Tensor, got {type(x).__name__}")


class PoissonNLLLoss(LossBase):
    """Negative log-likelihood of a Poisson target: ``exp(x) - t x`` (``log_input``) or
    ``x - t log(x + eps)``; ``full`` adds Stirling's ``t log t - t + log(2 pi t) / 2`` where
    ``t > 1``."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-08,
                 reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):  # noqa: A002  (MindSpore's names)
        who = type(self).__name__
        _tensor(who, "input", input)
        _tensor(who, "target", target)
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.exp(input) - target * input
        else:
            loss = input - target * ops.log(input + self.eps)
        if self.full:
            t = ops.maximum(target, ops.cast(ops.fill(target.dtype, (), self.eps), target.dtype))
            stirling = (t + 0.5) * ops.log(t) - t + 0.5 * math.log(2 * math.pi)
            loss = loss + ops.select(ops.greater(t, 1.0), stirling, ops.zeros_like(stirling))
        return self.get_loss(loss)


def _pairwise_distance(x: Any, y: Any) -> Any:
    d = ops.abs(x - y)
    if len(d.shape) == 0:
        raise ValueError("TripletMarginWithDistanceLoss: the inputs must have at least one "
                         "dimension for the default distance")
    return ops.sqrt(ops.reduce_sum(d * d, 1))


class TripletMarginWithDistanceLoss(LossBase):
    """``max(d(x, positive) - d(x, negative) + margin, 0)``; ``d`` the given function or the
    Euclidean distance along axis 1; ``swap``: ``d(x, negative)`` is replaced by
    ``min(d(x, negative), d(positive, negative))``."""

    def __init__(self, distance_function: Any = None, swap: bool = False,
                 reduction: str = "mean", margin: float = 1.0) -> None:
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"TripletMarginWithDistanceLoss: margin must be a float, got {margin!r}")
        if not isinstance(swap, bool):
            raise TypeError(f"TripletMarginWithDistanceLoss: swap must be a bool, got {swap!r}")
        self.distance_function = distance_function or _pairwise_distance
        self.swap, self.margin = swap, margin

    def construct(self, x, positive, negative):
        who = type(self).__name__
        for name, value in (("x", x), ("positive", positive), ("negative", negative)):
            _tensor(who, name, value)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.relu(d1 - d2 + self.margin))
