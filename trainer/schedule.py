"""Learning-rate schedules from YAML (``optimizer.schedule``) on MindSpore's dynamic-LR
functions (framework.nn.dynamic_lr), applied per step by :class:`LRSchedule`.

Contract: :func:`schedule_lrs` gives one learning rate per training step (``epochs *
steps_per_epoch``). ``optimizer.learning_rate`` is the peak. ``warmup_epochs`` first
rise linearly per step to it (``lr * (i + 1) / warmup_steps``); the rest follows ``name``:

- ``constant``: the peak;
- ``cosine``: ``nn.cosine_decay_lr(min_lr, peak, n, 1, n)`` over the remaining ``n`` steps
  (per step, from the peak towards ``min_lr``);
- ``exponential``: ``nn.exponential_decay_lr(peak, decay_rate, n, steps_per_epoch,
  decay_epochs, is_stair)``;
- ``piecewise``: ``values[k]`` from epoch ``milestones[k-1]`` (``nn.piecewise_constant_lr``
  on step milestones), the last value to the end; ``values[0]`` replaces the peak.

The LR is the optimizer's ``learning_rate`` Parameter, set before each step: an input of
the compiled step, so graph mode does not recompile when it changes.
"""

from __future__ import annotations

import math
from typing import Any

from framework import nn

from .callbacks import Callback


def schedule_lrs(schedule: Any, peak: float, epochs: int, steps_per_epoch: int) -> list[float]:
    """Per-step learning rates (``ValueError``/``TypeError`` naming the bad setting)."""
    name, total = schedule.name, epochs * steps_per_epoch
    if name == "piecewise":
        milestones, values = list(schedule.milestones or []), list(schedule.values or [])
        if len(values) != len(milestones) + 1:
            raise ValueError(f"piecewise needs one more value than milestones (the epochs where the "
                             f"LR changes), got {len(milestones)} milestones, {len(values)} values")
        peak = float(values[0])
    warm = min(schedule.warmup_epochs * steps_per_epoch, total)
    lrs = [peak * (i + 1) / warm for i in range(warm)]
    rest = total - warm
    if rest <= 0:
        return lrs
    if name == "constant":
        return lrs + [peak] * rest
    if name == "cosine":
        return lrs + nn.cosine_decay_lr(float(schedule.min_lr), float(peak), rest, 1, rest)
    if name == "exponential":
        return lrs + nn.exponential_decay_lr(float(peak), float(schedule.decay_rate), rest,
                                             steps_per_epoch, schedule.decay_epochs,
                                             schedule.is_stair)
    bounds = [m * steps_per_epoch for m in milestones if m * steps_per_epoch < total] + [total]
    return lrs + nn.piecewise_constant_lr(bounds, [float(v) for v in values[:len(bounds)]])[warm:]


def check_schedule(schedule: Any, peak: float, epochs: int) -> None:
    """Raise ``ValueError`` for settings no run could use (checked at config load)."""
    if schedule.warmup_epochs < 0 or schedule.decay_epochs < 1:
        raise ValueError("warmup_epochs must be >= 0 and decay_epochs >= 1")
    if schedule.name == "cosine" and not 0 <= schedule.min_lr < peak:
        raise ValueError(f"min_lr must be >= 0 and below optimizer.learning_rate ({peak}), got "
                         f"{schedule.min_lr}")
    if schedule.name == "exponential" and not schedule.decay_rate > 0:
        raise ValueError(f"decay_rate must be > 0, got {schedule.decay_rate}")
    if schedule.name == "piecewise" and any(
            not isinstance(v, int | float) or not math.isfinite(v) or v < 0
            for v in schedule.values or []):
        raise ValueError(f"values must be learning rates >= 0, got {schedule.values}")
    schedule_lrs(schedule, peak, epochs, 2)


class LRSchedule(Callback):
    """Sets the optimizer's learning rate from ``lrs[global_step]`` before every step (the
    last value after the end), so a resumed run continues on the same schedule."""

    order = -10  # before anything that reads the LR

    def __init__(self, lrs: list[float]) -> None:
        self.lrs = lrs

    def on_train_step_begin(self, ctx: Any) -> None:
        import numpy as np

        from framework import Tensor

        lr = self.lrs[min(ctx.global_step, len(self.lrs) - 1)]
        ctx.optimizer.learning_rate.set_data(Tensor(np.array(lr, np.float32)))
