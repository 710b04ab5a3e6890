"""Resilient backpropagation (MindSpore's ``nn.Rprop``)."""

from __future__ import annotations

from typing import Any

from .. import ops
from .optimizer import Optimizer


class Rprop(Optimizer):
    """Per coordinate, a step size grows by ``etas[1]`` while the gradient keeps its sign,
    shrinks by ``etas[0]`` when it flips (and that step moves nothing and forgets the
    gradient), clipped to ``step_sizes``; ``w -= sign(g) * step``. Step sizes start at the
    learning rate."""

    slot_names = ("prev", "step_size")

    def __init__(self, params: Any, learning_rate: Any = 0.1, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50.0), weight_decay: float = 0.0) -> None:
        for name, value in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(value, tuple):
                raise TypeError(f"Rprop: {name} must be a tuple, got {type(value).__name__}")
            if len(value) != 2:
                raise ValueError(f"Rprop: {name} must be a tuple of 2, got {len(value)}")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"Rprop: the minimal step size {step_sizes[0]} is above the "
                             f"maximal {step_sizes[1]}")
        if not 0.0 < etas[0] < 1.0 or etas[1] <= 1.0:
            raise ValueError(f"Rprop: etas must be (etaminus in (0, 1), etaplus > 1), got {etas}")
        super().__init__(learning_rate, params, weight_decay)
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_size_min, self.step_size_max = float(step_sizes[0]), float(step_sizes[1])

    def apply(self, param, grad, slots, lr, step):
        prev, size = slots
        size = ops.select(ops.equal(step, 1), ops.add(ops.zeros_like(size), ops.cast(lr, size.dtype)),
                          size)
        trend = ops.mul(grad, prev)
        factor = ops.select(ops.greater(trend, 0.0), self.etaplus,
                            ops.select(ops.less(trend, 0.0), self.etaminus, 1.0))
        factor = ops.cast(factor, param.dtype)
        size = ops.clip_by_value(ops.mul(size, factor), self.step_size_min, self.step_size_max)
        kept = ops.select(ops.less(trend, 0.0), ops.zeros_like(grad), grad)
        return ops.sub(param, ops.mul(ops.sign(kept), size)), (kept, size)
