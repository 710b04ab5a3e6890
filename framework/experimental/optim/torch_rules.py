"""The other optimizers of ``mindspore.experimental.optim``, with PyTorch's signatures and
update rules as MindSpore 2.10 documents them (``g`` the gradient plus ``weight_decay * p``,
``t`` the step from 1, ``lr`` the optimizer's learning-rate Parameter, which the
:mod:`.lr_scheduler` schedulers change between steps):

- ``Adadelta``: ``v = rho v + (1 - rho) g^2``; ``d = sqrt(u + eps) / sqrt(v + eps) g``;
  ``u = rho u + (1 - rho) d^2``; ``p -= lr d``;
- ``Adagrad``: ``s += g^2`` (from ``initial_accumulator_value``); ``p -= lr / (1 + (t - 1)
  lr_decay) g / (sqrt(s) + eps)``;
- ``Adamax``: ``m = b1 m + (1 - b1) g``; ``u = max(b2 u, |g| + eps)``; ``p -= lr / (1 -
  b1^t) m / u``;
- ``NAdam``: ``mu_t = b1 (1 - 0.96^(t psi) / 2)`` (``psi`` the momentum decay), Adam's
  moments, ``p -= lr (1 - mu_t) / (1 - prod mu) g / d + lr mu_{t+1} / (1 - prod mu
  mu_{t+1}) m / d`` with ``d = sqrt(v / (1 - b2^t)) + eps``;
- ``RAdam``: Adam's moments; with ``rho_t = rho_inf - 2 t b2^t / (1 - b2^t)`` above 5 the
  rectified step ``lr m_hat r_t sqrt(1 - b2^t) / (sqrt(v) + eps)``, else ``lr m_hat``;
- ``RMSprop``: ``s = alpha s + (1 - alpha) g^2`` (``centered``: less the square of the
  mean ``a = alpha a + (1 - alpha) g``); ``p -= lr g / (sqrt(s) + eps)``, through a
  momentum buffer ``b = momentum b + g / (sqrt(s) + eps)`` when ``momentum > 0``;
- ``Rprop``: per coordinate, the step size (from ``lr``) times ``etas[1]`` where the
  gradient kept its sign, ``etas[0]`` where it flipped (and that gradient zeroed), within
  ``step_sizes``; ``p -= sign(g) step``;
- ``ASGD``: ``p = p (1 - lambd eta) - eta g``, the average ``ax`` following ``p`` once ``mu``
  < 1; then ``eta = lr / (1 + lambd lr t)^alpha``, ``mu = 1 / max(1, t - t0)``.

``maximize=True`` is refused with a message, as by SGD and Adam here.
"""

from __future__ import annotations

from typing import Any

from ... import ops
from ...optim.optimizer import Optimizer
from .groups import params_of, refuse


class _TorchRule(Optimizer):
    """The learning rate (a number), the parameter groups and ``weight_decay`` as PyTorch's."""

    def __init__(self, params: Any, lr: float, weight_decay: float, maximize: bool = False) -> None:
        owner = type(self).__name__
        refuse(owner, maximize=maximize)
        if lr < 0 or weight_decay < 0:
            raise ValueError(f"{owner}: lr and weight_decay must be >= 0, got {lr}, {weight_decay}")
        super().__init__(float(lr), params_of(owner, params, weight_decay), weight_decay)

    def _fill(self, slot: str, value: float) -> None:
        for p in self.slots[slot]:
            p.set_data(ops.add(ops.zeros_like(p), value))


def _power(base: float, t: Any) -> Any:
    """``base ** t`` for a Tensor step ``t`` (float)."""
    return ops.pow(ops.add(ops.zeros_like(t), base), t)


def _betas(owner: str, betas: tuple, eps: float) -> tuple[float, float]:
    b1, b2 = (float(b) for b in betas)
    if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0) or eps < 0.0:
        raise ValueError(f"{owner}: betas must be in [0, 1) and eps >= 0, got {betas}, {eps}")
    return b1, b2


class Adadelta(_TorchRule):
    slot_names = ("square_avg", "acc_delta")

    def __init__(self, params: Any, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        if not 0.0 <= rho <= 1.0 or eps < 0:
            raise ValueError(f"Adadelta: rho must be in [0, 1] and eps >= 0, got {rho}, {eps}")
        super().__init__(params, lr, weight_decay, maximize)
        self.rho, self.eps = float(rho), float(eps)

    def apply(self, param, grad, slots, lr, step):
        v, u = slots
        v = ops.add(ops.mul(v, self.rho), ops.mul(ops.mul(grad, grad), 1.0 - self.rho))
        delta = ops.mul(ops.div(ops.sqrt(ops.add(u, self.eps)), ops.sqrt(ops.add(v, self.eps))), grad)
        u = ops.add(ops.mul(u, self.rho), ops.mul(ops.mul(delta, delta), 1.0 - self.rho))
        return ops.sub(param, ops.mul(delta, lr)), (v, u)


class Adagrad(_TorchRule):
    slot_names = ("state_sum",)

    def __init__(self, params: Any, lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *,
                 maximize: bool = False) -> None:
        if lr_decay < 0 or initial_accumulator_value < 0 or eps < 0:
            raise ValueError("Adagrad: lr_decay, initial_accumulator_value and eps must be >= 0")
        super().__init__(params, lr, weight_decay, maximize)
        self.lr_decay, self.eps = float(lr_decay), float(eps)
        self._fill("state_sum", float(initial_accumulator_value))

    def apply(self, param, grad, slots, lr, step):
        (total,) = slots
        t = ops.cast(step, grad.dtype)
        clr = ops.div(lr, ops.add(ops.mul(ops.sub(t, 1.0), self.lr_decay), 1.0))
        total = ops.add(total, ops.mul(grad, grad))
        update = ops.div(grad, ops.add(ops.sqrt(total), self.eps))
        return ops.sub(param, ops.mul(update, clr)), (total,)


class Adamax(_TorchRule):
    slot_names = ("exp_avg", "exp_inf")

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        b1, b2 = _betas("Adamax", betas, eps)
        super().__init__(params, lr, weight_decay, maximize)
        self.beta1, self.beta2, self.eps = b1, b2, float(eps)

    def apply(self, param, grad, slots, lr, step):
        m, u = slots
        t = ops.cast(step, grad.dtype)
        m = ops.add(ops.mul(m, self.beta1), ops.mul(grad, 1.0 - self.beta1))
        u = ops.maximum(ops.mul(u, self.beta2), ops.add(ops.abs(grad), self.eps))
        clr = ops.div(lr, ops.sub(1.0, _power(self.beta1, t)))
        return ops.sub(param, ops.mul(ops.div(m, u), clr)), (m, u)


class NAdam(_TorchRule):
    slot_names = ("exp_avg", "exp_avg_sq", "mu_product")

    def __init__(self, params: Any, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3) -> None:
        b1, b2 = _betas("NAdam", betas, eps)
        if momentum_decay < 0:
            raise ValueError(f"NAdam: momentum_decay must be >= 0, got {momentum_decay}")
        super().__init__(params, lr, weight_decay)
        self.beta1, self.beta2 = b1, b2
        self.eps, self.momentum_decay = float(eps), float(momentum_decay)
        self._fill("mu_product", 1.0)

    def apply(self, param, grad, slots, lr, step):
        m, v, mu_product = slots
        b1, b2 = self.beta1, self.beta2
        t = ops.cast(step, grad.dtype)
        mu = ops.mul(ops.sub(1.0, ops.mul(_power(0.96, ops.mul(t, self.momentum_decay)), 0.5)), b1)
        mu_next = ops.mul(ops.sub(1.0, ops.mul(_power(0.96, ops.mul(ops.add(t, 1.0), self.momentum_decay)),
                                               0.5)), b1)
        mu_product = ops.mul(mu_product, mu)
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        denom = ops.add(ops.sqrt(ops.div(v, ops.sub(1.0, _power(b2, t)))), self.eps)
        step_grad = ops.div(ops.mul(lr, ops.sub(1.0, mu)), ops.sub(1.0, mu_product))
        step_m = ops.div(ops.mul(lr, mu_next), ops.sub(1.0, ops.mul(mu_product, mu_next)))
        new = ops.sub(param, ops.mul(ops.div(grad, denom), step_grad))
        new = ops.sub(new, ops.mul(ops.div(m, denom), step_m))
        return new, (m, v, mu_product)


class RAdam(_TorchRule):
    slot_names = ("exp_avg", "exp_avg_sq")

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        b1, b2 = _betas("RAdam", betas, eps)
        super().__init__(params, lr, weight_decay)
        self.beta1, self.beta2, self.eps = b1, b2, float(eps)

    def apply(self, param, grad, slots, lr, step):
        m, v = slots
        b1, b2 = self.beta1, self.beta2
        t = ops.cast(step, grad.dtype)
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        correction2 = ops.sub(1.0, _power(b2, t))
        m_hat = ops.div(m, ops.sub(1.0, _power(b1, t)))
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        rho_t = ops.sub(rho_inf, ops.div(ops.mul(ops.mul(t, 2.0), _power(b2, t)), correction2))
        safe = ops.maximum(rho_t, 5.0 + 1e-3)  # the rectification where it is defined
        rect = ops.sqrt(ops.div(ops.mul(ops.mul(ops.sub(safe, 4.0), ops.sub(safe, 2.0)), rho_inf),
                                ops.mul(safe, (rho_inf - 4.0) * (rho_inf - 2.0))))
        adaptive = ops.div(ops.sqrt(correction2), ops.add(ops.sqrt(v), self.eps))
        rectified = ops.mul(ops.mul(m_hat, rect), adaptive)
        update = ops.select(ops.broadcast_to(ops.greater(rho_t, 5.0), m_hat.shape), rectified, m_hat)
        return ops.sub(param, ops.mul(update, lr)), (m, v)


class RMSprop(_TorchRule):
    slot_names = ("square_avg", "grad_avg", "momentum_buffer")

    def __init__(self, params: Any, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
                 maximize: bool = False) -> None:
        if alpha < 0 or eps < 0 or momentum < 0:
            raise ValueError(f"RMSprop: alpha, eps and momentum must be >= 0, got {alpha}, {eps}, {momentum}")
        super().__init__(params, lr, weight_decay, maximize)
        self.alpha, self.eps, self.momentum = float(alpha), float(eps), float(momentum)
        self.centered = bool(centered)

    def apply(self, param, grad, slots, lr, step):
        s, a, buf = slots
        s = ops.add(ops.mul(s, self.alpha), ops.mul(ops.mul(grad, grad), 1.0 - self.alpha))
        if self.centered:
            a = ops.add(ops.mul(a, self.alpha), ops.mul(grad, 1.0 - self.alpha))
            avg = ops.add(ops.sqrt(ops.sub(s, ops.mul(a, a))), self.eps)
        else:
            avg = ops.add(ops.sqrt(s), self.eps)
        if self.momentum > 0:
            buf = ops.add(ops.mul(buf, self.momentum), ops.div(grad, avg))
            return ops.sub(param, ops.mul(buf, lr)), (s, a, buf)
        return ops.sub(param, ops.mul(ops.div(grad, avg), lr)), (s, a, buf)


class Rprop(_TorchRule):
    slot_names = ("prev", "step_size")

    def __init__(self, params: Any, lr: float = 1e-2, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50), *, maximize: bool = False) -> None:
        minus, plus = (float(e) for e in etas)
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(f"Rprop: etas must satisfy 0 < etas[0] < 1 < etas[1], got {etas}")
        super().__init__(params, lr, 0.0, maximize)
        self.etaminus, self.etaplus = minus, plus
        self.step_min, self.step_max = (float(s) for s in step_sizes)
        self._fill("step_size", float(lr))

    def apply(self, param, grad, slots, lr, step):
        prev, size = slots
        sign = ops.sign(ops.mul(grad, prev))
        factor = ops.select(ops.greater(sign, 0.0), ops.add(ops.zeros_like(grad), self.etaplus),
                            ops.select(ops.less(sign, 0.0), ops.add(ops.zeros_like(grad), self.etaminus),
                                       ops.ones_like(grad)))
        size = ops.clip_by_value(ops.mul(size, factor), self.step_min, self.step_max)
        grad = ops.select(ops.less(sign, 0.0), ops.zeros_like(grad), grad)
        return ops.sub(param, ops.mul(ops.sign(grad), size)), (grad, size)


class ASGD(_TorchRule):
    slot_names = ("ax", "eta", "mu")

    def __init__(self, params: Any, lr: float = 0.01, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0.0, maximize: bool = False) -> None:
        super().__init__(params, lr, weight_decay, maximize)
        self.lambd, self.alpha, self.t0 = float(lambd), float(alpha), float(t0)
        self._fill("eta", float(lr))
        self._fill("mu", 1.0)

    def apply(self, param, grad, slots, lr, step):
        ax, eta, mu = slots
        new = ops.sub(ops.mul(param, ops.sub(1.0, ops.mul(eta, self.lambd))), ops.mul(eta, grad))
        ax = ops.select(ops.not_equal(mu, 1.0), ops.add(ax, ops.mul(ops.sub(new, ax), mu)), new)
        t = ops.cast(step, param.dtype)
        eta = ops.add(ops.zeros_like(eta),
                      ops.div(lr, ops.pow(ops.add(ops.mul(ops.mul(lr, t), self.lambd), 1.0), self.alpha)))
        mu = ops.add(ops.zeros_like(mu), ops.div(1.0, ops.maximum(ops.sub(t, self.t0), 1.0)))
        return new, (ax, eta, mu)
