"""Momentum SGD (MindSpore's ApplyMomentum)."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class Momentum(Optimizer):
    """``accum = momentum * accum + grad``; ``param -= lr * accum`` (Nesterov:
    ``param -= lr * (grad + momentum * accum)``)."""

    slot_names = ("moments",)

    def __init__(self, params: Any, learning_rate: float, momentum: float,
                 weight_decay: float = 0.0, loss_scale: float = 1.0,
                 use_nesterov: bool = False) -> None:
        if momentum < 0.0:
            raise ValueError(f"Momentum: momentum must be >= 0, got {momentum}")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = float(momentum)
        self.use_nesterov = use_nesterov

    def apply(self, param, grad, slots, lr, step):
        (accum,) = slots
        accum = ops.add(ops.mul(accum, self.momentum), grad)
        if self.use_nesterov:
            delta = ops.add(grad, ops.mul(accum, self.momentum))
        else:
            delta = accum
        return ops.sub(param, ops.mul(delta, lr)), (accum,)
