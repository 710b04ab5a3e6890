"""``mindspore.nn.wrap.loss_scale``: training with loss scaling (mixed precision).

``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)`` differentiates
``loss * scale`` (so that small float16 gradients do not flush to zero), divides the
gradients by the scale, checks them for inf/NaN and skips the optimizer on an overflow;
``scale_sense`` is a Tensor (a fixed scale the user may change with ``set_sense_scale``) or
an update Cell that adjusts the scale after each step:

- ``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``: on an
  overflow the scale is divided by ``scale_factor`` (never below 1); after
  ``scale_window`` steps without one since the last overflow (or increase) it is
  multiplied by ``scale_factor``; MindSpore's formulas, step for step.
- ``FixedLossScaleUpdateCell(loss_scale_value)``: the scale never changes (overflowing
  steps are still skipped).

The step returns ``(loss, overflow, loss_scale)`` as MindSpore's does (``loss_scale``: the
scale this step used). The scale and the update cell's counters are Parameters: they live
in the compiled step in graph mode and go into checkpoints, so a resume continues with the
scale it had. Written as graph-mode source (``if`` on the overflow flag is an ``If`` region).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtype as mstype
from ... import ops
from ...autograd.grad import value_and_grad
from ...common.tensor import Tensor
from ...parameter import Parameter
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell

GRAPH_MODE_SOURCE = True  # compiled from source like user code (frontend/convert.py)

_F32_MAX = float(np.finfo(np.float32).max)
_SHRINK = 2.0 ** -32


def grads_finite(grads: Any) -> Any:
    """A 0-d bool Tensor: whether every element of every tensor in ``grads`` is finite.

    One sum per tensor of its elements times ``_SHRINK``: an inf or NaN anywhere makes the
    sum inf or NaN (inf - inf is NaN too), and ``|total| <= FLT_MAX`` is False for both.
    A plain sum is one vectorised pass over each gradient (schedule/full_sums.py), where
    ``max(|g|)`` took a float32 copy of ``|g|`` and a serial NaN-propagating reduction.
    ``_SHRINK`` keeps sums of finite values finite: 2^-32 * FLT_MAX * 2^32 elements is
    FLT_MAX, and gradients of ordinary size do not become subnormal (slow on x86)."""
    with np.errstate(invalid="ignore", over="ignore"):  # PyNative: inf/NaN is what is looked for
        sums = [ops.reduce_sum(ops.cast(g, mstype.float32) * _SHRINK) for g in grads]
        total = sums[0] if len(sums) == 1 else ops.reduce_sum(ops.stack(sums))
        return ops.less_equal(ops.abs(total), _F32_MAX)


class DynamicLossScaleUpdateCell(Cell):
    """``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``;
    ``cell(loss_scale, overflow)`` updates the Parameter ``loss_scale`` and returns
    ``overflow``."""

    def __init__(self, loss_scale_value: float, scale_factor: int, scale_window: int) -> None:
        super().__init__()
        if scale_factor <= 0 or scale_window < 1:
            raise ValueError(f"DynamicLossScaleUpdateCell: scale_factor must be > 0 and scale_window "
                             f">= 1, got {scale_factor} and {scale_window}")
        self.scale_window = int(scale_window)
        self.scale_factor = float(scale_factor)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.array(1, np.int32)), name="current_iterator_step",
                                  requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array(0, np.int32)),
                                            name="last_overflow_iterator_step", requires_grad=False)

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        one = ops.ones_like(loss_scale)
        on_overflow = ops.select(overflow, ops.maximum(ops.div(loss_scale, self.scale_factor), one),
                                 loss_scale)
        since = ops.sub(self.cur_iter, self.last_overflow_iter)
        should_inc = ops.less_equal(ops.fill(mstype.int32, (), self.scale_window), since)
        grow = ops.select(overflow, ops.zeros_like(should_inc), should_inc)  # and not overflow
        mark = ops.select(overflow, ops.ones_like(should_inc), should_inc)  # overflow or grow
        ops.assign(self.last_overflow_iter, ops.select(mark, self.cur_iter, self.last_overflow_iter))
        ops.assign(loss_scale, ops.select(grow, ops.mul(on_overflow, self.scale_factor), on_overflow))
        ops.assign(self.cur_iter, ops.add(self.cur_iter, 1))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """``FixedLossScaleUpdateCell(loss_scale_value)``: the scale stays; returns ``overflow``."""

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class _ScaledLoss(Cell):
    """``(loss * scale, loss)``: the first is differentiated, the second returned as it is."""

    def __init__(self, network: Cell) -> None:
        super().__init__(auto_prefix=False)
        self.network = network

    def construct(self, scale, *inputs):
        loss = self.network(*inputs)
        return ops.mul(loss, ops.cast(scale, loss.dtype)), loss


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: one step with
    loss scaling; returns ``(loss, overflow, loss_scale)`` (see the module doc)."""

    def __init__(self, network: Cell, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = np.array(scale_sense.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError("TrainOneStepWithLossScaleCell: scale_sense must have shape () or (1,), "
                                 f"got {tuple(scale_sense.shape)}")
            value = scale_sense.asnumpy()
        else:
            raise TypeError("TrainOneStepWithLossScaleCell: scale_sense must be a Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")
        self.scale_sense = Parameter(Tensor(value), name="scale_sense", requires_grad=False)
        self._grad_fn = value_and_grad(_ScaledLoss(network), None, self.weights, has_aux=True)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # an overflow is what this step detects and skips: NumPy need not warn about it
        with np.errstate(over="ignore", invalid="ignore"):
            return super().__call__(*args, **kwargs)

    def set_sense_scale(self, sens: Tensor) -> None:
        """A new fixed scale (``scale_sense`` given as a Tensor)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"TrainOneStepWithLossScaleCell.set_sense_scale: sens must be a Tensor, got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(sens)

    def construct(self, *inputs):
        scaling_sens = ops.add(self.scale_sense, 0.0)  # this step's scale (the Parameter may change)
        (_, loss), grads = self._grad_fn(scaling_sens, *inputs)
        inverse = ops.div(1.0, scaling_sens)
        grads = tuple(ops.mul(g, ops.cast(inverse, g.dtype)) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens

    def start_overflow_check(self, pre_cond, compute_input):
        """MindSpore's hook for devices with a float status register: nothing to clear here."""
        return None, compute_input

    def get_overflow_status(self, status, compute_output):
        """Whether any gradient holds an inf or NaN (data parallel: the gradients are
        all-reduced first, so every rank reaches the same verdict)."""
        return ops.equal(grads_finite(compute_output), False)

    def process_loss_scale(self, overflow):
        """The update cell's verdict on ``overflow`` (it also updates the scale)."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
