"""``mindspore.experimental.optim.lr_scheduler``: PyTorch-style learning-rate schedulers for
the optimizers of :mod:`framework.experimental.optim` (MindSpore 2.10's names, signatures
and rules, which are PyTorch's).

A scheduler changes the optimizer's learning rate between steps, outside the compiled
step: ``scheduler.step()`` after ``optimizer(grads)`` writes the new rate into the
optimizer's learning-rate Parameter, which the step (PyNative or compiled) reads as an
input. ``get_last_lr()`` is the list of the rates last set (float32 Tensors, one per
learning-rate Parameter: this framework's optimizers keep one). The rates are computed in
float32, step by step (the "chainable" forms), as MindSpore's are:

- ``StepLR``: ``lr * gamma`` every ``step_size`` epochs; ``MultiStepLR``: at each milestone
  (``gamma ** count`` for a milestone listed ``count`` times);
- ``ConstantLR``: ``base * factor`` until ``total_iters``; ``LinearLR``: the factor from
  ``start_factor`` to ``end_factor`` linearly over ``total_iters``;
- ``ExponentialLR``: ``lr * gamma``; ``PolynomialLR``: ``base * (1 - t / total) ** power``;
- ``CosineAnnealingLR``: ``eta_min + (base - eta_min) * (1 + cos(pi * t / T_max)) / 2``;
  ``CosineAnnealingWarmRestarts``: the same over periods ``T_0``, ``T_0 * T_mult`` ...;
- ``LambdaLR``: ``base * lr_lambda(t)``; ``MultiplicativeLR``: ``lr * lr_lambda(t)``;
- ``CyclicLR``: between ``base_lr`` and ``max_lr`` in triangles (``triangular``,
  ``triangular2``, ``exp_range`` or a ``scale_fn``);
- ``SequentialLR``: each of ``schedulers`` in turn, switching at ``milestones``;
- ``ReduceLROnPlateau``: ``step(metric)``; ``lr * factor`` once the metric has not improved
  for ``patience`` epochs (then ``cooldown`` epochs of rest), never below ``min_lr``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from framework import absent_names as _absent_names

from ...common.tensor import Tensor

F32 = np.float32


def _lr_parameters(owner: str, optimizer: Any) -> list[Any]:
    groups = getattr(optimizer, "param_groups", None)
    if isinstance(groups, list) and groups and all(isinstance(g, dict) and "lr" in g for g in groups):
        return [g["lr"] for g in groups]
    lr = getattr(optimizer, "learning_rate", None)
    if lr is None or getattr(optimizer, "dynamic_lr", False) or not hasattr(lr, "set_data"):
        raise TypeError(f"lr_scheduler.{owner}: the optimizer must hold one fixed learning rate "
                        f"(an experimental.optim optimizer with a number as lr), got "
                        f"{type(optimizer).__name__}")
    return [lr]


class LRScheduler:
    """``LRScheduler(optimizer, last_epoch=-1)``: the base class; a subclass defines
    ``get_lr()`` (the rates of epoch ``self.last_epoch`` from the current ones)."""

    def __init__(self, optimizer: Any, last_epoch: int = -1) -> None:
        if last_epoch != -1:
            raise ValueError(f"{type(self).__name__}: last_epoch={last_epoch}: resuming a "
                             "schedule is not supported here; leave last_epoch=-1")
        self.optimizer = optimizer
        self._params = _lr_parameters(type(self).__name__, optimizer)
        # the optimizer's rates before any scheduler (PyTorch's ``initial_lr``): the bases of
        # every scheduler of the optimizer, the later ones included
        if getattr(optimizer, "initial_lrs", None) is None:
            optimizer.initial_lrs = [F32(p.asnumpy()) for p in self._params]
        self.base_lrs = list(optimizer.initial_lrs)
        self.last_epoch = -1
        self._last_lr = list(self.base_lrs)
        self.step()

    def _current(self) -> list[np.float32]:
        return [F32(p.asnumpy()) for p in self._params]

    def get_lr(self) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def get_last_lr(self) -> list[Tensor]:
        """The rates last set, as float32 Tensors."""
        return [Tensor(np.asarray(v, np.float32)) for v in self._last_lr]

    def _set(self, values: Sequence[Any]) -> None:
        self._last_lr = [F32(v) for v in values]
        for param, value in zip(self._params, self._last_lr, strict=True):
            param.set_data(Tensor(np.asarray(value, np.float32)))

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set its rates; ``epoch``: go to that epoch (its closed form
        where the schedule has one)."""
        if epoch is None:
            self.last_epoch += 1
            self._set(self.get_lr())
            return
        self.last_epoch = int(epoch)
        closed = getattr(self, "_closed_form", None)
        self._set([closed(base, self.last_epoch) for base in self.base_lrs] if closed else self.get_lr())


class StepLR(LRScheduler):
    def __init__(self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size, self.gamma = int(step_size), F32(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return now
        return [lr * self.gamma for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        return base * self.gamma ** (t // self.step_size)


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer: Any, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = sorted(int(m) for m in milestones)
        self.gamma = F32(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        count = self.milestones.count(self.last_epoch)
        return [lr * self.gamma ** count for lr in self._current()] if count else self._current()

    def _closed_form(self, base: Any, t: int) -> Any:
        return base * self.gamma ** bisect.bisect_right(self.milestones, t)


class ConstantLR(LRScheduler):
    def __init__(self, optimizer: Any, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if not 0 < factor <= 1:
            raise ValueError(f"ConstantLR: factor must be in (0, 1], got {factor}")
        self.factor, self.total_iters = F32(factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in now]
        if self.last_epoch != self.total_iters:
            return now
        return [lr / self.factor for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        return base * (self.factor + (t >= self.total_iters) * (F32(1) - self.factor))


class LinearLR(LRScheduler):
    def __init__(self, optimizer: Any, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1] and end_factor in [0, 1], "
                             f"got {start_factor}, {end_factor}")
        self.start, self.end, self.total_iters = F32(start_factor), F32(end_factor), int(total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        if self.last_epoch == 0:
            return [lr * self.start for lr in now]
        if self.last_epoch > self.total_iters:
            return now
        span = self.end - self.start
        scale = F32(1.0) + span / (F32(self.total_iters) * self.start + F32(self.last_epoch - 1) * span)
        return [lr * scale for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        done = F32(min(self.total_iters, t)) / F32(self.total_iters)
        return base * (self.start + (self.end - self.start) * done)


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = F32(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        return now if self.last_epoch == 0 else [lr * self.gamma for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        return base * self.gamma ** t


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer: Any, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters, self.power = int(total_iters), F32(power)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return now
        t, total = F32(self.last_epoch), F32(self.total_iters)
        factor = ((F32(1) - t / total) / (F32(1) - (t - F32(1)) / total)) ** self.power
        return [lr * factor for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        return base * (F32(1) - F32(min(self.total_iters, t)) / F32(self.total_iters)) ** self.power


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer: Any, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max, self.eta_min = int(T_max), F32(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now, t, T = self._current(), self.last_epoch, self.T_max  # noqa: N806
        if t == 0:
            return now
        if (t - 1 - T) % (2 * T) == 0:
            half = F32((1 - math.cos(math.pi / T)) / 2)
            return [lr + (base - self.eta_min) * half for lr, base in zip(now, self.base_lrs, strict=True)]
        ratio = F32((1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)))
        return [ratio * (lr - self.eta_min) + self.eta_min for lr in now]

    def _closed_form(self, base: Any, t: int) -> Any:
        return self.eta_min + (base - self.eta_min) * F32((1 + math.cos(math.pi * t / self.T_max)) / 2)


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer: Any, T_0: int, T_mult: int = 1, eta_min: float = 0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        if int(T_0) <= 0 or int(T_mult) < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be > 0 and T_mult >= 1, "
                             f"got {T_0}, {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = int(T_0), int(T_0), int(T_mult), F32(eta_min)
        self.T_cur = -1
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        half = F32((1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2)
        return [self.eta_min + (base - self.eta_min) * half for base in self.base_lrs]

    def step(self, epoch: int | None = None) -> None:
        """One epoch on (``epoch=None``), or to ``epoch`` (a restart where it falls)."""
        if epoch is None:
            self.last_epoch += 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"CosineAnnealingWarmRestarts.step: epoch must be >= 0, got {epoch}")
            self.last_epoch = int(epoch)
            self.T_cur, self.T_i = int(epoch), self.T_0
            if epoch >= self.T_0 and self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            elif epoch >= self.T_0:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) // (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        self._set(self.get_lr())


class LambdaLR(LRScheduler):
    def __init__(self, optimizer: Any, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas("LambdaLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        pairs = zip(self.base_lrs, self.lr_lambdas, strict=True)
        return [base * F32(fn(self.last_epoch)) for base, fn in pairs]


class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer: Any, lr_lambda: Callable[[int], float] | list,
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas("MultiplicativeLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        now = self._current()
        if self.last_epoch == 0:
            return now
        return [lr * F32(fn(self.last_epoch)) for lr, fn in zip(now, self.lr_lambdas, strict=True)]


def _lambdas(owner: str, optimizer: Any, lr_lambda: Any) -> list[Callable[[int], float]]:
    count = len(_lr_parameters(owner, optimizer))
    fns = list(lr_lambda) if isinstance(lr_lambda, list | tuple) else [lr_lambda] * count
    if len(fns) != count or not all(callable(f) for f in fns):
        raise ValueError(f"{owner}: lr_lambda must be a function or a list of {count} functions")
    return fns


from .lr_compound import CyclicLR, ReduceLROnPlateau, SequentialLR  # noqa: E402  (they subclass LRScheduler)

__all__ = ["ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "PolynomialLR", "ReduceLROnPlateau", "SequentialLR", "StepLR"]

__getattr__ = _absent_names.module_getattr("experimental.optim.lr_scheduler", __name__)
