"""Zoo models (trainer/models): forward shapes, one train step equal in both modes, and
gradients against central finite differences on a tiny input."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from trainer.config import load_config
from trainer.models import MODELS, build_model

from .cli_env import ROOT

TINY = {"mlp": dict(num_classes=3, num_channel=1, image_size=4, hidden=5),
        "lenet5": dict(num_classes=3, num_channel=1)}
INPUT = {"mlp": (2, 1, 4, 4), "lenet5": (2, 1, 32, 32)}


def loss_of(net):
    return nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_forward_shape_and_one_step_equal_in_both_modes(name):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(INPUT[name]).astype(np.float32)
    y = np.array([0, 2], np.int32)
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = build_model(name, **TINY[name])
        assert net(Tensor(x)).shape == (2, 3)
        step = nn.TrainOneStepCell(loss_of(net), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train()
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(2)]
        out[mode] = (losses, [p.asnumpy() for p in net.trainable_params()])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (eager, ew), (graph, gw) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    for a, b in zip(gw, ew, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_mlp_gradients_match_finite_differences():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(1)
    net = build_model("mlp", **TINY["mlp"])
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal(INPUT["mlp"]).astype(np.float32))
    y = Tensor(np.array([0, 2], np.int32))
    loss = loss_of(net)
    params = net.trainable_params()
    grads = ms.value_and_grad(loss, None, params)(x, y)[1]
    eps = 1e-2
    for param, grad in zip(params, grads, strict=True):
        base = param.asnumpy().copy()
        for index in list(np.ndindex(base.shape))[:4]:
            values = []
            for sign in (1, -1):
                moved = base.copy()
                moved[index] += sign * eps
                param.set_data(Tensor(moved))
                values.append(float(loss(x, y).asnumpy()))
            param.set_data(Tensor(base))
            numeric = (values[0] - values[1]) / (2 * eps)
            assert grad.asnumpy()[index] == pytest.approx(numeric, rel=2e-2, abs=2e-4), param.name


def test_mlp_experiment_loads():
    config = load_config(ROOT / "experiments" / "mlp.yaml")
    assert config.model.name == "mlp" and config.dataset.resize is None
