"""MindSpore's dynamic learning-rate lists (framework.nn.cosine_decay_lr ...): the expected
values are MindSpore's documented example outputs and values worked out by hand from its
published formulas (current_epoch = floor(step / step_per_epoch))."""

from __future__ import annotations

import math

import pytest

from framework import nn


def close(got, expected):
    assert len(got) == len(expected)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_documented_examples():
    close(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2), [0.1, 0.1, 0.055, 0.055, 0.01, 0.01])
    close(nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1])
    close(nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]),
          [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01])
    close(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1), [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])


def test_cosine_by_hand():
    # min 0, max 1, one step per epoch, decay over 4 epochs: 0.5 * (1 + cos(pi * e / 4))
    r = math.sqrt(2) / 2
    close(nn.cosine_decay_lr(0.0, 1.0, 5, 1, 4), [1.0, (1 + r) / 2, 0.5, (1 - r) / 2, 0.0])
    # three steps per epoch, min 0.1: epochs 0, 0, 0, 1, 1, 1 of a 2-epoch decay
    close(nn.cosine_decay_lr(0.1, 0.5, 6, 3, 2), [0.5] * 3 + [0.3] * 3)


def test_exponential_by_hand():
    # decay over 2 epochs: exponent e / 2 (smooth) or floor(e / 2) (stair)
    smooth = [0.2, 0.2 * 0.5 ** 0.5, 0.2 * 0.5, 0.2 * 0.5 ** 1.5, 0.2 * 0.25]
    close(nn.exponential_decay_lr(0.2, 0.5, 5, 1, 2), smooth)
    close(nn.exponential_decay_lr(0.2, 0.5, 5, 1, 2, is_stair=True), [0.2, 0.2, 0.1, 0.1, 0.05])


def test_warmup_and_piecewise_by_hand():
    # warm up over 3 epochs of 2 steps, then flat at the full rate
    close(nn.warmup_lr(0.3, 9, 2, 3), [0, 0, 0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.3])
    close(nn.piecewise_constant_lr((1, 3), (1.0, 0.5)), [1.0, 0.5, 0.5])


@pytest.mark.parametrize("call, error, words", [
    (lambda: nn.cosine_decay_lr(1, 0.1, 6, 2, 2), TypeError, "min_lr must be a float"),
    (lambda: nn.cosine_decay_lr(0.1, 0.1, 6, 2, 2), ValueError, "max_lr must be > min_lr"),
    (lambda: nn.cosine_decay_lr(-0.1, 0.1, 6, 2, 2), ValueError, "min_lr >= 0"),
    (lambda: nn.cosine_decay_lr(0.0, 0.1, 6.0, 2, 2), TypeError, "total_step must be an int"),
    (lambda: nn.warmup_lr(0.1, 6, 0, 2), ValueError, "step_per_epoch must be >= 1"),
    (lambda: nn.warmup_lr(-0.1, 6, 2, 2), ValueError, "learning_rate must be >= 0"),
    (lambda: nn.exponential_decay_lr(0.1, 0.0, 6, 2, 1), ValueError, "must be > 0"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1, is_stair=1), TypeError, "is_stair"),
    (lambda: nn.piecewise_constant_lr([2, 2], [0.1, 0.2]), ValueError, "strictly increasing"),
    (lambda: nn.piecewise_constant_lr([2, 5], [0.1]), ValueError, "same length"),
    (lambda: nn.piecewise_constant_lr(5, [0.1]), TypeError, "lists or tuples"),
])
def test_bad_arguments(call, error, words):
    with pytest.raises(error, match=words):
        call()


def _train(mode, lrs):
    """A MindSpore-style loop feeding a dynamic LR list through ``optimizer.learning_rate``."""
    import numpy as np

    import framework as ms
    from framework import Tensor

    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Flatten(), nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 3)])
    opt = nn.Momentum(net.trainable_params(), lrs[0], 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), opt)
    step.set_train()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 4, 4)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)
    losses = []
    for lr in lrs:
        opt.learning_rate.set_data(Tensor(np.array(lr, np.float32)))
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses


def test_a_schedule_drives_training_equally_in_both_modes():
    import framework as ms

    lrs = nn.cosine_decay_lr(0.0, 0.5, 12, 3, 4)
    eager, graph = _train(ms.PYNATIVE_MODE, lrs), _train(ms.GRAPH_MODE, lrs)
    assert graph == pytest.approx(eager, rel=1e-4)
    constant = _train(ms.GRAPH_MODE, [0.5] * 12)  # the LR is an input, not a baked-in constant
    assert constant[:3] == pytest.approx(graph[:3], rel=1e-5)  # same LR in epoch 0
    assert abs(constant[-1] - graph[-1]) > 1e-3
