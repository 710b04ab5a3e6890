"""twinmode's training layer: ``Model``, callbacks, metrics and resumable checkpoints.

    from trainer import Model, LossMonitor, ModelCheckpoint, CheckpointConfig
    model = Model(net, loss_fn, optimizer, metrics={"accuracy"})
    model.train(1, loader, callbacks=[LossMonitor(100), ModelCheckpoint("lenet", "ckpt")])
"""

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
from .metrics import Accuracy, Loss, Metric, register_metric
from .model import Model
from .step import CompiledStep, EagerStep, Step, make_step

__all__ = [
    "Accuracy", "Callback", "CallbackList", "CheckpointConfig", "CheckpointError", "CompiledStep",
    "ConfigMismatchWarning", "CorruptCheckpointWarning", "EagerStep", "EarlyStopping", "History",
    "InvalidLossError", "LambdaCallback", "Loss", "LossMonitor", "Metric", "Model", "ModelCheckpoint",
    "ProgressBar", "RunContext", "Step", "TimeMonitor", "Timings", "TrainState", "TrainingInterrupted",
    "config_hash", "latest_checkpoint", "load_train_state", "make_step", "read_train_state",
    "register_metric",
]
