"""ONNX conversions of the neural-network primitives: matrix products, convolution,
pooling, normalization, activations, embeddings (Gather), one-hot, the LSTM step, sorting.

The contract is in :mod:`.onnx_context`. Inference only: ``BatchNorm`` in training mode is
refused (and random draws, ``Dropout``, by :mod:`.onnx_model`); the exporter traces in eval
mode, where neither appears.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..ops import activations as act
from ..ops import conv, group_conv, nn_ops, pool, sorting
from ..ops._utils import normalize_axis
from ..ops.batch_matmul import BatchMatMul
from ..ops.layer_norm import LayerNorm
from ..ops.lstm_cell import LSTMPointwise
from ..ops.scatter_gather import Gather
from ..primitive import Primitive
from .onnx_context import NodeContext

Converter = Callable[..., str | tuple[str, ...]]


# -- matrix products ----------------------------------------------------------------------
def convert_matmul(ctx: NodeContext, a: str, b: str) -> str:
    dtype = ctx.out_specs[0].dtype
    a, b = ctx.cast_all([a, b], dtype)
    ta, tb = ctx.prim.transpose_a, ctx.prim.transpose_b
    if dtype.kind == "f":
        return ctx.emit("Gemm", [a, b], transA=int(ta), transB=int(tb))
    a = ctx.emit("Transpose", [a], perm=[1, 0]) if ta else a
    b = ctx.emit("Transpose", [b], perm=[1, 0]) if tb else b
    return ctx.emit("MatMul", [a, b])


def convert_batch_matmul(ctx: NodeContext, a: str, b: str) -> str:
    a, b = ctx.cast_all([a, b], ctx.out_specs[0].dtype)
    operands = []
    for name, spec, flag in zip((a, b), ctx.in_specs, (ctx.prim.transpose_a, ctx.prim.transpose_b)):
        if flag:
            n = len(spec.shape)
            name = ctx.emit("Transpose", [name], perm=[*range(n - 2), n - 1, n - 2])
        operands.append(name)
    return ctx.emit("MatMul", operands)


def convert_bias_add(ctx: NodeContext, x: str, bias: str) -> str:
    x, bias = ctx.cast_all([x, bias], ctx.out_specs[0].dtype)
    ndim = len(ctx.in_specs[0].shape)
    if ndim > 2:  # (C,) -> (C, 1, ..., 1): along axis 1
        bias = ctx.emit("Unsqueeze", [bias, ctx.ints(list(range(1, ndim - 1)))])
    return ctx.emit("Add", [x, bias])


def along_axis(op: str) -> Converter:
    def convert(ctx: NodeContext, x: str) -> str:
        return ctx.emit(op, [x], axis=normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape)))
    return convert


# -- convolution and pooling ----------------------------------------------------------------
def convert_conv(ctx: NodeContext, x: str, w: str) -> str:
    x_shape, w_shape = ctx.in_specs[0].shape, ctx.in_specs[1].shape
    (top, bottom, left, right), _, _ = ctx.prim.geometry(x_shape, w_shape)
    x, w = ctx.cast_all([x, w], ctx.out_specs[0].dtype)
    return ctx.emit("Conv", [x, w], kernel_shape=list(w_shape[2:]), strides=list(ctx.prim.stride),
                    dilations=list(ctx.prim.dilation), pads=[top, left, bottom, right],
                    group=int(getattr(ctx.prim, "group", 1)))


def pooling(op: str) -> Converter:
    """MaxPool (padding never wins: -inf) and AveragePool (means over real entries only)."""
    def convert(ctx: NodeContext, x: str) -> str:
        (top, bottom, left, right), _, _ = ctx.prim.geometry(ctx.in_specs[0].shape)
        extra = {"count_include_pad": 0} if op == "AveragePool" else {}
        return ctx.emit(op, [ctx.cast(x, ctx.in_specs[0].dtype, ctx.out_specs[0].dtype)],
                        kernel_shape=list(ctx.prim.kernel_size), strides=list(ctx.prim.strides),
                        pads=[top, left, bottom, right], **extra)
    return convert


# -- normalization --------------------------------------------------------------------------
def convert_batch_norm(ctx: NodeContext, x: str, scale: str, bias: str, mean: str,
                       variance: str) -> tuple[str, str, str]:
    if ctx.prim.is_training:
        ctx.fail("batch statistics in training mode; export the network in eval mode "
                 "(net.set_train(False))")
    dtype = ctx.out_specs[0].dtype
    args = ctx.cast_all([x, scale, bias, mean, variance], dtype)
    y = ctx.emit("BatchNormalization", args, epsilon=ctx.prim.epsilon)
    return y, args[3], args[4]  # inference: the running statistics pass through


def convert_layer_norm(ctx: NodeContext, x: str, gamma: str, beta: str) -> tuple[str, ...]:
    """``LayerNormalization`` when only ``y`` is used and gamma covers the normalized axes,
    else the formula (mean, biased variance, keep-dims statistics as the IR's)."""
    ndim = len(ctx.in_specs[0].shape)
    norm_axis, params_axis = ctx.prim.axes(ndim)
    dtype = ctx.out_specs[0].dtype
    x, gamma, beta = ctx.cast_all([x, gamma, beta], dtype)
    if norm_axis == params_axis and not (ctx.used(1) or ctx.used(2)):
        y = ctx.emit("LayerNormalization", [x, gamma, beta], axis=norm_axis, epsilon=ctx.prim.epsilon)
        return y, "", ""
    axes = ctx.ints(list(range(norm_axis, ndim)))
    mean = ctx.emit("ReduceMean", [x, axes], keepdims=1)
    centered = ctx.emit("Sub", [x, mean])
    var = ctx.emit("ReduceMean", [ctx.emit("Mul", [centered, centered]), axes], keepdims=1)
    std = ctx.emit("Sqrt", [ctx.emit("Add", [var, ctx.scalar(ctx.prim.epsilon, dtype)])])
    normed = ctx.emit("Mul", [centered, ctx.emit("Reciprocal", [std])])
    y = ctx.emit("Add", [ctx.emit("Mul", [normed, gamma]), beta])
    return y, mean, var


# -- activations ----------------------------------------------------------------------------
def convert_gelu(ctx: NodeContext, x: str) -> str:
    dtype = ctx.out_specs[0].dtype
    x = ctx.cast(x, ctx.in_specs[0].dtype, dtype)
    if ctx.prim.approximate == "tanh":  # x * sigmoid(2 sqrt(2/pi) (x + c x^3)), as the kernel
        cube = ctx.emit("Mul", [ctx.emit("Mul", [x, x]), x])
        inner = ctx.emit("Add", [x, ctx.emit("Mul", [cube, ctx.scalar(act.GELU_CUBIC, dtype)])])
        gate = ctx.emit("Mul", [inner, ctx.scalar(2.0 * act.SQRT_2_OVER_PI, dtype)])
        return ctx.emit("Mul", [x, ctx.emit("Sigmoid", [gate])])
    erf = ctx.emit("Erf", [ctx.emit("Mul", [x, ctx.scalar(1.0 / math.sqrt(2.0), dtype)])])
    half = ctx.emit("Mul", [x, ctx.scalar(0.5, dtype)])
    return ctx.emit("Mul", [half, ctx.emit("Add", [erf, ctx.scalar(1.0, dtype)])])


def gated(scale: float) -> Converter:
    """``x * sigmoid(scale * x)``: SiLU (1) and FastGeLU (1.702)."""
    def convert(ctx: NodeContext, x: str) -> str:
        dtype = ctx.out_specs[0].dtype
        x = ctx.cast(x, ctx.in_specs[0].dtype, dtype)
        arg = x if scale == 1.0 else ctx.emit("Mul", [x, ctx.scalar(scale, dtype)])
        return ctx.emit("Mul", [x, ctx.emit("Sigmoid", [arg])])
    return convert


def convert_softplus(ctx: NodeContext, x: str) -> str:
    """``max(x, 0) + log(1 + exp(-|x|))``: no overflow for large x (as the kernel)."""
    dtype = ctx.out_specs[0].dtype
    x = ctx.cast(x, ctx.in_specs[0].dtype, dtype)
    tail = ctx.emit("Exp", [ctx.emit("Neg", [ctx.emit("Abs", [x])])])
    log = ctx.emit("Log", [ctx.emit("Add", [tail, ctx.scalar(1.0, dtype)])])
    return ctx.emit("Add", [ctx.emit("Relu", [x]), log])


def convert_erf(ctx: NodeContext, x: str) -> str:
    return ctx.emit("Erf", [ctx.cast(x, ctx.in_specs[0].dtype, ctx.out_specs[0].dtype)])


# -- sequence models ------------------------------------------------------------------------
def convert_gather(ctx: NodeContext, x: str, indices: str) -> str:
    """Negative indices count from the end in both (the graph's range check is left out)."""
    return ctx.emit("Gather", [x, indices], axis=normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape)))


def convert_one_hot(ctx: NodeContext, indices: str) -> str:
    """``expand_dims(indices, axis) == arange(depth)`` (out of range, negatives too: off)."""
    ndim = len(ctx.in_specs[0].shape)
    axis = normalize_axis(ctx.prim.axis, ndim + 1)
    classes = np.arange(ctx.prim.depth, dtype=np.int64).reshape((-1,) + (1,) * (ndim - axis))
    wide = ctx.cast(indices, ctx.in_specs[0].dtype, np.int64)
    hot = ctx.emit("Equal", [ctx.emit("Unsqueeze", [wide, ctx.ints([axis])]), ctx.const(classes)])
    dtype = ctx.out_specs[0].dtype
    on, off = ctx.scalar(ctx.prim.on_value, dtype), ctx.scalar(ctx.prim.off_value, dtype)
    return ctx.emit("Where", [hot, on, off])


def convert_lstm_pointwise(ctx: NodeContext, gates: str, c: str) -> tuple[str, ...]:
    dtype = ctx.out_specs[0].dtype
    gates, c = ctx.cast_all([gates, c], dtype)
    i, f, g, o = ctx.emit("Split", [gates], outputs=4, axis=1, num_outputs=4)
    i, f, o, g = (ctx.emit("Sigmoid", [i]), ctx.emit("Sigmoid", [f]), ctx.emit("Sigmoid", [o]),
                  ctx.emit("Tanh", [g]))
    c_new = ctx.emit("Add", [ctx.emit("Mul", [f, c]), ctx.emit("Mul", [i, g])])
    tc = ctx.emit("Tanh", [c_new])
    return ctx.emit("Mul", [o, tc]), c_new, i, f, g, o, tc


def convert_top_k(ctx: NodeContext, x: str) -> tuple[str, str]:
    """Ties: ONNX puts the lower index first, as the stable kernel does."""
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    return _top_k(ctx, x, ctx.prim.k, axis, ctx.prim.largest)


def convert_sort(ctx: NodeContext, x: str) -> tuple[str, str]:
    axis = normalize_axis(ctx.prim.axis, len(ctx.in_specs[0].shape))
    if axis in ctx.symbolic_axes(0):
        ctx.fail("sorts along the batch axis; export with batch_axis=None")
    return _top_k(ctx, x, ctx.in_specs[0].shape[axis], axis, ctx.prim.descending)


def _top_k(ctx: NodeContext, x: str, k: int, axis: int, largest: bool) -> tuple[str, str]:
    values, indices = ctx.emit("TopK", [x, ctx.ints([k])], outputs=2, axis=axis,
                               largest=int(largest), sorted=1)
    return values, ctx.cast(indices, np.int64, ctx.out_specs[1].dtype)


CONVERTERS: dict[type[Primitive], Converter] = {
    nn_ops.MatMul: convert_matmul,
    BatchMatMul: convert_batch_matmul,
    nn_ops.BiasAdd: convert_bias_add,
    nn_ops.Softmax: along_axis("Softmax"),
    nn_ops.LogSoftmax: along_axis("LogSoftmax"),
    nn_ops.OneHot: convert_one_hot,
    nn_ops.BatchNorm: convert_batch_norm,
    conv.Conv2D: convert_conv,
    group_conv.GroupConv2D: convert_conv,
    pool.MaxPool: pooling("MaxPool"),
    pool.AvgPool: pooling("AveragePool"),
    LayerNorm: convert_layer_norm,
    LSTMPointwise: convert_lstm_pointwise,
    Gather: convert_gather,
    act.Erf: convert_erf,
    act.GeLU: convert_gelu,
    act.FastGeLU: gated(act.FAST_GELU_K),
    act.SiLU: gated(1.0),
    act.Softplus: convert_softplus,
    sorting.TopK: convert_top_k,
    sorting.Sort: convert_sort,
}
