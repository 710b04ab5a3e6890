"""RMSProp (MindSpore's ``nn.RMSProp``, after TF1's ``RMSPropOptimizer``), plain or centered."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class RMSProp(Optimizer):
    """``s = decay * s + (1 - decay) * g^2``; ``m = momentum * m + lr * g / sqrt(s + eps)``;
    ``w -= m``. ``centered``: also ``gm = decay * gm + (1 - decay) * g`` and the root is
    ``sqrt(s - gm^2 + eps)``. The mean square starts at ones (TF1's and MindSpore's
    initial ``mean_square``), the moment and mean gradient at zeros."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, decay: float = 0.9,
                 momentum: float = 0.0, epsilon: float = 1e-10, use_locking: bool = False,
                 centered: bool = False, loss_scale: float = 1.0,
                 weight_decay: float = 0.0) -> None:
        for name, value in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"RMSProp: {name} must be a float, got {value!r}")
        if decay < 0.0 or momentum < 0.0 or epsilon <= 0.0:
            raise ValueError(f"RMSProp: decay and momentum must be >= 0 and epsilon > 0, got "
                             f"{decay}, {momentum}, {epsilon}")
        if not isinstance(centered, bool):
            raise TypeError(f"RMSProp: centered must be a bool, got {centered!r}")
        # the base class reads slot_names while building the state; set before Cell.__init__
        self.__dict__["slot_names"] = ("mean_square", "moment") + (("mean_grad",) if centered else ())
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for p in self.mean_square:  # ones, not zeros
            p.set_data(ops.ones_like(p))
        self.decay, self.momentum, self.epsilon = float(decay), float(momentum), float(epsilon)
        self.centered = centered

    def apply(self, param, grad, slots, lr, step):
        rho = self.decay
        ms = ops.add(ops.mul(slots[0], rho), ops.mul(ops.mul(grad, grad), 1.0 - rho))
        denominator = ms
        new = [ms, None]
        if self.centered:
            mg = ops.add(ops.mul(slots[2], rho), ops.mul(grad, 1.0 - rho))
            denominator = ops.sub(ms, ops.mul(mg, mg))
            new.append(mg)
        scaled = ops.div(ops.mul(grad, lr), ops.sqrt(ops.add(denominator, self.epsilon)))
        moment = ops.add(ops.mul(slots[1], self.momentum), scaled)
        new[1] = moment
        return ops.sub(param, moment), tuple(new)
