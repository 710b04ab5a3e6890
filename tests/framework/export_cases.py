"""A network touching the elementwise, reduction, sorting and shape primitives that the
ONNX exporter converts (tests/framework/test_export_onnx.py): float and int32 inputs,
mixed-dtype arithmetic, NumPy's floor division and modulo, comparisons and select."""

from __future__ import annotations

import numpy as np

import framework as ms
from framework import nn, ops


class OpsNet(nn.Cell):
    def construct(self, x, k):
        a = ops.softplus(x) + ops.silu(x) * ops.gelu(x, approximate="tanh") - ops.erf(x)
        a = ops.fast_gelu(a) + ops.sqrt(ops.abs(x)) + ops.exp(-x) / (ops.log(ops.abs(x) + 1.0) + 2.0)
        b = ops.floor_div(x, 0.3) + ops.floor_mod(x, 0.7) + ops.floor_mod(k, 3) + ops.floor_div(k, -2)
        c = ops.select(x > 0.1, a, b) + ops.cast(k, ms.float32) / 3 + k / 4
        c = ops.maximum(c, ops.minimum(a, 2.0)) + ops.pow(ops.abs(x), 1.5) + ops.cos(x) * ops.sin(x)
        hot = ops.one_hot(ops.cast(k, ms.int32) % 4, 4, 1.0, 0.0)  # (B, 6, 4)
        d = ops.reduce_sum(hot, 2) + ops.ReduceMax(keep_dims=True)(c, 1) + ops.ReduceMean(True)(c, (1,))
        e = ops.cumsum(c, 1) + ops.log_softmax(c, -1) + ops.sort(c, -1)[0]
        vals, idx = ops.topk(c, 3)
        f = ops.pad(e, (1, 2))[:, 2:8] + ops.expand_dims(ops.squeeze(c[:, 1:2], 1), 1)
        g = ops.concat([f, d, ops.cast(ops.argmax(c, 1), ms.float32).reshape(-1, 1), vals,
                        ops.cast(idx, ms.float32)], 1)
        m = ops.cast(ops.reduce_all(x > -5, 1), ms.float32) + ops.cast(ops.reduce_any(x > 1, 1), ms.float32)
        g = g * ops.expand_dims(m, 1) + ops.neg(ops.tanh(g)) + ops.sigmoid(ops.relu(g))
        return g, ops.broadcast_to(ops.ReduceSum(True)(g, (0,)), g.shape) + ops.zeros_like(g)


def ops_inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    return lambda b: [rng.standard_normal((b, 6)).astype(np.float32),
                      rng.integers(-9, 9, (b, 6)).astype(np.int32)]


class ConvPoolNet(nn.Cell):
    """Explicit and dilated padding, 'same' pooling (the average over real entries only),
    comparisons, and a layer norm whose statistics are outputs too (the formula, not
    ONNX's LayerNormalization)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=(1, 2, 0, 1), dilation=2, has_bias=True)
        self.avg = nn.AvgPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.max = nn.MaxPool2d(kernel_size=2, stride=1, pad_mode="same")
        self.norm = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=-1, epsilon=1e-5)
        self.gamma = ms.Parameter(ms.Tensor(np.linspace(0.5, 1.5, 5).astype(np.float32)), name="gamma")
        self.beta = ms.Parameter(ms.Tensor(np.linspace(-0.2, 0.2, 5).astype(np.float32)), name="beta")

    def construct(self, x):
        y = self.max(self.avg(self.conv(x)))  # (B, 4, 5, 5) from 3 x 12 x 12
        flags = (ops.cast(ops.equal(y, ops.stop_gradient(y)), ms.float32)
                 + ops.cast(ops.not_equal(y, 0.0), ms.float32) + ops.cast(ops.less(y, 0.1), ms.float32)
                 + ops.cast(ops.less_equal(y, -0.1), ms.float32)
                 + ops.cast(ops.greater_equal(y, 0.2), ms.float32))
        y, mean, var = self.norm(y + flags * ops.ones_like(y), self.gamma, self.beta)
        return y, mean + var
