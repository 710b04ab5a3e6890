"""Functional forms of every primitive (``ops.add``, ``ops.matmul`` ...)."""

from .conv import conv2d
from .elementwise import (
    abs,
    add,
    cast,
    div,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    mul,
    neg,
    not_equal,
    pow,
    relu,
    select,
    sigmoid,
    sqrt,
    square,
    sub,
    sum_to,
    tanh,
    where,
)
from .nn_ops import (
    batch_norm,
    bias_add,
    dense,
    dropout,
    log_softmax,
    matmul,
    one_hot,
    softmax,
)
from .pool import avg_pool2d, max_pool2d
from .reduce import argmax, mean, reduce_max, reduce_mean, reduce_sum, sum
from .shape import (
    broadcast_to,
    cat,
    concat,
    expand_dims,
    flatten,
    getitem,
    ones_like,
    pad,
    permute,
    reshape,
    slice_,
    squeeze,
    stop_gradient,
    transpose,
    zeros_like,
)

__all__ = [
    "abs", "add", "argmax", "avg_pool2d", "batch_norm", "bias_add", "broadcast_to", "cast",
    "cat", "concat", "conv2d", "dense", "div", "dropout", "equal", "exp", "expand_dims",
    "flatten", "getitem", "greater", "greater_equal", "less", "less_equal", "log",
    "log_softmax", "matmul", "max_pool2d", "maximum", "mean", "minimum", "mul", "neg",
    "not_equal", "one_hot", "ones_like", "pad", "permute", "pow", "reduce_max", "reduce_mean",
    "reduce_sum", "relu", "reshape", "select", "sigmoid", "slice_", "softmax", "sqrt",
    "square", "squeeze", "stop_gradient", "sub", "sum", "sum_to", "tanh", "transpose",
    "where", "zeros_like",
]
