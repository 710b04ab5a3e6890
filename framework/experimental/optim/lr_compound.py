"""The schedulers of :mod:`.lr_scheduler` driven by more than the epoch count: ``CyclicLR``
(triangular cycles between two rates), ``SequentialLR`` (schedulers in turn) and
``ReduceLROnPlateau`` (a metric's progress); MindSpore 2.10's (PyTorch's) rules."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...common.tensor import Tensor
from .lr_scheduler import F32, LRScheduler, _lr_parameters


class CyclicLR(LRScheduler):
    """``CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
    mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle', last_epoch=-1)``:
    the rate climbs from ``base_lr`` to ``max_lr`` in ``step_size_up`` steps and back in
    ``step_size_down``, the height scaled by ``scale_fn`` (of the cycle or of the step)."""

    def __init__(self, optimizer: Any, base_lr: float | list, max_lr: float | list,
                 step_size_up: int = 2000, step_size_down: int | None = None,
                 mode: str = "triangular", gamma: float = 1.0, scale_fn: Callable | None = None,
                 scale_mode: str = "cycle", last_epoch: int = -1) -> None:
        params = _lr_parameters("CyclicLR", optimizer)
        self.max_lrs = [F32(v) for v in _per_group(max_lr, len(params))]
        base_lrs = [F32(v) for v in _per_group(base_lr, len(params))]
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError("CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', "
                             f"got {mode!r}")
        self.mode, self.gamma = mode, float(gamma)
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        else:
            self.scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: self.gamma ** x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        for param, value in zip(params, base_lrs, strict=True):  # the cycle starts at base_lr
            param.set_data(Tensor(np.asarray(value, np.float32)))
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def get_lr(self) -> list[Any]:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        return [base + (top - base) * F32(factor) * F32(scale)
                for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]


def _per_group(value: Any, count: int) -> list[Any]:
    values = list(value) if isinstance(value, list | tuple) else [value] * count
    if len(values) != count:
        raise ValueError(f"CyclicLR: expected {count} values, one per learning rate, got {len(values)}")
    return values


class SequentialLR:
    """``SequentialLR(optimizer, schedulers, milestones, last_epoch=-1)``: ``schedulers[i]``
    steps the rate until ``milestones[i]``, where the next one starts from its epoch 0."""

    def __init__(self, optimizer: Any, schedulers: Sequence[LRScheduler], milestones: Sequence[int],
                 last_epoch: int = -1) -> None:
        schedulers = list(schedulers)
        if any(s.optimizer is not optimizer for s in schedulers):
            raise ValueError("SequentialLR: every scheduler must drive the optimizer given")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: {len(schedulers)} schedulers need "
                             f"{len(schedulers) - 1} milestones, got {len(milestones)}")
        self.optimizer, self._schedulers = optimizer, schedulers
        self._milestones = [int(m) for m in milestones]
        self.last_epoch = last_epoch + 1
        params = _lr_parameters("SequentialLR", optimizer)
        for param, base in zip(params, schedulers[0].base_lrs, strict=True):  # back to the start
            param.set_data(Tensor(np.asarray(base, np.float32)))
        for scheduler in schedulers:  # undo the first step each took when made
            scheduler.last_epoch -= 1
        schedulers[0].step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self) -> None:
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def get_last_lr(self) -> list[Tensor]:
        return self._last_lr


class ReduceLROnPlateau:
    """``ReduceLROnPlateau(optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
    threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8)``; ``step(metrics)`` each epoch."""

    def __init__(self, optimizer: Any, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'min' or 'max' and threshold_mode "
                             f"'rel' or 'abs', got {mode!r}, {threshold_mode!r}")
        self.optimizer = optimizer
        self._params = _lr_parameters("ReduceLROnPlateau", optimizer)
        self.min_lrs = [F32(v) for v in (min_lr if isinstance(min_lr, list | tuple)
                                         else [min_lr] * len(self._params))]
        self.mode, self.factor, self.patience = mode, F32(factor), int(patience)
        self.threshold, self.threshold_mode = float(threshold), threshold_mode
        self.cooldown, self.eps = int(cooldown), float(eps)
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = self.cooldown_counter = self.last_epoch = 0
        self._last_lr = [F32(p.asnumpy()) for p in self._params]

    def _is_improvement(self, current: float) -> bool:
        sign = 1 if self.mode == "max" else -1
        rel = self.threshold_mode == "rel"
        bar = self.best * (1 + sign * self.threshold) if rel else self.best + sign * self.threshold
        return current > bar if self.mode == "max" else current < bar

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics: Any) -> None:
        current = float(np.asarray(metrics.asnumpy() if isinstance(metrics, Tensor) else metrics))
        self.last_epoch += 1
        if self._is_improvement(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [F32(p.asnumpy()) for p in self._params]

    def _reduce_lr(self) -> None:
        for param, floor in zip(self._params, self.min_lrs, strict=True):
            old = F32(param.asnumpy())
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                param.set_data(Tensor(np.asarray(new, np.float32)))

    def get_last_lr(self) -> list[Tensor]:
        return [Tensor(np.asarray(v, np.float32)) for v in self._last_lr]
