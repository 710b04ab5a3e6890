"""The train steps of YAML recipes (``optimizer.clip_grad_norm``,
``train.accumulate_grad_batches``): ``nn.TrainOneStepCell`` with, between the gradients and
the optimizer, ``ops.clip_by_global_norm`` and/or accumulation of the gradients of N
batches (their mean is applied every N-th call, in both modes), as MindSpore users write
them in custom train cells."""

from __future__ import annotations

from typing import Any

import numpy as np

from framework import Parameter, nn, ops

GRAPH_MODE_SOURCE = True  # compiled from source like user code (frontend/convert.py)


class ClipGradTrainOneStepCell(nn.TrainOneStepCell):
    """``TrainOneStepCell(network, optimizer)`` whose gradients are scaled together so that
    their joint L2 norm is at most ``clip_norm`` before the update."""

    def __init__(self, network: nn.Cell, optimizer: Any, clip_norm: float) -> None:
        super().__init__(network, optimizer)
        self.clip_norm = float(clip_norm)

    def construct(self, *inputs):
        loss, grads = self._grad_fn(*inputs)
        if self.reducer_flag:  # data parallel: clip the gradient of the whole batch
            grads = self.grad_reducer(grads)
        grads = ops.clip_by_global_norm(grads, self.clip_norm)
        self.optimizer(grads)
        return loss


class AccumulateTrainOneStepCell(nn.TrainOneStepCell):
    """Adds each call's gradients to ``accum.*`` Parameters; every ``steps``-th call applies
    their mean (clipped to ``clip_norm`` when given) and zeroes them. With a mean loss,
    N calls on batches of B equal one step on their N*B samples. The counter and sums are
    Parameters: checkpoints hold them, so a resume continues mid-accumulation."""

    def __init__(self, network: nn.Cell, optimizer: Any, steps: int,
                 clip_norm: float | None = None) -> None:
        super().__init__(network, optimizer)
        self.steps = int(steps)
        self.clip_norm = float(clip_norm) if clip_norm else 0.0
        self.accum = self.weights.clone(prefix="accum", init="zeros")
        self.accum_count = Parameter(np.array(0, np.int32), "accum_count", requires_grad=False)

    def construct(self, *inputs):
        loss, grads = self._grad_fn(*inputs)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        for total, grad in zip(self.accum, grads):
            ops.assign(total, ops.add(total, grad))
        ops.assign(self.accum_count, ops.add(self.accum_count, 1))
        if self.accum_count % self.steps == 0:
            self._apply()
        return loss

    def _apply(self):
        """The optimizer on the mean of the sums (clipped), then the sums zeroed."""
        grads = tuple(ops.div(total, float(self.steps)) for total in self.accum)
        if self.clip_norm > 0:
            grads = ops.clip_by_global_norm(grads, self.clip_norm)
        self.optimizer(grads)
        for total in self.accum:
            ops.assign(total, ops.zeros_like(total))
        return True
