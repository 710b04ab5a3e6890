"""Optimizer base: state as Parameters, one pure ``update`` traced in graph mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from ..nn.cell import Cell
from ..parameter import Parameter, ParameterTuple


class Optimizer(Cell):
    """``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    Subclasses implement ``apply(param, grad, slots, lr) -> (param', slots')`` per
    parameter, with framework ops only. The whole state (step counter, learning rate,
    slots) lives in Parameters, so checkpoints hold it and graph mode can keep it on
    the device; ``update`` is the pure function both modes run.
    Weight decay (L2, added to the gradient; with ``decoupled_decay``, ``w -= lr * wd * w``
    after ``apply`` instead) skips parameters named ``beta``/``gamma``, as MindSpore's
    default filter does.
    """

    slot_names: tuple[str, ...] = ()
    decoupled_decay = False  # True: decay applied to the weights after ``apply`` (AdamW)

    def __init__(self, learning_rate: float, parameters: Any, weight_decay: float = 0.0,
                 loss_scale: float = 1.0) -> None:
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if not params:
            raise ValueError(f"{type(self).__name__}: the parameter list is empty")
        if any(isinstance(p, dict) for p in params):
            raise ValueError(f"{type(self).__name__}: parameter groups are not supported; "
                             "pass a flat list such as net.trainable_params()")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, int | float):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a number, got "
                            f"{learning_rate!r}")
        if learning_rate < 0 or weight_decay < 0 or loss_scale <= 0:
            raise ValueError(f"{type(self).__name__}: learning_rate and weight_decay must be >= 0 "
                             "and loss_scale > 0")
        self.parameters = ParameterTuple(params)
        self.weight_decay = float(weight_decay)
        self.loss_scale = float(loss_scale)
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                 if p.name else True for p in params)
        self.learning_rate = Parameter(np.array(learning_rate, np.float32), "learning_rate",
                                       requires_grad=False)
        self.global_step = Parameter(np.array(0, np.int32), "global_step", requires_grad=False)
        self.slots = {name: self.parameters.clone(prefix=name, init="zeros")
                      for name in self.slot_names}
        for name, group in self.slots.items():
            setattr(self, name, group)

    # -- state -----------------------------------------------------------------------------
    def state_params(self) -> tuple[Parameter, ...]:
        """Every state Parameter, in the order ``update`` takes and returns them."""
        slots = tuple(p for name in self.slot_names for p in self.slots[name])
        return (self.global_step, self.learning_rate, *slots)

    def hyper_params(self) -> tuple[Parameter, ...]:
        """State Parameters that are settings rather than training progress (the learning
        rate): a resumed run keeps the values it was built with, not the checkpoint's."""
        return (self.learning_rate,)

    def get_lr(self) -> float:
        return float(self.learning_rate.asnumpy())

    # -- the pure update -------------------------------------------------------------------
    def apply(self, param: Any, grad: Any, slots: tuple, lr: Any, step: Any) -> tuple[Any, tuple]:
        raise NotImplementedError

    def update(self, params: Sequence[Any], grads: Sequence[Any],
               state: Sequence[Any]) -> tuple[tuple, tuple]:
        """New (params, state) from the current ones; framework ops only."""
        if len(grads) != len(params):
            raise ValueError(f"{type(self).__name__}: got {len(grads)} gradients for "
                             f"{len(params)} parameters")
        step, lr, *flat = state
        n = len(params)
        slots = [tuple(flat[k * n + i] for k in range(len(self.slot_names))) for i in range(n)]
        step = ops.add(step, 1)
        new_params, new_slots = [], []
        for param, grad, decay, slot in zip(params, grads, self.decay_flags, slots):
            if self.loss_scale != 1.0:
                grad = ops.div(grad, self.loss_scale)
            if self.weight_decay and decay and not self.decoupled_decay:
                grad = ops.add(grad, ops.mul(param, self.weight_decay))
            p, s = self.apply(param, grad, slot, lr, step)
            if self.weight_decay and decay and self.decoupled_decay:  # w -= lr * wd * w (AdamW)
                p = ops.sub(p, ops.mul(param, ops.mul(lr, self.weight_decay)))
            new_params.append(p)
            new_slots.append(s)
        flat_slots = tuple(new_slots[i][k] for k in range(len(self.slot_names)) for i in range(n))
        return tuple(new_params), (step, lr, *flat_slots)

    def construct(self, gradients: Sequence[Any]) -> bool:
        params = tuple(self.parameters)
        state = self.state_params()
        new_params, new_state = self.update(params, tuple(gradients), state)
        for target, value in zip(params + state, new_params + tuple(new_state)):
            target.set_data(value)
        return True
