"""Adam (MindSpore's ApplyAdam with bias correction folded into the step size)."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class Adam(Optimizer):
    """``m = b1 m + (1-b1) g``; ``v = b2 v + (1-b2) g^2``;
    ``param -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``."""

    slot_names = ("moment1", "moment2")

    def __init__(self, params: Any, learning_rate: float = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, use_locking: bool = False,
                 use_nesterov: bool = False, weight_decay: float = 0.0,
                 loss_scale: float = 1.0) -> None:
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0) or eps <= 0.0:
            raise ValueError("Adam: beta1 and beta2 must be in [0, 1) and eps > 0")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps, self.use_nesterov = beta1, beta2, eps, use_nesterov

    def apply(self, param, grad, slots, lr, step):
        m, v = slots
        b1, b2 = self.beta1, self.beta2
        t = ops.cast(step, grad.dtype)
        b1_power = ops.pow(ops.add(ops.zeros_like(t), b1), t)
        b2_power = ops.pow(ops.add(ops.zeros_like(t), b2), t)
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        step_size = ops.div(ops.mul(lr, ops.sqrt(ops.sub(1.0, b2_power))), ops.sub(1.0, b1_power))
        direction = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1)) if self.use_nesterov else m
        update = ops.div(direction, ops.add(ops.sqrt(v), self.eps))
        return ops.sub(param, ops.mul(update, step_size)), (m, v)
