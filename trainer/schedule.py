"""Learning-rate schedules from YAML (``optimizer.schedule``) on MindSpore's dynamic-LR
functions (framework.nn.dynamic_lr), given to the optimizer as its per-step learning rate
(:func:`optimizer_lr`).

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

One road: the list is MindSpore's dynamic learning rate of the optimizer (``lr[i]`` for
its update ``i``, computed inside the compiled step from its ``global_step``; the last
value after the end), in both modes. With ``train.accumulate_grad_batches: N`` the
optimizer updates once per N training steps and the schedule counts updates, epochs of
``steps_per_epoch // N`` of them: N accumulated batches of B train as batches of N * B
would, schedule included.
"""

from __future__ import annotations

import math
from typing import Any

from framework import nn


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


def step_lrs(schedule: Any, peak: float, total: int) -> list[float]:
    """A schedule in steps (a language model's, nanoGPT's ``get_lr``): ``warmup_steps`` of
    ``peak * (i + 1) / (warmup_steps + 1)``, then ``constant`` the peak, or ``cosine`` from
    the peak to ``min_lr`` at step ``lr_decay_steps`` (default: the last step) and
    ``min_lr`` after it."""
    if schedule.name not in ("constant", "cosine"):
        raise ValueError(f"a schedule in steps (warmup_steps, lr_decay_steps) is constant or "
                         f"cosine, got {schedule.name}")
    warm, low = schedule.warmup_steps, float(schedule.min_lr)
    decay = schedule.lr_decay_steps if schedule.lr_decay_steps is not None else total
    if warm < 0 or decay <= warm:
        raise ValueError(f"warmup_steps must be >= 0 and below lr_decay_steps, got {warm} and {decay}")
    lrs = []
    for i in range(total):
        if i < warm:
            lrs.append(peak * (i + 1) / (warm + 1))
        elif schedule.name == "constant":
            lrs.append(peak)
        elif i > decay:
            lrs.append(low)
        else:
            lrs.append(low + 0.5 * (1.0 + math.cos(math.pi * (i - warm) / (decay - warm))) * (peak - low))
    return lrs


def optimizer_lr(schedule: Any, peak: float, epochs: int, steps_per_epoch: int,
                 accumulate: int = 1, by_steps: bool = False) -> float | list[float]:
    """The optimizer's ``learning_rate``: ``peak`` without a schedule, else one value per
    optimizer update (see the module doc). ``by_steps``: the task counts steps (a language
    model), the schedule is :func:`step_lrs`'s."""
    if by_steps:
        if schedule.name == "constant" and not schedule.warmup_steps:
            return peak
        return step_lrs(schedule, peak, max(epochs * steps_per_epoch // accumulate, 1))
    if schedule.name == "constant" and not schedule.warmup_epochs:
        return peak
    return schedule_lrs(schedule, peak, epochs, max(steps_per_epoch // accumulate, 1))
