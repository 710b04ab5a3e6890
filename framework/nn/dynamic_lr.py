"""MindSpore's dynamic learning-rate functions (``mindspore.nn.cosine_decay_lr`` ...): each
returns a Python list with one learning rate per step, ``total_step`` long (for
``piecewise_constant_lr``: ``milestone[-1]`` long), computed with MindSpore's published
formulas, where ``current_epoch = floor(i / step_per_epoch)`` for step ``i``.

Argument checks follow MindSpore's documented errors: ``TypeError`` for a wrong type,
``ValueError`` for an out-of-range value, each naming the argument.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["cosine_decay_lr", "exponential_decay_lr", "inverse_decay_lr", "natural_exp_decay_lr",
           "piecewise_constant_lr", "polynomial_decay_lr", "warmup_lr"]


def _float(name: str, value: object, fn: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"{fn}: {name} must be a float, got {value!r}")
    return value


def _int(name: str, value: object, fn: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{fn}: {name} must be an int, got {value!r}")
    if value < low:
        raise ValueError(f"{fn}: {name} must be >= {low}, got {value}")
    return value


def _steps(fn: str, total_step: object, step_per_epoch: object, epochs_name: str,
           epochs: object) -> tuple[int, int, int]:
    return (_int("total_step", total_step, fn, 1), _int("step_per_epoch", step_per_epoch, fn, 1),
            _int(epochs_name, epochs, fn, 1))


def piecewise_constant_lr(milestone: Sequence[int], learning_rates: Sequence[float]) -> list[float]:
    """``y[i] = learning_rates[t]`` for ``milestone[t-1] <= i < milestone[t]`` (``milestone[-1]``
    steps in all); ``milestone`` strictly increasing positive ints."""
    fn = "piecewise_constant_lr"
    if not isinstance(milestone, list | tuple) or not isinstance(learning_rates, list | tuple):
        raise TypeError(f"{fn}: milestone and learning_rates must be lists or tuples")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"{fn}: milestone ({len(milestone)}) and learning_rates "
                         f"({len(learning_rates)}) must have the same length")
    previous = 0
    out: list[float] = []
    for step, lr in zip(milestone, learning_rates, strict=True):
        _int("milestone element", step, fn, 1)
        if step <= previous:
            raise ValueError(f"{fn}: milestone must be strictly increasing, got {list(milestone)}")
        if isinstance(lr, bool) or not isinstance(lr, int | float):
            raise TypeError(f"{fn}: learning_rates must be numbers, got {lr!r}")
        out.extend([float(lr)] * (step - previous))
        previous = step
    return out


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int, is_stair: bool = False
                         ) -> list[float]:
    """``learning_rate * decay_rate ** (current_epoch / decay_epoch)`` (``is_stair``: the
    exponent floored)."""
    fn = "exponential_decay_lr"
    lr, rate = _float("learning_rate", learning_rate, fn), _float("decay_rate", decay_rate, fn)
    if lr <= 0 or rate <= 0:
        raise ValueError(f"{fn}: learning_rate and decay_rate must be > 0, got {lr}, {rate}")
    if not isinstance(is_stair, bool):
        raise TypeError(f"{fn}: is_stair must be a bool, got {is_stair!r}")
    total, per_epoch, decay = _steps(fn, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    out = []
    for i in range(total):
        p = (i // per_epoch) / decay
        out.append(lr * rate ** (math.floor(p) if is_stair else p))
    return out


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * current_epoch / decay_epoch))``."""
    fn = "cosine_decay_lr"
    low, high = _float("min_lr", min_lr, fn), _float("max_lr", max_lr, fn)
    if high <= 0 or low < 0:
        raise ValueError(f"{fn}: max_lr must be > 0 and min_lr >= 0, got {high}, {low}")
    if high <= low:
        raise ValueError(f"{fn}: max_lr must be > min_lr, got {high} <= {low}")
    total, per_epoch, decay = _steps(fn, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    return [low + 0.5 * (high - low) * (1 + math.cos(math.pi * (i // per_epoch) / decay))
            for i in range(total)]


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int
              ) -> list[float]:
    """``learning_rate * min(current_epoch, warmup_epoch) / warmup_epoch``."""
    fn = "warmup_lr"
    lr = _float("learning_rate", learning_rate, fn)
    if lr < 0:
        raise ValueError(f"{fn}: learning_rate must be >= 0, got {lr}")
    total, per_epoch, warmup = _steps(fn, total_step, step_per_epoch, "warmup_epoch", warmup_epoch)
    return [lr * min(i // per_epoch, warmup) / warmup for i in range(total)]


def _decay_args(fn: str, learning_rate: object, decay_rate: object, is_stair: object) -> tuple[float, float]:
    lr, rate = _float("learning_rate", learning_rate, fn), _float("decay_rate", decay_rate, fn)
    if lr <= 0 or rate <= 0:
        raise ValueError(f"{fn}: learning_rate and decay_rate must be > 0, got {lr}, {rate}")
    if not isinstance(is_stair, bool):
        raise TypeError(f"{fn}: is_stair must be a bool, got {is_stair!r}")
    return lr, rate


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                     step_per_epoch: int, decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``learning_rate / (1 + decay_rate * current_epoch / decay_epoch)`` (``is_stair``: the
    ratio floored)."""
    fn = "inverse_decay_lr"
    lr, rate = _decay_args(fn, learning_rate, decay_rate, is_stair)
    total, per_epoch, decay = _steps(fn, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    out = []
    for i in range(total):
        p = (i // per_epoch) / decay
        out.append(lr / (1 + rate * (math.floor(p) if is_stair else p)))
    return out


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int,
                         step_per_epoch: int, decay_epoch: int, is_stair: bool = False
                         ) -> list[float]:
    """``learning_rate * e^(-decay_rate * current_epoch)``; ``is_stair``: the epoch rounded
    down to a multiple of ``decay_epoch`` (MindSpore 2.10's: without ``is_stair`` the epoch
    is not divided by ``decay_epoch``)."""
    fn = "natural_exp_decay_lr"
    lr, rate = _decay_args(fn, learning_rate, decay_rate, is_stair)
    total, per_epoch, decay = _steps(fn, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    out = []
    for i in range(total):
        epoch = i // per_epoch
        if is_stair:
            epoch = (epoch // decay) * decay
        out.append(lr * math.e ** (-rate * epoch))
    return out


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int,
                        step_per_epoch: int, decay_epoch: int, power: float,
                        update_decay_epoch: bool = False) -> list[float]:
    """``(learning_rate - end) * (1 - min(current_epoch, decay_epoch) / decay_epoch)^power +
    end``; ``update_decay_epoch``: the epoch is not capped, the decay epoch grows to
    ``decay_epoch * ceil(current_epoch / decay_epoch)`` (at least ``decay_epoch``)."""
    fn = "polynomial_decay_lr"
    lr, end = _float("learning_rate", learning_rate, fn), _float("end_learning_rate", end_learning_rate, fn)
    p = _float("power", power, fn)
    if lr <= 0 or p <= 0 or end < 0:
        raise ValueError(f"{fn}: learning_rate and power must be > 0 and end_learning_rate >= 0, "
                         f"got {lr}, {p}, {end}")
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"{fn}: update_decay_epoch must be a bool, got {update_decay_epoch!r}")
    total, per_epoch, decay = _steps(fn, total_step, step_per_epoch, "decay_epoch", decay_epoch)
    out = []
    for i in range(total):
        epoch = i // per_epoch
        if update_decay_epoch:
            span = decay * max(math.ceil(epoch / decay), 1)
        else:
            span, epoch = decay, min(epoch, decay)
        out.append((lr - end) * (1 - epoch / span) ** p + end)
    return out
