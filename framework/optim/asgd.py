"""Averaged SGD (MindSpore's ``nn.ASGD``)."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class ASGD(Optimizer):
    """``w = w (1 - lambd eta) - eta g``; the average ``ax`` follows ``w`` (``ax += (w - ax)
    mu`` once ``mu`` < 1); then ``eta = lr / (1 + lambd lr t)^alpha`` and ``mu = 1 / max(1,
    t - t0)`` for the next step (``eta`` is ``lr`` on the first). ``eta`` and ``mu`` are kept
    per coordinate (one value per parameter, broadcast), so they are state as the slots are."""

    slot_names = ("ax", "eta", "mu")

    def __init__(self, params: Any, learning_rate: Any = 0.1, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0.0) -> None:
        for name, value in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            if not isinstance(value, float):  # MindSpore's check: floats, not ints
                raise TypeError(f"ASGD: {name} must be a float, got {value!r}")
        super().__init__(learning_rate, params, weight_decay)
        for p in self.mu:
            p.set_data(ops.ones_like(p))
        self.lambd, self.alpha, self.t0 = lambd, alpha, t0

    def apply(self, param, grad, slots, lr, step):
        ax, eta, mu = slots
        lr = ops.cast(lr, param.dtype)
        eta = ops.select(ops.equal(step, 1), ops.add(ops.zeros_like(eta), lr), eta)
        new = ops.sub(ops.mul(param, ops.sub(1.0, ops.mul(eta, self.lambd))), ops.mul(eta, grad))
        ax = ops.select(ops.not_equal(mu, 1.0), ops.add(ax, ops.mul(ops.sub(new, ax), mu)), new)
        t = ops.cast(step, param.dtype)
        eta = ops.add(ops.zeros_like(eta),
                      ops.div(lr, ops.pow(ops.add(ops.mul(ops.mul(lr, t), self.lambd), 1.0),
                                          self.alpha)))
        mu = ops.add(ops.zeros_like(mu), ops.div(1.0, ops.maximum(ops.sub(t, self.t0), 1.0)))
        return new, (ax, eta, mu)
