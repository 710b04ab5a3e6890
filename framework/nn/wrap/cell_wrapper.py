"""``mindspore.nn.wrap.cell_wrapper``: WithLossCell, TrainOneStepCell, WithEvalCell."""

from __future__ import annotations

from typing import Any

from ... import dtype as mstype
from ... import ops
from ...autograd.grad import value_and_grad
from ...parallel_context import get_auto_parallel_context, is_data_parallel
from ...parameter import ParameterTuple
from ..cell import Cell


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``."""

    _paths_from = "_backbone"  # graph mode names cells from the backbone (trace.name_cells_from)

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class TrainOneStepCell(Cell):
    """One optimization step: loss, gradients of the optimizer's parameters, update.

    ``sens`` scales the loss gradient (loss scaling), as in MindSpore. When the parallel
    context says ``DATA_PARALLEL`` at construction, the gradients go through
    ``nn.DistributedGradReducer`` (all-reduced, averaged if ``gradients_mean``) before the
    update, as MindSpore's does (``self.grad_reducer``, ``self.reducer_flag``).
    """

    _paths_from = "network"  # graph mode names cells from it (trace.name_cells_from)

    def __init__(self, network: Cell, optimizer: Any, sens: float | None = None,
                 return_grad: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer
        self.weights = ParameterTuple(optimizer.parameters)
        self.sens = 1.0 if sens is None else sens
        self.return_grad = bool(return_grad)
        self.grad_names = tuple(p.name for p in self.weights)
        self._grad_fn = value_and_grad(self.network, None, self.weights)
        self.reducer_flag = is_data_parallel()
        self.grad_reducer = None
        if self.reducer_flag:
            from ..distributed import DistributedGradReducer

            self.grad_reducer = DistributedGradReducer(self.weights,
                                                       get_auto_parallel_context("gradients_mean"))

    def construct(self, *inputs):
        loss, grads = self._grad_fn(*inputs)
        if self.sens != 1.0:
            grads = tuple(ops.mul(g, self.sens) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:  # MindSpore's: the gradients by parameter name
            return loss, dict(zip(self.grad_names, grads))
        return loss


class WithEvalCell(Cell):
    """``(loss, outputs, label)`` for evaluation."""

    _paths_from = "_network"  # graph mode names cells from it (trace.name_cells_from)

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = bool(add_cast_fp32)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:  # MindSpore's: float32 outputs, a float label in float32
            outputs = ops.cast(outputs, mstype.float32)
            if label.dtype.is_floating:
                label = ops.cast(label, mstype.float32)
        return self._loss_fn(outputs, label), outputs, label
