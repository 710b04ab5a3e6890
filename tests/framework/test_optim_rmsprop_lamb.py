"""RMSProp and Lamb against NumPy written from MindSpore's documented formulas (three
steps, weight decay and its beta/gamma filter), and graph == PyNative."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn

RNG = np.random.default_rng(7)
STEPS = 3


def _params():
    return [Parameter(RNG.standard_normal((3, 2)).astype(np.float32), name="fc.weight"),
            Parameter(RNG.standard_normal((2,)).astype(np.float32), name="fc.bias"),
            Parameter(RNG.standard_normal((4,)).astype(np.float32) + 1, name="bn.gamma")]


def _run(opt, params, grads):
    for step_grads in grads:
        opt(tuple(Tensor(g) for g in step_grads))
    return [p.asnumpy().astype(np.float64) for p in params]


def _decays(name, wd):
    return wd and "beta" not in name and "gamma" not in name


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("momentum, wd", [(0.0, 0.0), (0.9, 0.1)])
def test_rmsprop_three_steps(centered, momentum, wd):
    params = _params()
    grads = [[RNG.standard_normal(p.shape).astype(np.float32) for p in params] for _ in range(STEPS)]
    ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr, rho, eps = 0.01, 0.9, 1e-10
    opt = nn.RMSProp(params, learning_rate=lr, decay=rho, momentum=momentum, epsilon=eps,
                     centered=centered, weight_decay=wd)
    got = _run(opt, params, grads)
    s = [np.ones_like(p) for p in ref]  # mean square starts at ones
    m = [np.zeros_like(p) for p in ref]
    g_mean = [np.zeros_like(p) for p in ref]
    for step in grads:
        for i, g in enumerate(step):
            g = g.astype(np.float64) + (wd * ref[i] if _decays(names[i], wd) else 0.0)
            s[i] = rho * s[i] + (1 - rho) * g * g
            if centered:
                g_mean[i] = rho * g_mean[i] + (1 - rho) * g
                root = np.sqrt(s[i] - g_mean[i] ** 2 + eps)
            else:
                root = np.sqrt(s[i] + eps)
            m[i] = momentum * m[i] + lr * g / root
            ref[i] = ref[i] - m[i]
    for name, a, b in zip(names, got, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    assert [p.name for p in opt.mean_square] == [f"mean_square.{n}" for n in names]
    assert hasattr(opt, "mean_grad") == centered


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_lamb_three_steps(wd):
    params = _params()
    grads = [[RNG.standard_normal(p.shape).astype(np.float32) for p in params] for _ in range(STEPS)]
    ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-6
    opt = nn.Lamb(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=wd)
    got = _run(opt, params, grads)
    m = [np.zeros_like(p) for p in ref]
    v = [np.zeros_like(p) for p in ref]
    for t, step in enumerate(grads, start=1):
        for i, g in enumerate(step):
            g = g.astype(np.float64)
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            r = (m[i] / (1 - b1 ** t)) / (np.sqrt(v[i] / (1 - b2 ** t)) + eps)
            u = r + (wd * ref[i] if _decays(names[i], wd) else 0.0)
            w_norm, u_norm = np.linalg.norm(ref[i]), np.linalg.norm(u)
            ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
            ref[i] = ref[i] - lr * ratio * u
    for name, a, b in zip(names, got, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)


def test_lamb_trust_ratio_is_one_for_zero_weights():
    w = Parameter(np.zeros(3, np.float32), name="w")
    opt = nn.Lamb([w], learning_rate=0.1)
    opt((Tensor(np.array([1.0, -2.0, 0.5], np.float32)),))
    # first step: m_hat = g, v_hat = g^2, r = g / (|g| + eps) ~ sign(g); ratio 1
    np.testing.assert_allclose(w.asnumpy(), -0.1 * np.array([1, -1, 1]), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda p: nn.RMSProp(p, 0.01, momentum=0.9, centered=True, weight_decay=0.01),
    lambda p: nn.Lamb(p, 0.02, weight_decay=0.01),
    lambda p: nn.AdamWeightDecay(p, 0.05, weight_decay=0.1),
], ids=["rmsprop", "lamb", "adamw"])
def test_trains_equally_in_both_modes(make):
    def train(mode):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3)])
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), make(net.trainable_params()))
        step.set_train()
        rng = np.random.default_rng(3)
        x, y = rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(5)]
        ms.set_context(mode=ms.PYNATIVE_MODE)
        return losses, [p.asnumpy() for p in net.trainable_params()]

    (eager, eager_w), (graph, graph_w) = train(ms.PYNATIVE_MODE), train(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert graph[-1] < graph[0]
    for a, b in zip(graph_w, eager_w, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_argument_errors():
    p = [Parameter(np.zeros(2, np.float32), name="w")]
    with pytest.raises(ValueError, match="epsilon > 0"):
        nn.RMSProp(p, epsilon=0.0)
    with pytest.raises(TypeError, match="centered must be a bool"):
        nn.RMSProp(p, centered=1)
    with pytest.raises(ValueError, match=r"beta1 and beta2 must be in \(0, 1\)"):
        nn.Lamb(p, 0.1, beta1=1.0)
    with pytest.raises(TypeError, match="beta2 must be a float"):
        nn.Lamb(p, 0.1, beta2=1)
