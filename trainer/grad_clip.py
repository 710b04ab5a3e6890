"""Gradient clipping by global norm (``optimizer.clip_grad_norm``): the train step of
``nn.TrainOneStepCell`` with ``ops.clip_by_global_norm`` between the gradients and the
optimizer, as MindSpore users write it in a custom train cell."""

from __future__ import annotations

from typing import Any

from framework import nn, ops


class ClipGradTrainOneStepCell(nn.TrainOneStepCell):
    """``TrainOneStepCell(network, optimizer)`` whose gradients are scaled together so that
    their joint L2 norm is at most ``clip_norm`` before the update."""

    def __init__(self, network: nn.Cell, optimizer: Any, clip_norm: float) -> None:
        super().__init__(network, optimizer)
        self.clip_norm = float(clip_norm)

    def construct(self, *inputs):
        loss, grads = self._grad_fn(*inputs)
        grads = ops.clip_by_global_norm(grads, self.clip_norm)
        self.optimizer(grads)
        return loss
