"""``framework.nn``: cells, layers, losses, wrappers and optimizers (MindSpore names)."""

from ..optim import SGD, Adam, AdamWeightDecay, Lamb, Momentum, Optimizer, RMSProp
from . import activation_extra as _activation_extra
from . import layers_extra as _layers_extra
from . import loss_extra as _loss_extra
from .activation_extra import *  # noqa: F403  (issue 25: activation cells)
from .attention import MultiheadAttention
from .cell import Cell, CellList, SequentialCell
from .conv import AvgPool2d, Conv1d, Conv1dTranspose, Conv2d, MaxPool2d
from .distributed import DistributedGradReducer
from .dynamic_lr import cosine_decay_lr, exponential_decay_lr, piecewise_constant_lr, warmup_lr
from .embedding import Embedding
from .graph_cell import GraphCell
from .layers import (
    GELU,
    Dense,
    Dropout,
    FastGelu,
    Flatten,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .layers_extra import *  # noqa: F403  (issue 25: pooling, padding, shuffles, GroupNorm...)
from .learning_rate_schedule import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)
from .loss import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    LossBase,
    MSELoss,
    SoftmaxCrossEntropyWithLogits,
)
from .loss_extra import *  # noqa: F403  (issue 25: more losses)
from .metrics import (
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
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .padding import Pad
from .rnn import GRU, LSTM, RNN
from .rnn_cells import GRUCell, LSTMCell, RNNCell
from .sync_batchnorm import SyncBatchNorm
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .wrap import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepCell,
    TrainOneStepWithLossScaleCell,
    WithEvalCell,
    WithLossCell,
)

__all__ = [
    "F1", "MAE", "MSE", "Accuracy", "Fbeta", "Loss", "Metric", "Precision", "Recall",
    "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "get_metric_fn",
    "names",
    "SGD", "Adam", "AdamWeightDecay", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Cell", "CellList",
    "Conv1d", "Conv1dTranspose", "Conv2d", "DistributedGradReducer", "SyncBatchNorm",
    "BCEWithLogitsLoss", "CrossEntropyLoss", "Dense", "Embedding", "Dropout", "Flatten", "L1Loss",
    "GraphCell",
    "LogSoftmax", "LossBase",
    "MSELoss", "MaxPool2d", "Momentum", "Optimizer", "ReLU", "ReLU6", "SequentialCell", "Sigmoid",
    "Softmax", "SoftmaxCrossEntropyWithLogits", "Tanh", "TrainOneStepCell", "WithEvalCell",
    "WithLossCell", "CosineDecayLR", "ExponentialDecayLR", "InverseDecayLR", "Lamb",
    "LearningRateSchedule", "NaturalExpDecayLR", "PolynomialDecayLR", "RMSProp", "WarmUpLR",
    "cosine_decay_lr", "exponential_decay_lr", "piecewise_constant_lr", "warmup_lr",
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell",
    # sequence models (issue 22)
    "GELU", "FastGelu", "LayerNorm", "SiLU", "Softplus",
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerEncoderLayer",
    "Pad",
    # mixed precision (issue 26)
    "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell",
    *_activation_extra.__all__,
    *_layers_extra.__all__, *_loss_extra.__all__,
]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("nn", __name__)
