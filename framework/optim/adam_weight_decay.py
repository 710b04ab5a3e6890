"""AdamWeightDecay (MindSpore's ``nn.AdamWeightDecay``, AdamW): Adam without bias correction
and with the weight decay decoupled from the gradient."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class AdamWeightDecay(Optimizer):
    """``m = b1 m + (1-b1) g``; ``v = b2 v + (1-b2) g^2``;
    ``w -= lr * (m / (sqrt(v) + eps) + weight_decay * w)`` (the decay term only for
    parameters the decay filter keeps: not ``beta``/``gamma``)."""

    slot_names = ("moment1", "moment2")
    decoupled_decay = True

    def __init__(self, params: Any, learning_rate: float = 1e-3, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        if not (0.0 < beta1 < 1.0 and 0.0 < beta2 < 1.0) or eps <= 0.0:
            raise ValueError("AdamWeightDecay: beta1 and beta2 must be in (0, 1) and eps > 0")
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def apply(self, param, grad, slots, lr, step):
        m, v = slots
        b1, b2 = self.beta1, self.beta2
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        update = ops.div(m, ops.add(ops.sqrt(v), self.eps))
        return ops.sub(param, ops.mul(update, lr)), (m, v)
