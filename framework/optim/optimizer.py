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
        group_decay = None
        if any(isinstance(p, dict) for p in params):
            params, group_decay = _groups(type(self).__name__, params, weight_decay)
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, int | float):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a number, got "
                            f"{learning_rate!r}")
        if learning_rate < 0 or weight_decay < 0 or loss_scale <= 0:
            raise ValueError(f"{type(self).__name__}: learning_rate and weight_decay must be >= 0 "
                             "and loss_scale > 0")
        self.parameters = ParameterTuple(params)
        self.weight_decay = float(weight_decay)
        self.loss_scale = float(loss_scale)
        if group_decay is None:  # MindSpore's default filter, the one weight_decay for all
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                     if p.name else True for p in params)
            self.decay_values = tuple(self.weight_decay if f else 0.0 for f in self.decay_flags)
        else:  # each group's own weight_decay, no filter
            self.decay_values = tuple(group_decay)
            self.decay_flags = tuple(v > 0 for v in self.decay_values)
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
        for param, grad, decay, slot in zip(params, grads, self.decay_values, slots):
            if self.loss_scale != 1.0:
                grad = ops.div(grad, self.loss_scale)
            if decay and not self.decoupled_decay:
                grad = ops.add(grad, ops.mul(param, decay))
            p, s = self.apply(param, grad, slot, lr, step)
            if decay and self.decoupled_decay:  # w -= lr * wd * w (AdamW)
                p = ops.sub(p, ops.mul(param, ops.mul(lr, decay)))
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


def _groups(owner: str, groups: list, weight_decay: float) -> tuple[list, list[float]]:
    """MindSpore's parameter groups: ``[{"params": decay, "weight_decay": 1e-4},
    {"params": no_decay}, {"order_params": net.trainable_params()}]`` -> (parameters in
    order, the weight decay of each; a group without ``weight_decay`` takes the optimizer's)."""
    if not all(isinstance(g, dict) for g in groups):
        raise TypeError(f"{owner}: parameter groups must all be dicts (with 'params'), not mixed "
                        "with Parameters")
    flat, decay, order = [], [], None
    for g in groups:
        unknown = set(g) - {"params", "weight_decay", "order_params"}
        if unknown:
            raise ValueError(f"{owner}: unsupported key(s) {', '.join(sorted(unknown))} in a "
                             "parameter group (supported: params, weight_decay, order_params)")
        if "order_params" in g:
            order = list(g["order_params"])
        if "params" not in g:
            if "order_params" in g:
                continue
            raise ValueError(f"{owner}: a parameter group needs 'params'")
        members = list(g["params"])
        wd = g.get("weight_decay", weight_decay)
        if isinstance(wd, bool) or not isinstance(wd, int | float) or wd < 0:
            raise ValueError(f"{owner}: a group's weight_decay must be a number >= 0, got {wd!r}")
        flat += members
        decay += [float(wd)] * len(members)
    ids = [id(p) for p in flat]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{owner}: a parameter is in more than one group")
    if order is not None:
        where = {id(p): i for i, p in enumerate(flat)}
        missing = [p.name for p in order if id(p) not in where]
        if missing or len(order) != len(flat):
            raise ValueError(f"{owner}: order_params must list exactly the grouped parameters "
                             f"(not in a group: {', '.join(missing) or 'none'})")
        decay = [decay[where[id(p)]] for p in order]
        flat = order
    return flat, decay
