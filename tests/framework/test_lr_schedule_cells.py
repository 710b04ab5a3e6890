"""MindSpore's LearningRateSchedule Cells and dynamic learning rates given to optimizers:
values from the documented formulas (written here with `math`, not from our code), the
schedule evaluated inside the compiled step (one compile for all steps, graph == PyNative),
and a per-step list used as MindSpore documents (step i takes value i)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.graph_mode import cache_stats


def at(schedule, step):
    return float(schedule(Tensor(np.array(step, np.int32))).asnumpy())


STEPS = range(0, 12)


@pytest.mark.parametrize("make, formula", [
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4), lambda s: 0.1 * 0.9 ** (s / 4)),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, True), lambda s: 0.1 * 0.9 ** math.floor(s / 4)),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4), lambda s: 0.1 * math.exp(-0.9 * s)),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, True),
     lambda s: 0.1 * math.exp(-0.9 * math.floor(s / 4) * 4)),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 4), lambda s: 0.1 / (1 + 0.5 * s / 4)),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 4, True), lambda s: 0.1 / (1 + 0.5 * math.floor(s / 4))),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 8),
     lambda s: 0.01 + 0.5 * 0.09 * (1 + math.cos(math.pi * min(s, 8) / 8))),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 8, 0.5),
     lambda s: 0.09 * (1 - min(s, 8) / 8) ** 0.5 + 0.01),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0, True),
     lambda s: 0.09 * (1 - s / (4 * max(math.ceil(s / 4), 1))) ** 2.0 + 0.01),
    (lambda: nn.WarmUpLR(0.1, 5), lambda s: 0.1 * min(s, 5) / 5),
])
def test_schedule_cells_follow_the_documented_formulas(make, formula):
    schedule = make()
    assert isinstance(schedule, nn.LearningRateSchedule)
    for s in STEPS:
        assert at(schedule, s) == pytest.approx(formula(s), rel=2e-6, abs=1e-9), s


def test_documented_examples():
    # MindSpore's docstring examples: global_step 2
    assert at(nn.CosineDecayLR(0.01, 0.1, 4), 2) == pytest.approx(0.055, rel=1e-6)
    assert at(nn.ExponentialDecayLR(0.1, 0.9, 4, True), 2) == pytest.approx(0.1, rel=1e-6)
    assert at(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), 2) == pytest.approx(
        0.09 * 0.5 ** 0.5 + 0.01, rel=1e-6)
    assert at(nn.WarmUpLR(0.1, 2), 2) == pytest.approx(0.1, rel=1e-6)


@pytest.mark.parametrize("call, error, words", [
    (lambda: nn.CosineDecayLR(0.1, 0.01, 4), ValueError, "max_lr must be > min_lr"),
    (lambda: nn.CosineDecayLR(0.0, 1, 4), TypeError, "max_lr must be a float"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError, "decay_steps must be >= 1"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 2.0), TypeError, "decay_steps must be an int"),
    (lambda: nn.InverseDecayLR(0.1, 0.9, 2, is_stair=1), TypeError, "is_stair must be a bool"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0), ValueError, "power must be > 0"),
    (lambda: nn.WarmUpLR(-0.1, 4), ValueError, "learning_rate must be > 0"),
])
def test_bad_arguments(call, error, words):
    with pytest.raises(error, match=words):
        call()


def _train(mode, make_opt, steps=6):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3)])
    opt = make_opt(net.trainable_params())
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), opt)
    step.set_train()
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)
    before = cache_stats["traces"]
    losses, lrs = [], []
    for _ in range(steps):
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        lrs.append(opt.last_lr())
    traces = cache_stats["traces"] - before
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, lrs, traces


SLOW = pytest.mark.slow


@pytest.mark.parametrize("make_opt", [
    pytest.param(lambda p: nn.Momentum(p, nn.CosineDecayLR(0.01, 0.5, 4), 0.9), id="cosine"),
    pytest.param(lambda p: nn.SGD(p, nn.PolynomialDecayLR(0.5, 0.05, 3, 2.0, True)),
                 id="poly-update", marks=SLOW),
    pytest.param(lambda p: nn.Adam(p, nn.WarmUpLR(0.05, 3)), id="warmup", marks=SLOW),
    pytest.param(lambda p: nn.RMSProp(p, nn.ExponentialDecayLR(0.02, 0.5, 2, True), centered=True),
                 id="exp-stair", marks=SLOW),
    pytest.param(lambda p: nn.Lamb(p, nn.InverseDecayLR(0.05, 1.0, 2), weight_decay=0.01),
                 id="inverse", marks=SLOW),
    # a per-step list, 2 steps past its end
    pytest.param(lambda p: nn.Momentum(p, [0.5, 0.4, 0.3, 0.2], 0.9), id="list"),
    pytest.param(lambda p: nn.SGD(p, Tensor(np.array([0.3, 0.1, 0.2], np.float32))), id="tensor",
                 marks=SLOW),
])
def test_dynamic_lr_trains_equally_in_both_modes_with_one_compile(make_opt):
    eager, eager_lrs, _ = _train(ms.PYNATIVE_MODE, make_opt)
    graph, graph_lrs, traces = _train(ms.GRAPH_MODE, make_opt)
    assert traces == 1  # the LR changes every step; the compiled step does not
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert graph_lrs == pytest.approx(eager_lrs, rel=1e-6)
    assert len(set(np.round(eager_lrs, 7))) > 1


def test_a_per_step_list_is_used_as_documented():
    """Step i uses value i (the last value after the end): SGD without momentum moves the
    weight by exactly lr_i * grad each step."""
    w = ms.Parameter(np.zeros(1, np.float32), name="w")
    lrs = [0.5, 0.25, 0.125]
    opt = nn.SGD([w], lrs)
    assert opt.get_lr() == 0.5
    expected = 0.0
    for i in range(5):
        opt((Tensor(np.ones(1, np.float32)),))
        expected -= lrs[min(i, 2)]
        assert float(w.asnumpy()[0]) == pytest.approx(expected)
        assert opt.last_lr() == lrs[min(i, 2)]
    assert opt.get_lr() == 0.125


def test_schedule_cell_is_the_optimizers_learning_rate():
    schedule = nn.WarmUpLR(0.1, 4)
    w = ms.Parameter(np.zeros(2, np.float32), name="w")
    opt = nn.Momentum([w], schedule, 0.9)
    assert opt.learning_rate is schedule
    assert opt.get_lr() == 0.0  # step 0 of the warm-up
    opt((Tensor(np.ones(2, np.float32)),))
    assert opt.get_lr() == pytest.approx(0.025)
    assert "learning_rate" not in [p.name for p in opt.state_params()]


@pytest.mark.parametrize("value, error, words", [
    ([], ValueError, "non-empty"),
    ([0.1, -0.1], ValueError, ">= 0"),
    ([[0.1]], ValueError, "1-D"),
    (nn.Dense(2, 2), TypeError, "LearningRateSchedule"),
    ("0.1", TypeError, "learning_rate must be"),
])
def test_bad_learning_rates(value, error, words):
    with pytest.raises(error, match=words):
        nn.SGD([ms.Parameter(np.zeros(1, np.float32), name="w")], value)


def test_functional_training_loop_with_a_schedule_under_jit():
    """MindSpore's functional loop (value_and_grad + optimizer(grads)) with a schedule Cell:
    `@ms.jit` gives PyNative's losses; after the cosine reaches min_lr 0 the loss stops."""
    def run(use_jit):
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Dense(6, 5), nn.ReLU(), nn.Dense(5, 3)])
        loss_fn = nn.CrossEntropyLoss()
        opt = nn.SGD(net.trainable_params(), learning_rate=nn.CosineDecayLR(0.0, 0.5, 5))

        def forward(x, y):
            return loss_fn(net(x), y)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        step = ms.jit(step) if use_jit else step
        rng = np.random.default_rng(3)
        x, y = rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)
        return [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(7)]

    eager, graph = run(False), run(True)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert eager[5] == eager[6] != eager[4]  # steps 5 and 6 have LR 0
