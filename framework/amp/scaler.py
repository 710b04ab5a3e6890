"""Loss scalers for hand-written train steps (``mindspore.amp``) and ``all_finite``.

    scaler = ms.amp.DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=50)
    def forward(x, y):
        loss = loss_fn(net(x), y)
        return scaler.scale(loss)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    loss, grads = grad_fn(x, y)
    loss, grads = scaler.unscale(loss), scaler.unscale(grads)
    finite = ms.amp.all_finite(grads)
    if finite:
        opt(grads)
    scaler.adjust(finite)

``scale_value`` and the counter are Parameters: in a compiled step they are state of the
step like a network's weights. ``adjust`` follows MindSpore's arithmetic: finite gradients
count a step, and the ``scale_window``-th in a row multiplies the scale by
``scale_factor`` (unless that overflows float32); an overflow divides it (not below 1) and
resets the count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..common.tensor import Tensor
from ..nn.wrap.loss_scale import grads_finite
from ..parameter import Parameter

_F32_MAX = float(np.finfo(np.float32).max)


def all_finite(inputs: Any) -> Tensor:
    """A 0-d bool Tensor: whether every element of the tensors in ``inputs`` (a tuple or list)
    is finite."""
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, tuple | list) or not inputs:
        raise TypeError("all_finite: inputs must be a non-empty tuple or list of Tensors")
    return grads_finite(tuple(inputs))


def _scale_value(value: Any, where: str) -> Parameter:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 1.0:
        raise ValueError(f"{where}: scale_value must be a number >= 1, got {value!r}")
    return Parameter(Tensor(np.array(value, np.float32)), name="scale_value", requires_grad=False)


def _times(inputs: Any, factor: Any) -> Any:
    if isinstance(inputs, tuple | list):
        return type(inputs)(_times(x, factor) for x in inputs)
    return ops.mul(inputs, ops.cast(factor, inputs.dtype))


class LossScaler:
    """Base class: ``scale(inputs)``, ``unscale(inputs)``, ``adjust(grads_finite)``."""

    scale_value: Parameter

    def scale(self, inputs: Any) -> Any:
        """``inputs`` (a Tensor or a tuple of them) times the scale."""
        return _times(inputs, self.scale_value)

    def unscale(self, inputs: Any) -> Any:
        """``inputs`` divided by the scale (times its reciprocal, as MindSpore computes it)."""
        return _times(inputs, ops.div(1.0, self.scale_value))

    def adjust(self, grads_finite: Any) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """``StaticLossScaler(scale_value)``: a constant scale."""

    def __init__(self, scale_value: float) -> None:
        self.scale_value = _scale_value(scale_value, "StaticLossScaler")

    def adjust(self, grads_finite: Any) -> bool:
        return False


class DynamicLossScaler(LossScaler):
    """``DynamicLossScaler(scale_value, scale_factor, scale_window)`` (see the module doc)."""

    def __init__(self, scale_value: float, scale_factor: int, scale_window: int) -> None:
        self.scale_value = _scale_value(scale_value, "DynamicLossScaler")
        for name, value in (("scale_factor", scale_factor), ("scale_window", scale_window)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"DynamicLossScaler: {name} must be a positive int, got {value!r}")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(np.array(0, np.int32)), name="counter", requires_grad=False)

    def adjust(self, grads_finite: Any) -> bool:
        """Update the scale and the counter from ``grads_finite`` (a 0-d bool Tensor)."""
        one = ops.ones_like(self.scale_value)
        grown = ops.mul(self.scale_value, float(self.scale_factor))
        grown = ops.select(ops.less_equal(ops.abs(grown), _F32_MAX), grown, self.scale_value)
        full = ops.equal(self.counter, self.scale_window - 1)
        kept = ops.select(full, grown, self.scale_value)
        shrunk = ops.maximum(one, ops.div(self.scale_value, float(self.scale_factor)))
        ops.assign(self.scale_value, ops.select(grads_finite, kept, shrunk))
        counted = ops.floor_mod(ops.add(self.counter, 1), self.scale_window)
        ops.assign(self.counter, ops.mul(counted, ops.cast(grads_finite, mstype.int32)))
        return True
