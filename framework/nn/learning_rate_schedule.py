"""MindSpore's ``nn.LearningRateSchedule`` Cells: ``schedule(global_step)`` gives the
learning rate of a step as a float32 scalar Tensor, computed with framework ops, so an
optimizer built with ``learning_rate=schedule`` evaluates it inside the compiled step.

Formulas (MindSpore's documentation), with ``current_step`` the step as a float and
``p = current_step / decay_steps`` (``floor(p)`` when ``is_stair``):

- ``ExponentialDecayLR``: ``learning_rate * decay_rate ** p``;
- ``NaturalExpDecayLR``: ``learning_rate * exp(-decay_rate * q)`` with ``q = current_step``
  (``floor(p) * decay_steps`` when ``is_stair``): what MindSpore 2.10 computes, not its
  documentation's ``p``;
- ``InverseDecayLR``: ``learning_rate / (1 + decay_rate * p)``;
- ``CosineDecayLR``: ``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * s / decay_steps))``
  with ``s = min(current_step, decay_steps)``;
- ``PolynomialDecayLR``: ``(learning_rate - end_learning_rate) * (1 - s / d) ** power +
  end_learning_rate`` with ``s = min(current_step, decay_steps)``, ``d = decay_steps``; with
  ``update_decay_steps``, ``s = current_step`` and ``d = decay_steps * ceil(current_step /
  decay_steps)`` (at least ``decay_steps``: step 0 uses the first period);
- ``WarmUpLR``: ``learning_rate * min(current_step, warmup_steps) / warmup_steps``.

Argument errors follow MindSpore's documented ones: ``TypeError`` for a wrong type,
``ValueError`` for a value out of range, each naming the argument.
"""

from __future__ import annotations

import math

from .. import dtype as mstype
from .. import ops
from .cell import Cell

__all__ = ["CosineDecayLR", "ExponentialDecayLR", "InverseDecayLR", "LearningRateSchedule",
           "NaturalExpDecayLR", "PolynomialDecayLR", "WarmUpLR"]


def _float(owner: str, name: str, value: object, low: float, strict: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"{owner}: {name} must be a float, got {value!r}")
    if value < low or (strict and value == low):
        raise ValueError(f"{owner}: {name} must be {'>' if strict else '>='} {low}, got {value}")
    return value


def _int(owner: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}: {name} must be an int, got {value!r}")
    if value < 1:
        raise ValueError(f"{owner}: {name} must be >= 1, got {value}")
    return value


def _bool(owner: str, name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be a bool, got {value!r}")
    return value


def _step(global_step):
    return ops.cast(global_step, mstype.float32)


def _floor(x):
    return ops.floor_div(x, 1.0)


class LearningRateSchedule(Cell):
    """Base class: subclasses implement ``construct(global_step)`` with framework ops and
    return the learning rate, a float32 scalar Tensor."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must implement construct(global_step)")


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int,
                 is_stair: bool = False) -> None:
        super().__init__()
        owner = type(self).__name__
        self.learning_rate = _float(owner, "learning_rate", learning_rate, 0.0, True)
        self.decay_rate = _float(owner, "decay_rate", decay_rate, 0.0, True)
        self.decay_steps = _int(owner, "decay_steps", decay_steps)
        self.is_stair = _bool(owner, "is_stair", is_stair)

    def _p(self, global_step):
        p = ops.div(_step(global_step), float(self.decay_steps))
        if self.is_stair:
            p = _floor(p)
        return p


class ExponentialDecayLR(_DecayLR):
    """``learning_rate * decay_rate ** p``."""

    def construct(self, global_step):
        return ops.mul(ops.exp(ops.mul(self._p(global_step), math.log(self.decay_rate))),
                       self.learning_rate)


class NaturalExpDecayLR(_DecayLR):
    """``learning_rate * exp(-decay_rate * p)``, as MindSpore computes it: ``p`` is the step
    itself (not divided by ``decay_steps``); with ``is_stair``, the step rounded down to a
    multiple of ``decay_steps``."""

    def construct(self, global_step):
        p = ops.mul(self._p(global_step), float(self.decay_steps)) if self.is_stair else _step(global_step)
        return ops.mul(ops.exp(ops.mul(p, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_DecayLR):
    """``learning_rate / (1 + decay_rate * p)``."""

    def construct(self, global_step):
        return ops.div(self.learning_rate,
                       ops.add(ops.mul(self._p(global_step), self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps))``."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        owner = "CosineDecayLR"
        self.min_lr = _float(owner, "min_lr", min_lr, 0.0, False)
        self.max_lr = _float(owner, "max_lr", max_lr, 0.0, True)
        if self.max_lr <= self.min_lr:
            raise ValueError(f"{owner}: max_lr must be > min_lr, got {max_lr} <= {min_lr}")
        self.decay_steps = _int(owner, "decay_steps", decay_steps)

    def construct(self, global_step):
        s = ops.minimum(_step(global_step), float(self.decay_steps))
        cosine = ops.cos(ops.mul(s, math.pi / self.decay_steps))
        return ops.add(ops.mul(ops.add(cosine, 1.0), 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end_learning_rate) * (1 - s / d) ** power + end_learning_rate``."""

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int,
                 power: float, update_decay_steps: bool = False) -> None:
        super().__init__()
        owner = "PolynomialDecayLR"
        self.learning_rate = _float(owner, "learning_rate", learning_rate, 0.0, True)
        self.end_learning_rate = _float(owner, "end_learning_rate", end_learning_rate, 0.0, False)
        self.decay_steps = _int(owner, "decay_steps", decay_steps)
        self.power = _float(owner, "power", power, 0.0, True)
        self.update_decay_steps = _bool(owner, "update_decay_steps", update_decay_steps)

    def construct(self, global_step):
        step = _step(global_step)
        if self.update_decay_steps:
            periods = ops.neg(_floor(ops.neg(ops.div(step, float(self.decay_steps)))))  # ceil
            d = ops.mul(ops.maximum(periods, 1.0), float(self.decay_steps))
            s = step
        else:
            d = float(self.decay_steps)
            s = ops.minimum(step, float(self.decay_steps))
        base = ops.sub(1.0, ops.div(s, d))
        return ops.add(ops.mul(ops.pow(base, self.power), self.learning_rate - self.end_learning_rate),
                       self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        self.learning_rate = _float("WarmUpLR", "learning_rate", learning_rate, 0.0, True)
        self.warmup_steps = _int("WarmUpLR", "warmup_steps", warmup_steps)

    def construct(self, global_step):
        s = ops.minimum(_step(global_step), float(self.warmup_steps))
        return ops.mul(s, self.learning_rate / self.warmup_steps)
