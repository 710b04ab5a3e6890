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
        "lenet5": dict(num_classes=3, num_channel=1), "resnet8": dict(num_classes=3),
        "resnet20": dict(num_classes=3),
        # width 0.25 and two blocks: one without expansion (residual), one expanding x2 with
        # a stride-2 depthwise convolution; the full-width stage table is checked below
        "mobilenet_v2": dict(num_classes=3, width_mult=0.25, settings=((1, 8, 1, 1), (2, 8, 1, 2)),
                             last_channel=16)}
INPUT = {"mlp": (2, 1, 4, 4), "lenet5": (2, 1, 32, 32), "resnet8": (2, 3, 8, 8),
         "resnet20": (2, 3, 16, 16), "mobilenet_v2": (2, 3, 8, 8)}
# steps compared: two (the second runs on the optimizer's state), one for the tiny ResNet-20.
# On batch 2 its BatchNorms make it ill-conditioned, so float32 rounding alone (the CPU's
# vector width) decided whether the modes agreed: on 8x8 its first gradients move by 4%
# (relative) when the input moves by 1e-6, on 16x16 by 2e-6, but there its second step
# moves by 2% when the weights move by 1e-6
STEPS = {"resnet20": 1}
NAMES = [pytest.param(n, marks=pytest.mark.slow) if n == "resnet20" else n for n in sorted(MODELS)]


def loss_of(net):
    return nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


@pytest.mark.parametrize("name", NAMES)
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
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(STEPS.get(name, 2))]
        out[mode] = (losses, [p.asnumpy() for p in net.trainable_params()])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (eager, ew), (graph, gw) = out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    for a, b in zip(gw, ew, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["mlp", "resnet8", "mobilenet_v2"])
def test_gradients_match_finite_differences(name):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(1)
    net = build_model(name, **TINY[name])
    net.set_train(False)  # BatchNorm on its running statistics: a fixed function of the weights
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal(INPUT[name]).astype(np.float32))
    y = Tensor(np.array([0, 2], np.int32))
    loss = loss_of(net)
    params = net.trainable_params()
    grads = ms.value_and_grad(loss, None, params)(x, y)[1]
    eps = 1e-3
    for param, grad in zip(params, grads, strict=True):
        base = param.asnumpy().copy()
        g = grad.asnumpy()
        # the largest component: float32 differences resolve it, and it is the one least
        # likely to sit where an epsilon step crosses a ReLU kink
        biggest = np.argsort(np.abs(g).ravel())[-1:]
        for index in (np.unravel_index(i, g.shape) for i in biggest):
            values = []
            for sign in (1, -1):
                moved = base.copy()
                moved[index] += sign * eps
                param.set_data(Tensor(moved))
                values.append(float(loss(x, y).asnumpy()))
            param.set_data(Tensor(base))
            numeric = (values[0] - values[1]) / (2 * eps)
            assert g[index] == pytest.approx(numeric, rel=3e-2, abs=1e-4), param.name


def test_resnet_structure():
    from trainer.models import CifarResNet

    convs = lambda net: sum(1 for _, c in net.cells_and_names() if isinstance(c, nn.Conv2d))  # noqa: E731
    # 6n + 1 convolutions on the main path (+ 2 projection shortcuts) and one Dense
    assert convs(build_model("resnet8")) == 7 + 2 and convs(build_model("resnet20")) == 19 + 2
    with pytest.raises(ValueError, match="6n \\+ 2"):
        CifarResNet(depth=10)


def test_mobilenet_v2_structure():
    from trainer.models import MobileNetV2
    from trainer.models.mobilenet import InvertedResidual

    net = build_model("mobilenet_v2")
    convs = [c for _, c in net.cells_and_names() if isinstance(c, nn.Conv2d)]
    blocks = [c for _, c in net.cells_and_names() if isinstance(c, InvertedResidual)]
    depthwise = [c for c in convs if c.group > 1]
    # 17 blocks (1+2+3+4+3+3+1), each with one depthwise 3x3 whose group is its channels;
    # stem + 16 expansions + 17 depthwise + 17 projections + head
    assert len(blocks) == 17 and len(depthwise) == 17 and len(convs) == 1 + 16 + 17 + 17 + 1
    assert all(c.group == c.in_channels == c.out_channels and c.weight.shape[1] == 1
               for c in depthwise)
    assert sum(b.residual for b in blocks) == 10  # the repeated blocks of each stage
    relu6 = sum(1 for _, c in net.cells_and_names() if isinstance(c, nn.ReLU6))
    assert relu6 == 1 + 16 + 17 + 1  # none after the linear projections
    assert net(Tensor(np.zeros((1, 3, 32, 32), np.float32))).shape == (1, 10)
    assert [c.out_channels for c in convs][:2] == [16, 16]  # width 0.5: 32 -> 16
    with pytest.raises(ValueError, match="width_mult must be > 0"):
        MobileNetV2(width_mult=0)


def test_mlp_experiment_loads():
    config = load_config(ROOT / "experiments" / "mlp.yaml")
    assert config.model.name == "mlp" and config.dataset.resize is None


def test_mobilenet_v2_experiment_loads_and_fits_its_data():
    config = load_config(ROOT / "experiments" / "mobilenet_v2_fashion.yaml")
    assert config.model.name == "mobilenet_v2" and config.dataset.resize == 32
    net = build_model(config.model.name, num_classes=config.model.num_classes,
                      num_channel=config.model.num_channel)
    x = np.zeros((1, config.model.num_channel, 32, 32), np.float32)
    assert net(Tensor(x)).shape == (1, 10)
