"""Optimizer-step primitive classes (``P.Adam``, ``P.ApplyAdagrad`` ...) as MindSpore 2.10's
``mindspore.ops.operations`` spell them: each computes its update rule from
elementwise ops and writes the new state into its Parameters with ``ops.assign`` (so the
step runs the same in PyNative and compiled Cells). No rule of its own: no gradient flows
through an optimizer step.

Contracts (``P.X(attrs)(inputs)``; ``g`` the gradient; each state argument a Parameter
updated in place; the result as MindSpore's):

- ``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr,
  beta1, beta2, epsilon, g)``: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g**2``,
  ``var -= lr sqrt(1 - b2_power) / (1 - b1_power) * m' / (sqrt(v) + eps)`` with ``m' = m``
  (Nesterov: ``b1 m + (1 - b1) g``); returns ``(var, m, v)``;
- ``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, g)``:
  the same moments, ``var -= lr * (m / (sqrt(v) + eps) + decay * var)``; ``(var, m, v)``;
  ``FusedCastAdamWeightDecay(use_locking=False)(..., g, global_norm)``: the same with ``g /
  global_norm``, computed in float32 for a float16 ``var`` (``g`` float16, ``m``, ``v``
  float32) and cast back;
- ``ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8)(var, m, v, vhat, beta1_power,
  beta2_power, lr, g)`` (``ApplyAdamWithAmsgradV2()``: ``beta1, beta2, epsilon`` as inputs
  before ``g``): Adam's moments, ``vhat = max(vhat, v)``, ``var -= lr sqrt(1 - b2_power) /
  (1 - b1_power) * m / (sqrt(vhat) + eps)``; ``(var, m, v, vhat)``;
- ``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, g, lr, accum, momentum,
  stat)``: ``g += weight_decay * parameters``; ``accum = g`` where ``stat > 0`` (the first
  step; ``stat`` then 0), else ``momentum * accum + (1 - dampening) * g``; ``parameters -= lr
  * (g + momentum * accum if nesterov else accum)``; returns ``parameters``;
- ``ApplyAdagrad(update_slots=True)(var, accum, lr, g)``: ``accum += g**2`` (with
  ``update_slots``), ``var -= lr * g / sqrt(accum)``; ``(var, accum)``;
- ``ApplyRMSProp()(var, mean_square, moment, lr, g, decay, momentum, epsilon)``: ``ms = decay
  ms + (1 - decay) g**2``, ``moment = momentum moment + lr g / sqrt(ms + eps)``, ``var -=
  moment``; returns ``var``; ``ApplyCenteredRMSProp()(var, mean_gradient, mean_square,
  moment, g, lr, decay, momentum, epsilon)``: also ``mg = decay mg + (1 - decay) g`` and
  ``sqrt(ms - mg**2 + eps)``;
- ``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, g)``: ``m = b1 m + (1 -
  b1) g``, ``v = max(b2 v, |g|)``, ``var -= lr / (1 - beta1_power) * m / (v + eps)``;
  ``(var, m, v)``;
- ``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, g)``: ``accum = rho accum +
  (1 - rho) g**2``, ``u = sqrt(accum_update + eps) g / sqrt(accum + eps)``, ``accum_update =
  rho accum_update + (1 - rho) u**2``, ``var -= lr u``; ``(var, accum, accum_update)``;
- ``InplaceIndexAdd(axis)(var, indices, updates)``: ``var`` plus ``updates`` at ``indices``
  along ``axis``, in place; returns ``var``.
"""

from __future__ import annotations

from typing import Any

from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _moments(m: Any, v: Any, beta1: Any, beta2: Any, grad: Any) -> tuple[Any, Any]:
    return (ops.assign(m, m * beta1 + grad * (1 - beta1)),
            ops.assign(v, v * beta2 + grad * grad * (1 - beta2)))


def _adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
          epsilon: Any, gradient: Any, *, use_locking: bool, use_nesterov: bool) -> Any:
    del use_locking
    m, v = _moments(m, v, beta1, beta2, gradient)
    scale = lr * ops.sqrt(1 - beta2_power + ops.zeros((), var.dtype)) / (1 - beta1_power)
    first = m * beta1 + gradient * (1 - beta1) if use_nesterov else m
    return ops.assign(var, var - scale * first / (ops.sqrt(v) + epsilon)), m, v


def _amsgrad(var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any,
             beta2: Any, epsilon: Any, grad: Any) -> Any:
    m, v = _moments(m, v, beta1, beta2, grad)
    vhat = ops.assign(vhat, ops.maximum(vhat, v))
    scale = lr * ops.sqrt(1 - beta2_power + ops.zeros((), var.dtype)) / (1 - beta1_power)
    return ops.assign(var, var - scale * m / (ops.sqrt(vhat) + epsilon)), m, v, vhat


def _apply_adam_with_amsgrad(var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                             grad: Any, *, beta1: float, beta2: float, epsilon: float,
                             use_locking: bool) -> Any:
    del use_locking
    return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)


def _apply_adam_with_amsgrad_v2(var: Any, m: Any, v: Any, vhat: Any, beta1_power: Any, beta2_power: Any,
                                lr: Any, beta1: Any, beta2: Any, epsilon: Any, grad: Any, *,
                                use_locking: bool) -> Any:
    del use_locking
    return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)


def _adam_weight_decay(var: Any, m: Any, v: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any, decay: Any,
                       gradient: Any, *, use_locking: bool) -> Any:
    del use_locking
    m, v = _moments(m, v, beta1, beta2, gradient)
    update = m / (ops.sqrt(v) + epsilon) + var * decay
    return ops.assign(var, var - update * lr), m, v


def _fused_cast_adam_weight_decay(var: Any, m: Any, v: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                                  decay: Any, gradient: Any, global_norm: Any, *, use_locking: bool) -> Any:
    del use_locking
    wide = ops.cast(var, m.dtype)
    m, v = _moments(m, v, beta1, beta2, ops.cast(gradient, m.dtype) / global_norm)
    update = m / (ops.sqrt(v) + epsilon) + wide * decay
    return ops.assign(var, ops.cast(wide - update * lr, var.dtype)), m, v


def _sgd(parameters: Any, gradient: Any, learning_rate: Any, accum: Any, momentum: Any, stat: Any, *,
         dampening: float, weight_decay: float, nesterov: bool) -> Any:
    grad = gradient + parameters * weight_decay if weight_decay else gradient
    first = ops.greater(stat, 0)
    acc = ops.select(first, grad, accum * momentum + grad * (1 - dampening))
    ops.assign(accum, acc)
    ops.assign(stat, ops.zeros_like(stat))
    step = grad + acc * momentum if nesterov else acc
    return ops.assign(parameters, parameters - step * learning_rate)


def _apply_adagrad(var: Any, accum: Any, lr: Any, grad: Any, *, update_slots: bool) -> Any:
    if update_slots:
        accum = ops.assign(accum, accum + grad * grad)
    return ops.assign(var, var - grad * lr * ops.rsqrt(accum)), accum


def _apply_rms_prop(var: Any, mean_square: Any, moment: Any, learning_rate: Any, grad: Any, decay: Any,
                    momentum: Any, epsilon: Any, *, use_locking: bool) -> Any:
    del use_locking
    square = ops.assign(mean_square, mean_square * decay + grad * grad * (1 - decay))
    step = ops.assign(moment, moment * momentum + grad * learning_rate * ops.rsqrt(square + epsilon))
    return ops.assign(var, var - step)


def _apply_centered_rms_prop(var: Any, mean_gradient: Any, mean_square: Any, moment: Any, grad: Any,
                             learning_rate: Any, decay: Any, momentum: Any, epsilon: Any, *,
                             use_locking: bool) -> Any:
    del use_locking
    mean = ops.assign(mean_gradient, mean_gradient * decay + grad * (1 - decay))
    square = ops.assign(mean_square, mean_square * decay + grad * grad * (1 - decay))
    scale = ops.rsqrt(square - mean * mean + epsilon)
    step = ops.assign(moment, moment * momentum + grad * learning_rate * scale)
    return ops.assign(var, var - step)


def _apply_ada_max(var: Any, m: Any, v: Any, beta1_power: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any,
                   grad: Any) -> Any:
    m = ops.assign(m, m * beta1 + grad * (1 - beta1))
    v = ops.assign(v, ops.maximum(v * beta2, ops.abs(grad)))
    return ops.assign(var, var - m / (v + epsilon) * (lr / (1 - beta1_power))), m, v


def _apply_adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any,
                    grad: Any) -> Any:
    accum = ops.assign(accum, accum * rho + grad * grad * (1 - rho))
    update = ops.sqrt(accum_update + epsilon) * grad * ops.rsqrt(accum + epsilon)
    accum_update = ops.assign(accum_update, accum_update * rho + update * update * (1 - rho))
    return ops.assign(var, var - update * lr), accum, accum_update


def _inplace_index_add(var: Any, indices: Any, updates: Any, *, axis: int) -> Any:
    return ops.assign(var, ops.index_add(var, indices, updates, axis))


Adam = class_form("Adam", _adam, use_locking=False, use_nesterov=False)
AdamWeightDecay = class_form("AdamWeightDecay", _adam_weight_decay, use_locking=False)
FusedCastAdamWeightDecay = class_form("FusedCastAdamWeightDecay", _fused_cast_adam_weight_decay,
                                      use_locking=False)
ApplyAdamWithAmsgrad = class_form("ApplyAdamWithAmsgrad", _apply_adam_with_amsgrad, beta1=0.9, beta2=0.999,
                                  epsilon=1e-8, use_locking=False)
ApplyAdamWithAmsgradV2 = class_form("ApplyAdamWithAmsgradV2", _apply_adam_with_amsgrad_v2, use_locking=False)
SGD = class_form("SGD", _sgd, dampening=0.0, weight_decay=0.0, nesterov=False)
ApplyAdagrad = class_form("ApplyAdagrad", _apply_adagrad, update_slots=True)
ApplyRMSProp = class_form("ApplyRMSProp", _apply_rms_prop, use_locking=False)
ApplyCenteredRMSProp = class_form("ApplyCenteredRMSProp", _apply_centered_rms_prop, use_locking=False)
ApplyAdaMax = class_form("ApplyAdaMax", _apply_ada_max)
ApplyAdadelta = class_form("ApplyAdadelta", _apply_adadelta)
InplaceIndexAdd = class_form("InplaceIndexAdd", _inplace_index_add, axis=REQUIRED)

__all__ = ["Adam", "AdamWeightDecay", "ApplyAdaMax", "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2",
           "ApplyAdadelta", "ApplyAdagrad", "ApplyCenteredRMSProp", "ApplyRMSProp", "InplaceIndexAdd", "SGD"]
