"""``mindspore.train``: the generic training core (``from framework.train import Model``).

``Model`` (model.py) runs the loop (loop.py) over a step (step.py: the one place that knows
the execution modes), calling callbacks (callbacks/) with a :class:`RunContext`
(context.py); checkpoint.py keeps the resumable train state, metrics.py the metric
registry, train_cells.py the clipping/accumulating train cells. The application on top
(``trainer``: YAML, CLI, MLflow, sweeps, the model zoo) imports this package, never the
reverse. ``import framework`` does not load it: ``framework.Model`` and friends are lazy
attributes of ``framework``.
"""

from ..amp.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
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
from .callbacks import (
    Callback,
    CallbackList,
    CheckpointConfig,
    EarlyStopping,
    History,
    InvalidLossError,
    LambdaCallback,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
    TimeMonitor,
)
from .checkpoint import (
    CheckpointError,
    ConfigMismatchWarning,
    CorruptCheckpointWarning,
    TrainState,
    config_hash,
    latest_checkpoint,
    load_train_state,
    read_train_state,
)
from .context import RunContext, Timings
from .loop import TrainingInterrupted
from .metrics import register_metric
from .model import Model
from .step import CompiledStep, EagerStep, Step, make_step

__all__ = [
    "DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager",
    "F1", "MAE", "MSE", "Accuracy", "Callback", "CallbackList", "CheckpointConfig", "CheckpointError",
    "CompiledStep", "ConfigMismatchWarning", "CorruptCheckpointWarning", "EagerStep", "EarlyStopping",
    "Fbeta", "History", "InvalidLossError", "LambdaCallback", "Loss", "LossMonitor", "Metric", "Model",
    "ModelCheckpoint", "Precision", "ProgressBar", "Recall", "RunContext", "Step", "TimeMonitor",
    "Timings", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy",
    "TrainState", "TrainingInterrupted", "config_hash", "get_metric_fn", "latest_checkpoint",
    "load_train_state", "make_step", "names", "read_train_state", "register_metric",
]
