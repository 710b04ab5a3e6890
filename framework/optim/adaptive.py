"""Per-coordinate adaptive optimizers: Adagrad, Adadelta and AdaMax (MindSpore's
``ApplyAdagrad``, ``ApplyAdadelta`` and ``ApplyAdaMax`` updates)."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


def _number(who: str, **values: Any) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{who}: {name} must be a float, got {value!r}")


class Adagrad(Optimizer):
    """``accum += g^2``; ``w -= lr * g / sqrt(accum)``. The accumulator starts at ``accum``
    (0.1). ``update_slots`` is accepted and, as by MindSpore 2.10's CPU kernel, not acted
    on: the accumulator is updated either way (measured: the same steps with False)."""

    slot_names = ("accum",)

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001,
                 update_slots: bool = True, loss_scale: float = 1.0,
                 weight_decay: float = 0.0) -> None:
        _number("Adagrad", accum=accum)
        if accum < 0:
            raise ValueError(f"Adagrad: accum must be >= 0, got {accum}")
        if not isinstance(update_slots, bool):
            raise TypeError(f"Adagrad: update_slots must be a bool, got {update_slots!r}")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for p in self.accum:
            p.set_data(ops.fill(p.dtype, p.shape, float(accum)))
        self.update_slots = update_slots

    def apply(self, param, grad, slots, lr, step):
        (accum,) = slots
        accum = ops.add(accum, ops.mul(grad, grad))
        return ops.sub(param, ops.div(ops.mul(grad, lr), ops.sqrt(accum))), (accum,)


class Adadelta(Optimizer):
    """``accum = rho accum + (1 - rho) g^2``; ``u = sqrt(accum_update + eps) g /
    sqrt(accum + eps)``; ``accum_update = rho accum_update + (1 - rho) u^2``; ``w -= lr u``."""

    slot_names = ("accum", "accum_update")

    def __init__(self, params: Any, learning_rate: Any = 1.0, rho: float = 0.9,
                 epsilon: float = 1e-6, loss_scale: float = 1.0,
                 weight_decay: float = 0.0) -> None:
        _number("Adadelta", rho=rho, epsilon=epsilon)
        if not 0.0 <= rho <= 1.0 or epsilon < 0:
            raise ValueError(f"Adadelta: rho must be in [0, 1] and epsilon >= 0, got {rho}, {epsilon}")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho, self.epsilon = float(rho), float(epsilon)

    def apply(self, param, grad, slots, lr, step):
        accum, accum_update = slots
        rho, eps = self.rho, self.epsilon
        accum = ops.add(ops.mul(accum, rho), ops.mul(ops.mul(grad, grad), 1.0 - rho))
        update = ops.div(ops.mul(ops.sqrt(ops.add(accum_update, eps)), grad),
                         ops.sqrt(ops.add(accum, eps)))
        accum_update = ops.add(ops.mul(accum_update, rho), ops.mul(ops.mul(update, update), 1.0 - rho))
        return ops.sub(param, ops.mul(update, lr)), (accum, accum_update)


class AdaMax(Optimizer):
    """Adam with the infinity norm: ``m = b1 m + (1 - b1) g``; ``v = max(b2 v, |g|)``;
    ``w -= lr / (1 - b1^t) * m / (v + eps)``."""

    slot_names = ("moment1", "moment2")

    def __init__(self, params: Any, learning_rate: Any = 0.001, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.0,
                 loss_scale: float = 1.0) -> None:
        _number("AdaMax", beta1=beta1, beta2=beta2, eps=eps)
        if not (0.0 < beta1 < 1.0 and 0.0 < beta2 < 1.0) or eps <= 0:
            raise ValueError(f"AdaMax: beta1 and beta2 must be in (0, 1) and eps > 0, got "
                             f"{beta1}, {beta2}, {eps}")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)

    def apply(self, param, grad, slots, lr, step):
        m, v = slots
        b1 = self.beta1
        power = ops.pow(ops.add(ops.zeros_like(ops.cast(step, grad.dtype)), b1),
                        ops.cast(step, grad.dtype))
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.maximum(ops.mul(v, self.beta2), ops.abs(grad))
        scale = ops.div(lr, ops.sub(1.0, power))
        return ops.sub(param, ops.mul(ops.div(m, ops.add(v, self.eps)), scale)), (m, v)
