"""``mindspore.nn.wrap``: the training wrappers under MindSpore's module paths
(``nn.wrap.cell_wrapper``: WithLossCell, TrainOneStepCell, WithEvalCell;
``nn.wrap.loss_scale``: TrainOneStepWithLossScaleCell and the loss-scale update cells;
``nn.wrap.grad_reducer``: DistributedGradReducer)."""

from . import cell_wrapper, grad_reducer, loss_scale
from .cell_wrapper import TrainOneStepCell, WithEvalCell, WithLossCell
from .grad_reducer import DistributedGradReducer
from .loss_scale import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
)

__all__ = ["DistributedGradReducer", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepCell", "TrainOneStepWithLossScaleCell", "WithEvalCell", "WithLossCell",
           "cell_wrapper", "grad_reducer", "loss_scale"]
