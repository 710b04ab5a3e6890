"""The cases of the primitive harness (tests/framework/test_primitives.py): per
registered primitive, its inputs, an independent NumPy reference and its checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import framework as ms
from framework import ops
from framework.ops.lstm_cell import LSTMPointwise, LSTMPointwiseGrad
from framework.ops.pool import AvgPoolBackprop, MaxPoolGradTranspose
from framework.ops.random_draw import RandomDraw
from framework.ops.shape_ops import Load
from framework.ops.split_rows import SplitRows
from framework.primitive import Primitive

from . import library_primitives as lib
from . import refs


@dataclass
class Case:
    prim: Primitive
    inputs: Callable[[np.random.Generator], list[np.ndarray]]
    ref: Callable[..., Any]
    diff: tuple[int, ...] | None = None  # inputs to differentiate; default: all float ones
    seeded: bool = False  # reseed before each run (random kernels)
    check_ref: Callable[..., None] | None = field(default=None)

    @property
    def id(self) -> str:
        return repr(self.prim)


def rand(*shape):
    return lambda rng: [rng.standard_normal(s) for s in shape]


def positive(*shape):
    return lambda rng: [rng.uniform(0.5, 2.0, s) for s in shape]


def separated(shape):
    """Distinct values at least 1e-3 apart (no ties for max/argmax, safe for FD)."""
    def make(rng):
        n = int(np.prod(shape))
        return [(rng.permutation(n) * 1e-2 + rng.uniform(0, 1e-3, n)).reshape(shape) - n * 5e-3]
    return make


S = (2, 3)
CASES: list[Case] = [
    Case(ops.Add(), rand((2, 3), (3,)), np.add),
    Case(ops.Sub(), rand((2, 1), (1, 3)), np.subtract),
    Case(ops.Mul(), rand((2, 3), (2, 3)), np.multiply),
    Case(ops.Div(), lambda r: [r.standard_normal(S), r.uniform(0.5, 2, (3,))], np.divide),
    Case(ops.Pow(), lambda r: [r.uniform(0.5, 2, S), r.uniform(-1, 2, S)], np.power),
    Case(ops.Maximum(), lambda r: [r.standard_normal(S), r.standard_normal(S) + 0.05],
         np.maximum),
    Case(ops.Minimum(), lambda r: [r.standard_normal(S), r.standard_normal(S) + 0.05],
         np.minimum),
    Case(ops.Equal(), lambda r: [np.array([1.0, 2, 3]), np.array([1.0, 0, 3])], np.equal),
    Case(ops.NotEqual(), lambda r: [np.array([1.0, 2, 3]), np.array([1.0, 0, 3])], np.not_equal),
    Case(ops.Less(), rand(S, S), np.less),
    Case(ops.LessEqual(), lambda r: [np.array([1.0, 2, 3]), np.array([1.0, 0, 4])],
         np.less_equal),
    Case(ops.Greater(), rand(S, S), np.greater),
    Case(ops.GreaterEqual(), lambda r: [np.array([1.0, 2, 3]), np.array([1.0, 0, 4])],
         np.greater_equal),
    Case(ops.Select(), lambda r: [r.standard_normal(S) > 0, r.standard_normal(S),
                                  r.standard_normal((3,))], np.where, diff=(1, 2)),
    # float32 output: finite differences at float64 precision do not apply (diff=())
    Case(lib.Cast(ms.float32), rand(S), lambda x: x.astype(np.float32), diff=()),
    Case(lib.Cast(ms.float64), rand(S), lambda x: x),
    # a cast to int passes trunc(dout) back as MindSpore's does, not the zero derivative:
    # checked against MindSpore in test_integer_grad.py
    Case(lib.Cast(ms.int32), lambda r: [np.array([1.7, -2.2, 3.4])],
         lambda x: x.astype(np.int32), diff=()),
    Case(ops.Neg(), rand(S), np.negative),
    Case(ops.Abs(), lambda r: [r.choice([-1, 1], S) * r.uniform(0.1, 2, S)], np.abs),
    Case(ops.Exp(), rand(S), np.exp),
    Case(ops.Log(), positive(S), np.log),
    Case(ops.Sqrt(), positive(S), np.sqrt),
    Case(ops.ReLU(), lambda r: [r.choice([-1, 1], S) * r.uniform(0.1, 2, S)],
         lambda x: x * (x > 0)),
    Case(ops.Sigmoid(), lambda r: [np.array([-800.0, -3, 0, 0.5, 4, 800])[None]],
         lambda x: 0.5 * (1 + np.tanh(x / 2))),
    Case(ops.Sigmoid(), rand(S), lambda x: 1 / (1 + np.exp(-x))),
    Case(ops.Tanh(), rand(S), np.tanh),
    Case(ops.Cos(), rand(S), np.cos),
    Case(ops.Sin(), rand(S), np.sin),
    Case(lib.ReduceSum(False, (1,)), rand((2, 3, 4)), lambda x: x.sum(axis=1)),
    Case(lib.ReduceSum(True, (0, 2)), rand((2, 3, 4)), lambda x: x.sum(axis=(0, 2),
                                                                      keepdims=True)),
    Case(lib.ReduceMean(False, (0, 1, 2)), rand((2, 3, 4)), lambda x: x.mean()),
    Case(lib.ReduceMax(False, (1,)), separated((2, 5)), lambda x: x.max(axis=1)),
    Case(lib.ReduceMax(True, (0, 1)), lambda r: [np.array([[1.0, 3.0], [3.0, 2.0]])],
         lambda x: np.array([[3.0]]), diff=()),
    Case(ops.Argmax(1), separated((3, 4)), lambda x: x.argmax(axis=1).astype(np.int32)),
    Case(lib.Reshape((3, 2, 2)), rand((2, 6)), lambda x: x.reshape(3, 2, 2)),
    Case(lib.Transpose((2, 0, 1)), rand((2, 3, 4)), lambda x: x.transpose(2, 0, 1)),
    Case(ops.BroadcastTo((2, 3, 4)), rand((3, 1)), lambda x: x + np.zeros((2, 3, 4))),
    Case(lib.ExpandDims(-1), rand(S), lambda x: x[..., None]),
    Case(ops.Squeeze((1,)), rand((2, 1, 3)), lambda x: x[:, 0]),
    Case(ops.Squeeze(()), rand((1, 2, 1)), lambda x: x.reshape(2)),
    Case(ops.Concat(1), rand((2, 1), (2, 3), (2, 2)), lambda *xs: np.concatenate(xs, 1)),
    # four inputs and more: a copy per input (concat_copies.py), middle and first axis
    Case(ops.Concat(1), rand((2, 1, 3), (2, 3, 3), (2, 2, 3), (2, 1, 3), (2, 4, 3)),
         lambda *xs: np.concatenate(xs, 1)),
    Case(ops.Concat(0), rand(*[(1, 2, 3)] * 6, (2, 2, 3)), lambda *xs: np.concatenate(xs, 0)),
    Case(lib.Slice((1, 0), (2, 2)), rand((4, 3)), lambda x: x[1:3, 0:2]),
    Case(ops.Pad(((1, 0), (2, 1))), rand(S), lambda x: np.pad(x, ((1, 0), (2, 1)))),
    Case(ops.StopGradient(), rand(S), lambda x: x),
    Case(Load(), rand(S), lambda x: x),  # Parameter.value(): a copy gradients pass through
    Case(ops.ZerosLike(), rand(S), np.zeros_like),
    Case(ops.OnesLike(), rand(S), np.ones_like),
    Case(ops.MatMul(), rand((2, 3), (3, 4)), lambda a, b: np.einsum("ik,kj->ij", a, b)),
    Case(ops.MatMul(True, False), rand((3, 2), (3, 4)), lambda a, b: a.T @ b),
    Case(ops.MatMul(False, True), rand((2, 3), (4, 3)), lambda a, b: a @ b.T),
    Case(ops.MatMul(True, True), rand((3, 2), (4, 3)), lambda a, b: a.T @ b.T),
    Case(lib.BiasAdd(), rand((2, 3, 2, 2), (3,)), lambda x, b: x + b[None, :, None, None]),
    Case(ops.Softmax(-1), rand((2, 5)),
         lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    Case(ops.Softmax(0), rand((3, 2)),
         lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    Case(ops.LogSoftmax(-1), rand((2, 5)),
         lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
    Case(lib.OneHot(4, 1.0, 0.0, -1), lambda r: [np.array([0, 3, 1, 5])],
         lambda i: np.array([np.eye(4)[k] if k < 4 else np.zeros(4) for k in i],
                            dtype=np.float32)),
    Case(lib.OneHot(3, 2.0, -1.0, 0), lambda r: [np.array([2, 0])],
         lambda i: np.where(np.eye(3)[i].T > 0, 2.0, -1.0).astype(np.float32)),
    Case(lib.Dropout(0.7), rand((4, 50)), None, seeded=True),
    Case(ops.BatchNorm(True, 1e-5), lambda r: [r.standard_normal((4, 3, 2, 2)),
                                               r.uniform(0.5, 2, 3), r.standard_normal(3),
                                               r.standard_normal(3), r.uniform(0.5, 2, 3)],
         lambda *a: refs.batch_norm(*a, 1e-5, True), diff=(0, 1, 2)),
    Case(ops.BatchNorm(False, 1e-3), lambda r: [r.standard_normal((4, 3)),
                                                r.uniform(0.5, 2, 3), r.standard_normal(3),
                                                r.standard_normal(3), r.uniform(0.5, 2, 3)],
         lambda *a: refs.batch_norm(*a, 1e-3, False)),
]

def _off_integer_ratio(r):
    """x, y with x / y at least 0.2 away from an integer (floor is smooth there)."""
    y = r.choice([-1, 1], S) * r.uniform(0.5, 2, S)
    return [y * (r.integers(-3, 3, S) + r.uniform(0.2, 0.8, S)), y]


INT_PAIR = lambda r: [np.array([[7, -7, 5], [0, 9, -1]]), np.array([2, -3, 4])]  # noqa: E731
CASES += [
    # one process is a world of one rank: the all-reduced sum is the tensor (tests/dist: 2 ranks)
    Case(ops.AllReduce(), rand((2, 3)), lambda x: x),
    Case(ops.FloorDiv(), _off_integer_ratio, np.floor_divide),
    Case(ops.FloorDiv(), INT_PAIR, np.floor_divide),
    Case(ops.FloorMod(), _off_integer_ratio, np.mod),
    Case(ops.FloorMod(), INT_PAIR, np.mod),
    Case(lib.ReduceAll(False, (1,)), lambda r: [np.array([[1.0, 2.0, 0.0], [3.0, -1.0, 0.5]])],
         lambda x: np.all(x, axis=1)),
    Case(lib.ReduceAll(True, (0, 1)), lambda r: [np.array([[True, True], [True, True]])],
         lambda x: np.array([[True]])),
    Case(lib.ReduceAny(False, (0,)), lambda r: [np.array([[0, 2, 0], [0, 0, 0]])],
         lambda x: np.any(x, axis=0)),
    Case(lib.Gather(1), lambda r: [r.standard_normal((3, 4)), np.array([[0, 3], [-1, 0]])],
         lambda x, i: np.take(x, i, axis=1)),
    Case(lib.Gather(0), lambda r: [r.standard_normal((4, 2)), np.array(2)],
         lambda x, i: x[2]),
    Case(lib.IndexAdd(1), lambda r: [r.standard_normal((2, 4)), np.array([1, 3, 1]),
                                     r.standard_normal((2, 3))],
         lambda x, i, y: x + np.stack([np.bincount(i, w, 4) for w in y])),
    # axis 0 (an embedding's gradient): 2-D indices, repeats, a negative one
    Case(lib.IndexAdd(0), lambda r: [r.standard_normal((5, 2, 3)),
                                     np.array([[1, -1], [1, 4], [0, 1]]),
                                     r.standard_normal((3, 2, 2, 3))],
         lambda x, i, y: x + np.stack([(y.reshape(6, 2, 3) * (i.reshape(6, 1, 1) % 5 == row)
                                        ).sum(0) for row in range(5)])),
    Case(lib.ScatterUpdate(), lambda r: [r.standard_normal((5, 2)), np.array([3, -5]),
                                         r.standard_normal((2, 2))],
         lambda x, i, u: np.concatenate([u[1:], x[1:3], u[:1], x[4:]])),
]

# -- sequence models (issue 22), group A: layer norm, smooth activations -----------------
def _erf_ref(x):
    return np.vectorize(math.erf)(x)


def _layer_norm_ref(x, gamma, beta, norm_axis, eps):
    axes = tuple(range(norm_axis % x.ndim, x.ndim))
    n = int(np.prod([x.shape[a] for a in axes]))
    mean = x.sum(axis=axes, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / n
    return (x - mean) / np.sqrt(var + eps) * gamma + beta, mean, var


def _ln_inputs(x_shape, params_shape):
    return lambda r: [r.standard_normal(x_shape), r.uniform(0.5, 2, params_shape),
                      r.standard_normal(params_shape)]


def _ln_grad_inputs(x_shape, norm_axis, params_shape):
    """(x, dy, variance, mean, gamma): the statistics of x, as the forward gives them."""
    def make(r):
        x = r.standard_normal(x_shape)
        axes = tuple(range(norm_axis, len(x_shape)))
        return [x, r.standard_normal(x_shape), x.var(axis=axes, keepdims=True),
                x.mean(axis=axes, keepdims=True), r.uniform(0.5, 2, params_shape)]
    return make


def _layer_norm_grad_ref(x, dy, var, mean, gamma, norm_axis, params_axis, eps):
    """dx through the explicit Jacobian of each row, ``J = ((I - 1/n) - c c^T / (n s^2)) / s``
    with ``c = x - mean``, ``s = sqrt(var + eps)``; the parameters' sums written out."""
    rows = int(np.prod(x.shape[:norm_axis]))
    c = (x - mean).reshape(rows, -1)
    n = c.shape[1]
    s = np.sqrt(var + eps).reshape(rows, 1, 1)
    jac = (np.eye(n) - 1.0 / n - c[:, :, None] * c[:, None, :] / (n * s ** 2)) / s
    g = (dy * gamma).reshape(rows, n)
    dx = np.einsum("ri,rij->rj", g, jac).reshape(x.shape)
    xhat = (x - mean) / np.sqrt(var + eps)
    lead = tuple(range(params_axis))
    return dx, (dy * xhat).sum(axis=lead), dy.sum(axis=lead)


def _lstm_ref(gates, c):
    """The LSTM step's gate arithmetic, written out (sigmoid as 1 / (1 + e^-x))."""
    sig = lambda x: 1.0 / (1.0 + np.exp(-x))  # noqa: E731
    h = c.shape[1]
    i, f = sig(gates[:, :h]), sig(gates[:, h:2 * h])
    g, o = np.tanh(gates[:, 2 * h:3 * h]), sig(gates[:, 3 * h:])
    c_new = f * c + i * g
    return o * np.tanh(c_new), c_new, i, f, g, o, np.tanh(c_new)


def _lstm_grad_inputs(rng):
    """Activations of random gates and cell state (as the forward saves them), cotangents."""
    gates, c = rng.standard_normal((2, 12)), rng.standard_normal((2, 3))
    _, _, i, f, g, o, tc = _lstm_ref(gates, c)
    return [c, i, f, g, o, tc, rng.standard_normal((2, 3)), rng.standard_normal((2, 3))]


def _lstm_grad_ref(c, i, f, g, o, tc, dh, dc):
    """Complex-step derivatives (exact to rounding) of ``<dh, h> + <dc, c_new>`` over the
    gates (recovered from the activations: logit, arctanh) and ``c``."""
    logit = lambda p: np.log(p / (1.0 - p))  # noqa: E731
    gates = np.concatenate([logit(i), logit(f), np.arctanh(g), logit(o)], axis=1)

    def loss(gt, cc):
        h, c_new = _lstm_ref(gt, cc)[:2]
        return np.sum(dh * h) + np.sum(dc * c_new)
    step, grads = 1e-30, []
    for which, x in enumerate((gates, c)):
        d = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            z = x.astype(complex)
            z[k] += 1j * step
            d[k] = np.imag(loss(z, c) if which == 0 else loss(gates, z)) / step
        grads.append(d)
    return tuple(grads)


_WIDE = lambda r: [np.concatenate([np.array([-40.0, -7.0, -3.1, 0.0, 2.2, 7.5, 40.0]),  # noqa: E731
                                   r.standard_normal(9)]).reshape(2, 8)]
CASES += [
    Case(LSTMPointwise(), rand((3, 8), (3, 2)), _lstm_ref),
    Case(SplitRows(3), rand((6, 2, 3)), lambda x: tuple(np.split(x, 3, 0))),
    Case(SplitRows(5), rand((5, 4)), lambda x: tuple(np.split(x, 5, 0))),
    Case(LSTMPointwiseGrad(), _lstm_grad_inputs, _lstm_grad_ref),
    Case(ops.LayerNorm(), _ln_inputs((3, 5), (5,)),
         lambda x, g, b: _layer_norm_ref(x, g, b, 1, 1e-7)),
    Case(ops.LayerNorm(-1, -1, 1e-5), _ln_inputs((2, 3, 4), (4,)),
         lambda x, g, b: _layer_norm_ref(x, g, b, -1, 1e-5)),
    # statistics over the last two axes, parameters over the last one (broadcast over axis 1)
    Case(ops.LayerNorm(1, 2, 1e-6), _ln_inputs((2, 3, 4), (4,)),
         lambda x, g, b: _layer_norm_ref(x, g, b, 1, 1e-6)),
    # parameters span an axis that is not normalized: their gradients keep it
    Case(ops.LayerNorm(2, 1, 1e-6), _ln_inputs((2, 3, 4), (3, 4)),
         lambda x, g, b: _layer_norm_ref(x, g, b, 2, 1e-6)),
    Case(ops.LayerNormGrad(), _ln_grad_inputs((3, 5), 1, (5,)),
         lambda *a: _layer_norm_grad_ref(*a, 1, 1, 1e-7)),
    Case(ops.LayerNormGrad(-1, -1, 1e-5), _ln_grad_inputs((2, 3, 4), 2, (4,)),
         lambda *a: _layer_norm_grad_ref(*a, 2, 2, 1e-5)),
    Case(ops.LayerNormGrad(1, 2, 1e-6), _ln_grad_inputs((2, 3, 4), 1, (4,)),
         lambda *a: _layer_norm_grad_ref(*a, 1, 2, 1e-6)),
    Case(ops.LayerNormGrad(2, 1, 1e-6), _ln_grad_inputs((2, 3, 4), 2, (3, 4)),
         lambda *a: _layer_norm_grad_ref(*a, 2, 1, 1e-6)),
    Case(ops.Erf(), _WIDE, _erf_ref),
    Case(lib.GeLU(), _WIDE,
         lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    Case(lib.GeLU("none"), _WIDE, lambda x: 0.5 * x * (1 + _erf_ref(x / math.sqrt(2)))),
    Case(ops.FastGeLU(), _WIDE, lambda x: x / (1 + np.exp(-1.702 * x))),
    Case(ops.SiLU(), _WIDE, lambda x: x / (1 + np.exp(-x))),
    Case(ops.Softplus(), _WIDE, lambda x: np.log(1 + np.exp(np.minimum(x, 30.0))) +
         np.where(x > 30, x - 30.0, 0.0)),
    # softmax / log-softmax on an inner axis of a 3-d input
    Case(ops.Softmax(1), rand((2, 4, 3)),
         lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    Case(ops.LogSoftmax(0), rand((3, 2, 2)),
         lambda x: x - np.log(np.exp(x).sum(0, keepdims=True))),
    Case(lib.CumSum(axis=1), rand((2, 4, 3)),
         lambda x: np.stack([x[:, :k + 1].sum(1) for k in range(4)], 1)),
    Case(lib.CumSum(True, False, -1), rand((2, 4)),
         lambda x: np.stack([x[:, :k].sum(1) for k in range(4)], 1)),
    Case(lib.CumSum(False, True, 0), rand((4, 2)),
         lambda x: np.stack([x[k:].sum(0) for k in range(4)], 0)),
    Case(lib.CumSum(True, True, 0), lambda r: [np.array([[1, -2], [3, 4], [5, 6]], np.int32)],
         lambda x: np.stack([x[k + 1:].sum(0) for k in range(3)], 0).astype(np.int32)),
]


CONV_CONFIGS = [
    dict(stride=1, dilation=1, pad_mode="valid", pad=0),
    dict(stride=2, dilation=1, pad_mode="same", pad=0),
    dict(stride=(1, 2), dilation=2, pad_mode="pad", pad=(1, 0, 2, 1)),
]


def _conv_geometry(cfg, x_shape, w_shape):
    from framework.ops.conv import pair, quad

    stride, dilation = pair(cfg["stride"], "stride"), pair(cfg["dilation"], "dilation")
    pads = refs.conv_pads(x_shape[2:], w_shape[2:], stride, dilation, cfg["pad_mode"],
                          quad(cfg["pad"]))
    return stride, dilation, pads


for cfg in CONV_CONFIGS:
    xs, ws = (2, 3, 7, 6), (4, 3, 3, 2)
    st, dl, pd = _conv_geometry(cfg, xs, ws)
    ys = refs.conv2d(np.zeros(xs), np.zeros(ws), st, dl, pd).shape
    CASES += [
        Case(lib.Conv2D(**cfg), rand(xs, ws),
             lambda x, w, st=st, dl=dl, pd=pd: refs.conv2d(x, w, st, dl, pd)),
        Case(ops.Conv2DBackpropInput(input_shape=xs, **cfg), rand(ys, ws),
             lambda dy, w, st=st, dl=dl, pd=pd, xs=xs: refs.conv2d_input_grad(dy, w, xs, st, dl, pd)),
        Case(ops.Conv2DBackpropFilter(filter_shape=ws, **cfg), rand(xs, ys),
             lambda x, dy, st=st, dl=dl, pd=pd, ws=ws: refs.conv2d_filter_grad(x, dy, ws, st, dl,
                                                                               pd)),
    ]

# grouped (x: 4 channels in 2 blocks, weight 6 out) and depthwise (group = channels = 3,
# 2 outputs per channel) convolutions
GROUP_CONFIGS = [
    (dict(stride=1, dilation=1, pad_mode="same", pad=0, group=2), (2, 4, 5, 6), (6, 2, 3, 3)),
    (dict(stride=2, dilation=1, pad_mode="pad", pad=(1, 0, 1, 2), group=3), (2, 3, 6, 5),
     (6, 1, 3, 3)),
    (dict(stride=(1, 2), dilation=2, pad_mode="valid", pad=0, group=3), (1, 3, 7, 7),
     (3, 1, 2, 3)),
]
for cfg, xs, ws in GROUP_CONFIGS:
    g = cfg["group"]
    st, dl, pd = _conv_geometry(cfg, xs, ws)
    ys = refs.group_conv2d(np.zeros(xs), np.zeros(ws), st, dl, pd, g).shape
    CASES += [
        Case(ops.GroupConv2D(**cfg), rand(xs, ws),
             lambda x, w, st=st, dl=dl, pd=pd, g=g: refs.group_conv2d(x, w, st, dl, pd, g)),
        Case(ops.GroupConv2DBackpropInput(input_shape=xs, **cfg), rand(ys, ws),
             lambda dy, w, st=st, dl=dl, pd=pd, xs=xs, g=g:
             refs.group_conv2d_input_grad(dy, w, xs, st, dl, pd, g)),
        Case(ops.GroupConv2DBackpropFilter(filter_shape=ws, **cfg), rand(xs, ys),
             lambda x, dy, st=st, dl=dl, pd=pd, ws=ws, g=g:
             refs.group_conv2d_filter_grad(x, dy, ws, st, dl, pd, g)),
    ]

POOL_CONFIGS = [((2, 2), (2, 2), "valid", (2, 3, 4, 6)), ((3, 2), (2, 1), "valid", (1, 2, 7, 5)),
                ((3, 3), (2, 2), "same", (2, 2, 5, 6))]
for k, s, mode, shape in POOL_CONFIGS:
    out_shape = refs.avg_pool(np.zeros(shape), k, s, mode).shape
    CASES += [
        Case(ops.MaxPool(k, s, mode), separated(shape),
             lambda x, k=k, s=s, m=mode: refs.max_pool(x, k, s, m)),
        Case(ops.MaxPoolGrad(k, s, mode),
             lambda r, shape=shape, k=k, s=s, m=mode, o=out_shape: (
                 lambda x: [x, refs.max_pool(x, k, s, m), r.standard_normal(o)])(
                 separated(shape)(r)[0]),
             lambda x, out, dy, k=k, s=s, m=mode: refs.max_pool_grad(x, dy, k, s, m),
             diff=(2,)),  # linear in dy; x and out only pick the positions
        Case(MaxPoolGradTranspose(k, s, mode),
             lambda r, shape=shape, k=k, s=s, m=mode: (
                 lambda x: [x, refs.max_pool(x, k, s, m), r.standard_normal(shape)])(
                 separated(shape)(r)[0]),
             lambda x, out, g, k=k, s=s, m=mode: refs.max_pool_grad_transpose(x, g, k, s, m),
             diff=(2,)),
        Case(ops.AvgPool(k, s, mode), rand(shape),
             lambda x, k=k, s=s, m=mode: refs.avg_pool(x, k, s, m)),
        Case(AvgPoolBackprop(k, s, mode, input_shape=shape), rand(out_shape),
             lambda dy, k=k, s=s, m=mode, shape=shape: refs.avg_pool_grad(shape, dy, k, s, m)),
    ]


# -- seq-ops-b: sorting and sampling (TopK, Sort, Multinomial) --------------------------------
def _desc_sorted(x, axis):
    """Values sorted descending and their indices, ties by index (NumPy's stable sort)."""
    order = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    order = x.shape[axis] - 1 - order
    return np.take_along_axis(x, order, axis), order.astype(np.int32)


def _multinomial_ref(p, n, replacement, seed=3):
    shape = p.shape[:-1] + ((n,) if replacement else p.shape[-1:])
    u = np.random.default_rng(seed).random(shape)
    if replacement:
        cdf = np.cumsum(p, -1)
        rows = [np.searchsorted(c, uu * c[-1], side="right") for c, uu in
                zip(cdf.reshape(-1, p.shape[-1]), u.reshape(-1, n))]
        return np.array(rows, np.int32).reshape(p.shape[:-1] + (n,))
    keys = u ** (1.0 / p)  # the exponential race: the n largest u^(1/p)
    return np.argsort(-keys, axis=-1, kind="stable")[..., :n].astype(np.int32)


CASES += [
    Case(lib.TopK(True, 3), separated((3, 5)),
         lambda x: tuple(a[..., :3] for a in _desc_sorted(x, -1))),
    Case(lib.TopK(False, 2, 0, False), separated((4, 3)),
         lambda x: (np.sort(x, 0)[:2], np.argsort(x, 0)[:2].astype(np.int32))),
    Case(ops.Sort(), separated((2, 5)),
         lambda x: (np.sort(x, -1), np.argsort(x, -1).astype(np.int32))),
    Case(ops.Sort(0, True), separated((4, 3)), lambda x: _desc_sorted(x, 0)),
    Case(ops.Multinomial(6), lambda r: [r.uniform(0.0, 1.0, (3, 5))],
         lambda p: _multinomial_ref(p, 6, True), seeded=True),
    Case(ops.Multinomial(3, False), lambda r: [r.uniform(0.1, 1.0, (2, 5))],
         lambda p: _multinomial_ref(p, 3, False), seeded=True),
]

# mint's random creation (RandomDraw, host-drawn): the seeded generator's numbers (set_seed(3))
CASES += [
    Case(RandomDraw("uniform", (3, 4), np.float32), lambda r: [],
         lambda: np.random.default_rng(3).random((3, 4)).astype(np.float32), seeded=True),
    Case(RandomDraw("normal", (5,), np.float32, 1.0, 2.0), lambda r: [],
         lambda: np.random.default_rng(3).normal(1.0, 2.0, 5).astype(np.float32), seeded=True),
    Case(RandomDraw("integers", (2, 3), np.int32, -3, 7), lambda r: [],
         lambda: np.random.default_rng(3).integers(-3, 7, (2, 3)).astype(np.int32), seeded=True),
    Case(RandomDraw("permutation", (6,), np.int32), lambda r: [],
         lambda: np.random.default_rng(3).permutation(6).astype(np.int32), seeded=True),
]

# -- batched matmul (issue 22): broadcast batch axes, transposes of the last two axes --------
def _bmm_ref(ta, tb):
    return lambda a, b: np.matmul(np.swapaxes(a, -1, -2) if ta else a,
                                  np.swapaxes(b, -1, -2) if tb else b)


CASES += [
    Case(ops.BatchMatMul(), rand((2, 3, 4), (2, 4, 5)), _bmm_ref(False, False)),
    Case(ops.BatchMatMul(False, True), rand((2, 1, 3, 4), (3, 5, 4)), _bmm_ref(False, True)),
    Case(ops.BatchMatMul(True, False), rand((2, 4, 3), (4, 5)), _bmm_ref(True, False)),
    Case(ops.BatchMatMul(True, True), rand((3, 4), (2, 2, 5, 3)), _bmm_ref(True, True)),
]


def _check_dropout(x, outputs):
    out, mask = outputs
    keep = 0.7
    assert set(np.unique(mask)) <= {0.0, 1.0}
    np.testing.assert_allclose(out, x * mask / keep, rtol=1e-12)
    assert abs(mask.mean() - keep) < 0.1

# issue 25: the math primitives (their cases in a module of their own)
from .primitive_cases_math import MATH_CASES  # noqa: E402

CASES += MATH_CASES

from .primitive_cases_numerics import NUMERICS_CASES  # noqa: E402

CASES += NUMERICS_CASES

from .primitive_cases_arrays import ARRAY_CASES  # noqa: E402
from .primitive_cases_boxes import BOX_CASES  # noqa: E402
from .primitive_cases_color import COLOR_CASES  # noqa: E402
from .primitive_cases_ctc import CTC_CASES  # noqa: E402

CASES += ARRAY_CASES + CTC_CASES + COLOR_CASES + BOX_CASES
