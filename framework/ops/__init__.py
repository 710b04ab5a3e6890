"""``framework.ops``: primitive classes (``ops.Add()``) and functional forms (``ops.add``)."""

from ..autograd.grad import GradOperation, grad, value_and_grad
from . import functional
from .conv import Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput
from .debug import Print
from .elementwise import (
    Abs,
    Add,
    Cast,
    Div,
    Equal,
    Exp,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    Log,
    Maximum,
    Minimum,
    Mul,
    Neg,
    NotEqual,
    Pow,
    RealDiv,
    ReLU,
    Select,
    Sigmoid,
    Sqrt,
    Sub,
    Tanh,
)
from .functional import *  # noqa: F403
from .functional import __all__ as _functional_all
from .nn_ops import BatchNorm, BiasAdd, Dropout, LogSoftmax, MatMul, OneHot, Softmax
from .pool import AvgPool, AvgPoolGrad, MaxPool, MaxPoolGrad
from .reduce import Argmax, ReduceMax, ReduceMean, ReduceSum
from .shape import (
    BroadcastTo,
    Concat,
    ExpandDims,
    OnesLike,
    Pad,
    Reshape,
    Slice,
    Squeeze,
    StopGradient,
    Transpose,
    ZerosLike,
)

__all__ = [
    "Abs", "Add", "Argmax", "AvgPool", "AvgPoolGrad", "BatchNorm", "BiasAdd", "BroadcastTo",
    "Cast", "Concat", "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Div",
    "Dropout", "Equal", "Exp", "ExpandDims", "GradOperation", "Greater", "GreaterEqual",
    "Less", "LessEqual", "Log", "LogSoftmax", "MatMul", "MaxPool", "MaxPoolGrad", "Maximum",
    "Minimum", "Mul", "Neg", "Print", "NotEqual", "OneHot", "OnesLike", "Pad", "Pow", "RealDiv",
    "ReLU", "ReduceMax", "ReduceMean", "ReduceSum", "Reshape", "Select", "Sigmoid", "Slice",
    "Softmax", "Sqrt", "Squeeze", "StopGradient", "Sub", "Tanh", "Transpose", "ZerosLike",
    "functional", "grad", "value_and_grad", *_functional_all,
]
