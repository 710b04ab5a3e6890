"""Stochastic gradient descent with optional momentum, dampening and Nesterov."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class SGD(Optimizer):
    """PyTorch/MindSpore SGD: the first step's buffer is the gradient itself, later
    ``accum = momentum * accum + (1 - dampening) * grad``."""

    slot_names = ("accum",)

    def __init__(self, params: Any, learning_rate: float = 0.1, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 loss_scale: float = 1.0) -> None:
        if momentum < 0.0 or dampening < 0.0:
            raise ValueError("SGD: momentum and dampening must be >= 0")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("SGD: nesterov needs momentum > 0 and dampening = 0")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum, self.dampening, self.nesterov = float(momentum), float(dampening), nesterov

    def apply(self, param, grad, slots, lr, step):
        (accum,) = slots
        if self.momentum == 0.0:
            return ops.sub(param, ops.mul(grad, lr)), (accum,)
        scale = ops.select(ops.equal(step, 1), 1.0, 1.0 - self.dampening)
        accum = ops.add(ops.mul(accum, self.momentum), ops.mul(grad, ops.cast(scale, grad.dtype)))
        delta = ops.add(grad, ops.mul(accum, self.momentum)) if self.nesterov else accum
        return ops.sub(param, ops.mul(delta, lr)), (accum,)
