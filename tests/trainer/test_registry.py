"""The optimizer and loss tables (trainer/registry.py) against the schema's names and
MindSpore's classes: every name the schema accepts builds, and builds what it says."""

import typing

import numpy as np
import pytest

from framework import Parameter, Tensor, nn
from trainer.config import LossConfig, OptimizerConfig
from trainer.registry import LOSSES, OPTIMIZERS, build_loss, build_optimizer

EXPECTED = {"momentum": nn.Momentum, "sgd": nn.SGD, "adam": nn.Adam, "adamw": nn.AdamWeightDecay,
            "rmsprop": nn.RMSProp, "lamb": nn.Lamb}


def _names(cls, field):
    return set(typing.get_args(typing.get_type_hints(cls)[field]))


def test_the_tables_hold_exactly_the_schema_names():
    assert set(OPTIMIZERS) == _names(OptimizerConfig, "name") == set(EXPECTED)
    assert set(LOSSES) == _names(LossConfig, "name")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_optimizer_name_builds_its_class_with_the_settings(name):
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    opt = build_optimizer([w], OptimizerConfig(name=name, learning_rate=0.05, weight_decay=0.01))
    scheduled = build_optimizer([w], OptimizerConfig(name=name), [0.3, 0.2])
    assert type(opt) is EXPECTED[name]
    assert np.isclose(opt.get_lr(), 0.05)
    assert scheduled.dynamic_lr and np.isclose(scheduled.get_lr(), 0.3)


def test_momentum_defaults_follow_mindspore():
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    assert build_optimizer([w], OptimizerConfig(name="momentum")).momentum == 0.9
    assert build_optimizer([w], OptimizerConfig(name="rmsprop")).momentum == 0.0


def test_label_smoothing_takes_the_cross_entropy_that_has_it():
    logits = Tensor(np.array([[2.0, 0.0, -1.0]], np.float32))
    labels = Tensor(np.array([0], np.int32))
    plain = float(build_loss(LossConfig()).construct(logits, labels).asnumpy())
    smooth = float(build_loss(LossConfig(label_smoothing=0.3)).construct(logits, labels).asnumpy())
    z = np.array([2.0, 0.0, -1.0])
    logp = z - np.log(np.exp(z).sum())
    assert np.isclose(plain, -logp[0], rtol=1e-5)
    assert np.isclose(smooth, -(0.7 * logp[0] + 0.1 * logp.sum()), rtol=1e-5)


def test_adamw_with_bias_correction_is_pytorchs():
    from framework.experimental.optim import AdamW

    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    opt = build_optimizer([w], OptimizerConfig(name="adamw", bias_correction=True, beta2=0.99,
                                               weight_decay=0.1), [1e-3, 5e-4])
    assert type(opt) is AdamW and opt.eps == 1e-8 and opt.beta2 == 0.99 and opt.dynamic_lr
    assert type(build_optimizer([w], OptimizerConfig(name="adamw"))) is nn.AdamWeightDecay
