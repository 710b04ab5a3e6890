"""Training callbacks, one per module; all subclass :class:`Callback`."""

from .base import Callback, CallbackList
from .best_checkpoint import BestCheckpoint
from .checkpoint_config import CheckpointConfig
from .early_stopping import EarlyStopping
from .history import History
from .lambda_callback import LambdaCallback
from .loss_monitor import InvalidLossError, LossMonitor
from .model_checkpoint import ModelCheckpoint
from .progress_bar import ProgressBar
from .time_monitor import TimeMonitor

__all__ = ["BestCheckpoint", "Callback", "CallbackList", "CheckpointConfig", "EarlyStopping", "History",
           "InvalidLossError", "LambdaCallback", "LossMonitor", "ModelCheckpoint", "ProgressBar",
           "TimeMonitor"]
