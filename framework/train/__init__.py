"""``mindspore.train``: ``Model``, callbacks and metrics (``from framework.train import Model``).

The training layer lives in the ``trainer`` package; this module re-exports it under
MindSpore's names. It is imported only when asked for (``import framework`` does not load
the trainer): ``framework.Model`` and friends are lazy attributes of ``framework``.
"""

from trainer.callbacks import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LossMonitor,
    ModelCheckpoint,
    TimeMonitor,
)
from trainer.context import RunContext
from trainer.model import Model

from ..nn.metrics import (
    F1,
    MAE,
    MSE,
    Accuracy,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    names,
)

__all__ = ["F1", "MAE", "MSE", "Accuracy", "Callback", "CheckpointConfig", "EarlyStopping", "Fbeta",
           "History", "LambdaCallback", "Loss", "LossMonitor", "Metric", "Model", "ModelCheckpoint",
           "Precision", "Recall", "RunContext", "TimeMonitor", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "get_metric_fn", "names"]
