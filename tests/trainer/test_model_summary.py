"""The model summary at the start of a run (trainer/model_summary.py) and the forward hooks
it observes with (``Cell.register_forward_hook``, MindSpore's)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.seed import get_rng_state
from trainer.model_summary import model_summary, summary_rows
from trainer.models.lenet import LeNet5
from trainer.models.resnet import resnet8


def test_lenet_rows_have_the_conv_arithmetic_and_the_parameter_counts():
    ms.set_seed(0)
    net = LeNet5(10, 1)
    rows = {name: (kind, shape, params) for name, kind, shape, params in
            summary_rows(net, np.zeros((2, 1, 32, 32), np.float32))}
    # 5x5 valid convolutions: 32 -> 28, pooled 14 -> 10, pooled 5; weights in*out*k*k (no bias)
    assert rows["conv1"] == ("Conv2d", "(N, 6, 28, 28)", 1 * 6 * 5 * 5)
    assert rows["conv2"] == ("Conv2d", "(N, 16, 10, 10)", 6 * 16 * 5 * 5)
    assert rows["fc1"] == ("Dense", "(N, 120)", 400 * 120 + 120)
    assert rows["fc3"] == ("Dense", "(N, 10)", 84 * 10 + 10)
    total = sum(int(np.prod(p.shape)) for p in net.trainable_params())
    assert sum(params for _, _, params in rows.values()) == total
    text = model_summary(net, np.zeros((2, 1, 32, 32), np.float32))
    assert text.splitlines()[0] == "model: LeNet5, input (N, 1, 32, 32)"
    assert text.splitlines()[-1].startswith(f"  {total:,} trainable parameters ({total:,} in all")


def test_the_summary_pass_changes_nothing_of_the_run():
    """BatchNorm statistics, the training flag and the random generators are as before."""
    ms.set_seed(3)
    net = resnet8(10, 3)
    net.set_train(True)
    stats = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    rng = get_rng_state()
    rows = summary_rows(net, np.random.default_rng(0).normal(size=(2, 3, 32, 32)).astype(np.float32))
    assert net.training and get_rng_state() == rng
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), stats[p.name])
    assert any(shape == "(N, 10)" for _, _, shape, _ in rows)


def test_forward_hooks_see_inputs_and_outputs_replace_them_and_come_off():
    dense = nn.Dense(3, 2)
    seen = []
    handle = dense.register_forward_hook(
        lambda cell, args, out: seen.append((cell, args[0].shape, out.shape)))
    x = Tensor(np.ones((4, 3), np.float32))
    plain = dense(x).asnumpy()
    assert seen == [(dense, (4, 3), (4, 2))]
    doubled = dense.register_forward_hook(lambda cell, args, out: out * 2)
    np.testing.assert_allclose(dense(x).asnumpy(), plain * 2)
    handle.remove()
    doubled.remove()
    np.testing.assert_allclose(dense(x).asnumpy(), plain)
    assert len(seen) == 2
    with pytest.raises(TypeError, match="hook_fn must be callable"):
        dense.register_forward_hook(3)
