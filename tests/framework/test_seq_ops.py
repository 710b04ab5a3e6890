"""Sequence-model ops (issue 22, group A): LayerNorm and the smooth activations in both
modes (values and gradients equal), MindSpore's documented examples, and nn.LayerNorm /
nn.GELU against PyTorch in a subprocess (the TORCH_PATH pattern of test_zoo_torch)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.torch_ref import needs_torch, reference

SCRIPT = Path(__file__).with_name("torch_seq_ops.py")


def run_in(mode, fn):
    ms.set_context(mode=mode)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class Block(nn.Cell):
    """LayerNorm -> activation -> weighted sum: every parameter and the input get gradients."""

    def __init__(self, act, shape=(6,), begin_norm_axis=-1, begin_params_axis=-1):
        super().__init__()
        self.norm = nn.LayerNorm(shape, begin_norm_axis, begin_params_axis,
                                 gamma_init="normal", beta_init="normal")
        self.act = act

    def construct(self, x, w):
        return ops.reduce_sum(self.act(self.norm(x)) * w)


ACTS = {"gelu_tanh": lambda: nn.GELU(), "gelu_erf": lambda: nn.GELU(approximate=False),
        "fast_gelu": nn.FastGelu, "silu": nn.SiLU, "softplus": nn.Softplus}


@pytest.mark.parametrize("name", list(ACTS))
def test_layer_norm_and_activation_equal_in_both_modes(name):
    ms.set_seed(0)
    net = Block(ACTS[name]())
    rng = np.random.default_rng(1)
    x = Tensor((rng.standard_normal((2, 3, 6)) * 3 + 1).astype(np.float32))
    w = Tensor(rng.standard_normal((2, 3, 6)).astype(np.float32))
    params = net.trainable_params()
    assert [p.name for p in params] == ["norm.gamma", "norm.beta"]

    def step():
        loss, grads = ms.value_and_grad(net, 0, params)(x, w)
        return [loss.asnumpy(), grads[0].asnumpy()] + [g.asnumpy() for g in grads[1]]

    eager, graph = run_in(ms.PYNATIVE_MODE, step), run_in(ms.GRAPH_MODE, step)
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-5)


def test_layer_norm_over_two_axes_both_modes_with_statistics_used():
    prim = ops.LayerNorm(1, 1, 1e-5)
    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((3, 2, 4)).astype(np.float32))
    g = Tensor(rng.uniform(0.5, 2, (2, 4)).astype(np.float32))
    b = Tensor(rng.standard_normal((2, 4)).astype(np.float32))

    def f(x, g, b):
        y, mean, var = prim(x, g, b)
        return ops.reduce_sum(y * y) + ops.reduce_sum(mean * 3.0) + ops.reduce_sum(var * var)

    def run():
        loss, grads = ms.value_and_grad(f, (0, 1, 2))(x, g, b)
        return [loss.asnumpy()] + [t.asnumpy() for t in grads]

    eager, graph = run_in(ms.PYNATIVE_MODE, run), run_in(ms.GRAPH_MODE, run)
    for e, gr in zip(eager, graph, strict=True):
        np.testing.assert_allclose(gr, e, rtol=2e-5, atol=2e-5)


def test_layer_norm_documented_example():
    # MindSpore's ops.LayerNorm example: rows [1, 2, 3], gamma = beta = 1
    x = Tensor(np.array([[1, 2, 3], [1, 2, 3]], np.float32))
    one = Tensor(np.ones(3, np.float32))
    y, mean, var = ops.LayerNorm()(x, one, one)
    np.testing.assert_allclose(y.asnumpy(), [[-0.2247448, 1.0, 2.2247448]] * 2, rtol=1e-6)
    assert mean.shape == var.shape == (2, 1)
    np.testing.assert_allclose(mean.asnumpy(), [[2.0], [2.0]])
    np.testing.assert_allclose(var.asnumpy(), [[2 / 3], [2 / 3]], rtol=1e-6)


def test_activation_documented_examples():
    x = Tensor(np.array([[-1.0, 4.0, -8.0], [2.0, -5.0, 9.0]], np.float32))
    np.testing.assert_allclose(nn.GELU()(x).asnumpy(), [[-1.5880802e-01, 3.9999299e+00, -3.1077917e-21],
                                                       [1.9545976e+00, -2.2918017e-07, 9.0]], rtol=1e-5)
    np.testing.assert_allclose(nn.GELU(False)(x).asnumpy(), [[-1.5865526e-01, 3.9998732e+00, 0.0],
                                                            [1.9544997e+00, -1.4901161e-06, 9.0]],
                               rtol=1e-5, atol=1e-7)
    v = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(ops.gelu(v).asnumpy(), [0.8413447, 1.9544997, 2.9959505], rtol=1e-6)
    np.testing.assert_allclose(ops.gelu(v, "tanh").asnumpy(), [0.841192, 1.9545976, 2.9963627], rtol=1e-6)
    s = Tensor(np.array([-1, 2, -3, 2, -1], np.float32))
    np.testing.assert_allclose(ops.silu(s).asnumpy(), [-0.269, 1.762, -0.1423, 1.762, -0.269], rtol=2e-3)
    p = Tensor(np.array([0.1, 0.2, 30, 25], np.float32))
    np.testing.assert_allclose(ops.softplus(p).asnumpy(), [0.74439657, 0.7981388, 30.0, 25.0], rtol=1e-6)
    with pytest.raises(ValueError, match="approximate"):
        ops.gelu(v, "fast")


def test_dense_accepts_new_activation_names():
    ms.set_seed(0)
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    for name, fn in (("gelu", nn.GELU()), ("silu", nn.SiLU())):
        dense = nn.Dense(3, 4, activation=name)
        plain = nn.Dense(3, 4, weight_init=Tensor(dense.weight.asnumpy()),
                         bias_init=Tensor(dense.bias.asnumpy()))
        np.testing.assert_allclose(dense(x).asnumpy(), fn(plain(x)).asnumpy(), rtol=1e-6)


def test_layer_norm_shape_errors_are_clear():
    with pytest.raises(ValueError, match=r"gamma has shape \(4,\), expected \(3,\)"):
        ops.LayerNorm(-1, -1)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(4, np.float32)),
                              Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="expected"):
        nn.LayerNorm((4,))(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="normalized_shape"):
        nn.LayerNorm(4)


@needs_torch
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_layer_norm_and_gelu_match_pytorch(tmp_path, mode):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((4, 5, 8)) * 2 + 0.5).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    beta = rng.standard_normal(8).astype(np.float32)
    w = rng.standard_normal((4, 5, 8)).astype(np.float32)
    ref = reference(SCRIPT, tmp_path, kind="layer_norm_gelu", x=x, gamma=gamma, beta=beta, w=w)
    for approximate, tag in ((True, "tanh"), (False, "none")):
        net = Block(nn.GELU(approximate), shape=(8,))
        net.norm.layer_norm = ops.LayerNorm(-1, -1, 1e-5)  # torch's default eps
        net.norm.gamma.set_data(Tensor(gamma))
        net.norm.beta.set_data(Tensor(beta))
        params = net.trainable_params()

        def run(net=net, params=params):
            out = net.act(net.norm(Tensor(x)))
            loss, grads = ms.value_and_grad(net, 0, params)(Tensor(x), Tensor(w))
            return out.asnumpy(), grads[0].asnumpy(), grads[1][0].asnumpy(), grads[1][1].asnumpy()

        out, dx, dgamma, dbeta = run_in(mode, run)
        for got, key in ((out, "out"), (dx, "dx"), (dgamma, "dgamma"), (dbeta, "dbeta")):
            want = ref[f"{key}_{tag}"]
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max(),
                                       err_msg=f"{key} ({tag})")


@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_cumsum_and_inner_axis_softmax_equal_in_both_modes(exclusive, reverse):
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((2, 5, 3)).astype(np.float32))
    w = Tensor(rng.standard_normal((2, 5, 3)).astype(np.float32))
    scan = ops.CumSum(exclusive, reverse)

    def f(x, w):
        c = scan(x, 1)
        return ops.reduce_sum(c * w) + ops.reduce_sum(ops.softmax(c, 1) * w) + \
            ops.reduce_sum(ops.log_softmax(x, 0) * w)

    def run():
        loss, grad = ms.value_and_grad(f, 0)(x, w)
        return loss.asnumpy(), grad.asnumpy(), scan(x, 1).asnumpy()

    (el, eg, ec), (gl, gg, gc) = run_in(ms.PYNATIVE_MODE, run), run_in(ms.GRAPH_MODE, run)
    xn = x.asnumpy().astype(np.float64)
    data = xn[:, ::-1] if reverse else xn
    want = np.cumsum(data, 1) - (data if exclusive else 0)
    np.testing.assert_allclose(ec, want[:, ::-1] if reverse else want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gc, ec, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gl, el, rtol=1e-5)
    np.testing.assert_allclose(gg, eg, rtol=2e-5, atol=2e-5)


def test_cumsum_functional_and_errors():
    x = Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    np.testing.assert_array_equal(ops.cumsum(x, 1).asnumpy(), np.cumsum(x.asnumpy(), 1))
    assert ops.cumsum(x, 0, ms.float32).dtype == ms.float32
    with pytest.raises(TypeError, match="axis"):
        ops.CumSum()(x, 1.5)
    with pytest.raises(ValueError, match="out of range"):
        ops.cumsum(x, 2)
