"""``mindspore.ops.operations.nn_ops``: the neural-network primitive classes we have, under
MindSpore's module path (``from mindspore.ops.operations.nn_ops import Conv2D``)."""

from . import (
    AvgPool,
    BatchNorm,
    BiasAdd,
    Conv2D,
    Conv2DBackpropInput,
    Dropout,
    FastGeLU,
    GeLU,
    LayerNorm,
    LogSoftmax,
    MaxPool,
    OneHot,
    Pad,
    ReLU,
    Sigmoid,
    Softmax,
    Softplus,
    Tanh,
)

__all__ = ["AvgPool", "BatchNorm", "BiasAdd", "Conv2D", "Conv2DBackpropInput", "Dropout",
           "FastGeLU", "GeLU", "LayerNorm", "LogSoftmax", "MaxPool", "OneHot", "Pad", "ReLU",
           "Sigmoid", "Softmax", "Softplus", "Tanh"]
