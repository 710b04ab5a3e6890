"""``mindspore.nn.wrap``: the training wrappers under MindSpore's module paths
(``nn.wrap.cell_wrapper``: WithLossCell, TrainOneStepCell, WithEvalCell;
``nn.wrap.grad_reducer``: DistributedGradReducer)."""

from . import cell_wrapper, grad_reducer
from .cell_wrapper import TrainOneStepCell, WithEvalCell, WithLossCell
from .grad_reducer import DistributedGradReducer

__all__ = ["DistributedGradReducer", "TrainOneStepCell", "WithEvalCell", "WithLossCell",
           "cell_wrapper", "grad_reducer"]
