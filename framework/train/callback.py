"""``mindspore.train.callback`` (MindSpore 1.x path): the callbacks of :mod:`framework.train`."""

from . import (  # noqa: F401
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LossMonitor,
    ModelCheckpoint,
    RunContext,
    TimeMonitor,
)
