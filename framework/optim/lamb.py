"""LAMB (You et al. 2019; MindSpore's ``nn.Lamb``): Adam's bias-corrected direction plus
the weight decay, scaled per parameter by the trust ratio ``||w|| / ||update||``."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


def _norm(x):
    return ops.sqrt(ops.reduce_sum(ops.mul(x, x)))


class Lamb(Optimizer):
    """``m = b1 m + (1-b1) g``; ``v = b2 v + (1-b2) g^2``; ``r = (m / (1-b1^t)) /
    (sqrt(v / (1-b2^t)) + eps)``; ``u = r + weight_decay * w``;
    ``w -= lr * (||w|| / ||u||) * u``, the ratio 1 when either norm is 0. Parameters the
    decay filter skips (``beta``/``gamma``; or a group's ``weight_decay: 0``) have no decay
    term."""

    slot_names = ("moments1", "moments2")
    decay_in_apply = True

    def __init__(self, params: Any, learning_rate: Any, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
            if isinstance(value, bool) or not isinstance(value, float):
                raise TypeError(f"Lamb: {name} must be a float, got {value!r}")
        if not (0.0 < beta1 < 1.0 and 0.0 < beta2 < 1.0) or eps <= 0.0:
            raise ValueError("Lamb: beta1 and beta2 must be in (0, 1) and eps > 0")
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def apply(self, param, grad, slots, lr, step, decay):
        m, v = slots
        b1, b2 = self.beta1, self.beta2
        t = ops.cast(step, grad.dtype)
        one = ops.ones_like(t)
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        m_hat = ops.div(m, ops.sub(1.0, ops.pow(ops.mul(one, b1), t)))
        v_hat = ops.div(v, ops.sub(1.0, ops.pow(ops.mul(one, b2), t)))
        update = ops.div(m_hat, ops.add(ops.sqrt(v_hat), self.eps))
        if decay:
            update = ops.add(update, ops.mul(param, decay))
        w_norm, u_norm = _norm(param), _norm(update)
        both = ops.greater(ops.mul(w_norm, u_norm), 0.0)
        ratio = ops.select(both, ops.div(w_norm, ops.select(both, u_norm, 1.0)), 1.0)
        return ops.sub(param, ops.mul(update, ops.mul(ratio, lr))), (m, v)
