"""Optimizer base: state as Parameters, one pure ``update`` traced in graph mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..parameter import Parameter, ParameterTuple


class Optimizer(Cell):
    """``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    ``learning_rate`` as in MindSpore: a number; a list, tuple, 1-D array or Tensor with one
    value per step (``nn.cosine_decay_lr(...)``: step ``i`` uses value ``i``, the last one
    after the end); or a ``nn.LearningRateSchedule`` Cell called with ``global_step``. The
    step's LR is computed inside ``update`` from ``global_step``, a state input, so graph
    mode compiles the step once whatever the schedule.

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
    decay_in_apply = False  # True: ``apply(..., step, decay)`` uses the weight decay itself

    def __init__(self, learning_rate: float, parameters: Any, weight_decay: float = 0.0,
                 loss_scale: float = 1.0) -> None:
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if not params:
            raise ValueError(f"{type(self).__name__}: the parameter list is empty")
        group_decay = None
        if any(isinstance(p, dict) for p in params):
            params, group_decay = _groups(type(self).__name__, params, weight_decay)
        lr_value, self.lr_schedule = _learning_rate(type(self).__name__, learning_rate)
        if weight_decay < 0 or loss_scale <= 0:
            raise ValueError(f"{type(self).__name__}: weight_decay must be >= 0 and loss_scale > 0")
        self.dynamic_lr = self.lr_schedule is not None or lr_value.ndim == 1
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
        if self.lr_schedule is None:  # a number, or one per step (a 1-D Parameter)
            self.learning_rate = Parameter(lr_value, "learning_rate", requires_grad=False)
        else:  # MindSpore's optimizer.learning_rate is the schedule Cell
            self.learning_rate = self.lr_schedule
        self.global_step = Parameter(np.array(0, np.int32), "global_step", requires_grad=False)
        self.slots = {name: self.parameters.clone(prefix=name, init="zeros")
                      for name in self.slot_names}
        for name, group in self.slots.items():
            setattr(self, name, group)

    # -- state -----------------------------------------------------------------------------
    def state_params(self) -> tuple[Parameter, ...]:
        """Every state Parameter, in the order ``update`` takes and returns them."""
        slots = tuple(p for name in self.slot_names for p in self.slots[name])
        return (self.global_step, *self.hyper_params(), *slots)

    def hyper_params(self) -> tuple[Parameter, ...]:
        """State Parameters that are settings rather than training progress (the learning
        rate, a number or one per step; none for a schedule Cell): a resumed run keeps the
        values it was built with, not the checkpoint's."""
        return () if self.lr_schedule is not None else (self.learning_rate,)

    def lr_at(self, step: Any) -> Any:
        """The learning rate of the step numbered ``step`` (0 for the first; a Tensor):
        the number; ``lr[min(step, len - 1)]`` of a per-step list (its last value after
        the end); ``schedule(step)`` of a LearningRateSchedule Cell. Framework ops only: in
        graph mode the LR is computed inside the compiled step from ``global_step``."""
        if self.lr_schedule is not None:
            return self.lr_schedule(step)
        if not self.dynamic_lr:
            return self.learning_rate
        last = self.learning_rate.shape[0] - 1
        return ops.gather(self.learning_rate, ops.minimum(step, last), 0)

    def get_lr(self) -> float:
        """The learning rate the next step uses (at ``global_step``), as MindSpore's."""
        if not self.dynamic_lr:
            return float(self.learning_rate.asnumpy())
        return float(np.asarray(_eager(lambda: self.lr_at(self.global_step))))

    def last_lr(self) -> float:
        """The learning rate the most recent step used (the first step's before any)."""
        if not self.dynamic_lr:
            return float(self.learning_rate.asnumpy())
        step = int(self.global_step.asnumpy())
        return float(np.asarray(_eager(lambda: self.lr_at(Tensor(np.array(max(step - 1, 0),
                                                                          np.int32))))))

    # -- the pure update -------------------------------------------------------------------
    def apply(self, param: Any, grad: Any, slots: tuple, lr: Any, step: Any) -> tuple[Any, tuple]:
        raise NotImplementedError

    def update(self, params: Sequence[Any], grads: Sequence[Any],
               state: Sequence[Any]) -> tuple[tuple, tuple]:
        """New (params, state) from the current ones; framework ops only."""
        if len(grads) != len(params):
            raise ValueError(f"{type(self).__name__}: got {len(grads)} gradients for "
                             f"{len(params)} parameters")
        held = len(self.hyper_params())
        step, lr_state, flat = state[0], tuple(state[1:1 + held]), state[1 + held:]
        if self.lr_schedule is not None:
            lr = self.lr_schedule(step)
        elif self.dynamic_lr:
            last = lr_state[0].shape[0] - 1
            lr = ops.gather(lr_state[0], ops.minimum(step, last), 0)
        else:
            lr = lr_state[0]
        n = len(params)
        slots = [tuple(flat[k * n + i] for k in range(len(self.slot_names))) for i in range(n)]
        step = ops.add(step, 1)
        new_params, new_slots = [], []
        for param, grad, decay, slot in zip(params, grads, self.decay_values, slots):
            if self.loss_scale != 1.0:
                grad = ops.div(grad, self.loss_scale)
            if self.decay_in_apply:  # the optimizer's own use of weight decay (Lamb)
                p, s = self.apply(param, grad, slot, lr, step, decay)
                new_params.append(p)
                new_slots.append(s)
                continue
            if decay and not self.decoupled_decay:
                grad = ops.add(grad, ops.mul(param, decay))
            p, s = self.apply(param, grad, slot, lr, step)
            if decay and self.decoupled_decay:  # w -= lr * wd * w (AdamW)
                p = ops.sub(p, ops.mul(param, ops.mul(lr, decay)))
            new_params.append(p)
            new_slots.append(s)
        flat_slots = tuple(new_slots[i][k] for k in range(len(self.slot_names)) for i in range(n))
        return tuple(new_params), (step, *lr_state, *flat_slots)

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


def _learning_rate(owner: str, value: Any) -> tuple[np.ndarray, Any]:
    """(float32 value: 0-d or one per step, None) or (empty, the schedule Cell)."""
    from ..nn.learning_rate_schedule import LearningRateSchedule

    if isinstance(value, LearningRateSchedule):
        return np.zeros((0,), np.float32), value
    if isinstance(value, Cell):
        raise TypeError(f"{owner}: learning_rate Cell must be a nn.LearningRateSchedule, got "
                        f"{type(value).__name__}")
    if isinstance(value, Tensor):
        value = value.asnumpy()
    if isinstance(value, bool) or not isinstance(value, int | float | list | tuple | np.ndarray):
        raise TypeError(f"{owner}: learning_rate must be a number, a list of numbers (one per "
                        f"step), a 1-D Tensor or a nn.LearningRateSchedule, got {value!r}")
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{owner}: learning_rate list must hold numbers, got {value!r}") from None
    if array.ndim > 1 or (array.ndim == 1 and array.size == 0):
        raise ValueError(f"{owner}: learning_rate must be a number or a non-empty 1-D list, got "
                         f"shape {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{owner}: learning_rate must be >= 0 and finite, got {value!r}")
    return array.astype(np.float32), None


def _eager(fn: Any) -> Any:
    """``fn()`` in PyNative mode, whatever the context (a value for the host, not a graph)."""
    from ..context import pynative

    with pynative():
        out = fn()
    return out.asnumpy() if hasattr(out, "asnumpy") else out
