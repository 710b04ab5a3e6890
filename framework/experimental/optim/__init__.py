"""``mindspore.experimental.optim``: PyTorch-style optimizers; here ``SGD``, ``Adam`` and
``AdamW`` with PyTorch's signatures and update rules (``Adam(params, lr=1e-3, betas=(0.9,
0.999), eps=1e-8, weight_decay=0.0)``), used as MindSpore's: ``grads =
value_and_grad(fn, None, opt.parameters)(...)``, then ``opt(grads)``. They are
:class:`framework.optim.Optimizer` subclasses (state in Parameters,
one pure ``update``, both modes) with PyTorch's rules:

- ``SGD``: the first step's buffer is the gradient, then ``momentum * buf + (1 - dampening)
  * grad`` (Nesterov: ``grad + momentum * buf``); weight decay added to the gradient;
- ``Adam``: ``nn.Adam``'s update, which MindSpore's experimental Adam keeps (``p -= lr *
  sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``: ``eps`` not bias-corrected, unlike
  PyTorch's); decay added to the gradient;
- ``AdamW``: PyTorch's, ``p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)``, and
  ``p -= lr * weight_decay * p`` decoupled (default 0.01).

Weight decay applies to every parameter (PyTorch's rule; ``nn`` optimizers skip
``beta``/``gamma``). Parameter groups take ``params`` and ``weight_decay``; ``amsgrad``,
``maximize`` and per-group ``lr`` are refused with a message. The other optimizers of
MindSpore's module (``Adadelta``, ``Adagrad``, ``Adamax``, ``NAdam``, ``RAdam``, ``RMSprop``,
``Rprop``, ``ASGD``) are in :mod:`.torch_rules`; its learning-rate schedulers in
:mod:`.lr_scheduler`.
"""

from __future__ import annotations

from typing import Any

from framework import absent_names as _absent_names

from ... import ops
from ...optim.adam import Adam as _NNAdam
from ...optim.optimizer import Optimizer
from ...optim.sgd import SGD as _SGD
from .groups import params_of as _params
from .groups import refuse as _refuse


def _nn_adam_apply(opt: Any, *args: Any) -> Any:
    opt.use_nesterov = False
    return _NNAdam.apply(opt, *args)


class SGD(_SGD):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *,
    maximize=False)``."""

    def __init__(self, params: Any, lr: float, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
        _refuse("SGD", maximize=maximize)
        super().__init__(_params("SGD", params, weight_decay), float(lr), momentum, dampening,
                         weight_decay, nesterov)


class _Adam(Optimizer):
    """PyTorch's Adam arguments and moments; ``apply``: AdamW's update (see the module doc)."""

    slot_names = ("exp_avg", "exp_avg_sq")

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        owner = type(self).__name__
        _refuse(owner, amsgrad=amsgrad, maximize=maximize)
        b1, b2 = (float(b) for b in betas)
        if not (0.0 <= b1 < 1.0 and 0.0 <= b2 < 1.0) or eps < 0.0:
            raise ValueError(f"{owner}: betas must be in [0, 1) and eps >= 0")
        lr = lr if isinstance(lr, list | tuple) else float(lr)  # (a list: one LR per step, as nn's)
        super().__init__(lr, _params(owner, params, weight_decay), weight_decay)
        self.beta1, self.beta2, self.eps = b1, b2, float(eps)

    def apply(self, param, grad, slots, lr, step):
        m, v = slots
        b1, b2 = self.beta1, self.beta2
        t = ops.cast(step, grad.dtype)
        correction1 = ops.sub(1.0, ops.pow(ops.add(ops.zeros_like(t), b1), t))
        correction2 = ops.sub(1.0, ops.pow(ops.add(ops.zeros_like(t), b2), t))
        m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        denom = ops.add(ops.div(ops.sqrt(v), ops.sqrt(correction2)), self.eps)
        step_size = ops.div(lr, correction1)
        return ops.sub(param, ops.mul(ops.div(m, denom), step_size)), (m, v)


class Adam(_Adam):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
    *, maximize=False)``: ``eps`` added to ``sqrt(v)`` before the bias corrections, as
    MindSpore's (and ``nn.Adam``): ``p -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) +
    eps)``."""

    def apply(self, param, grad, slots, lr, step):
        return _nn_adam_apply(self, param, grad, slots, lr, step)


class AdamW(_Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01,
    amsgrad=False, *, maximize=False)``: decoupled weight decay."""

    decoupled_decay = True

    def __init__(self, params: Any, lr: float = 1e-3, betas: tuple = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.01, amsgrad: bool = False, *,
                 maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


from . import lr_scheduler  # noqa: E402  (mindspore.experimental.optim.lr_scheduler)
from .torch_rules import ASGD, Adadelta, Adagrad, Adamax, NAdam, RAdam, RMSprop, Rprop  # noqa: E402

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD", "lr_scheduler"]

__getattr__ = _absent_names.module_getattr("experimental.optim", __name__)
