"""framework.node_parity: the first IR node whose compiled output differs from its NumPy
kernel beyond float rounding. A primitive planted here (identity in PyNative, a lowering
that scales entries above 0.5 by 1.5) must be named with its line; networks whose modes
agree must give nothing."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from tvm import relax

import framework as ms
from framework import Parameter, Tensor, nn, seed
from framework.backend.tvm.lower.lowerings import LOWERINGS
from framework.node_parity import node_parity
from framework.primitive import Primitive, Spec


class Skewed(Primitive, abstract=True):  # (abstract: kept out of the primitive registry)
    """The identity in PyNative; graph mode's lowering (below) is wrong on purpose."""

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return x

    def bprop(self, x, out, dout, needs):
        return (dout,)


def lower_skewed(ctx, x):
    dtype = str(ctx.in_specs[0].dtype)
    big = relax.op.greater(relax.op.abs(x), relax.const(0.5, dtype))
    return relax.op.where(big, relax.op.multiply(x, relax.const(1.5, dtype)), x)


LOWERINGS[Skewed] = lower_skewed


def line_of(marker: str, obj) -> int:
    lines, start = inspect.getsourcelines(obj)
    return start + next(i for i, line in enumerate(lines) if marker in line)


class Planted(nn.Cell):
    def __init__(self, plant: bool = True):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 3)
        self.skew = Skewed() if plant else None

    def construct(self, x):
        h = self.relu(self.fc1(x))
        if self.skew is not None:
            h = self.skew(h)  # PLANTED
        return self.fc2(h)


def train_step(net, lr=0.1):
    ms.set_seed(0)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), lr, 0.9))
    step.set_train()
    return step


def batch(scale: float, n: int = 4, features: int = 8, classes: int = 3):
    rng = np.random.default_rng(1)
    return (rng.normal(size=(n, features)).astype(np.float32) * scale,
            rng.integers(0, classes, n).astype(np.int32))


def test_the_planted_node_is_named_with_its_line_and_nothing_else():
    ms.set_seed(0)
    step = train_step(Planted())
    x, y = batch(30.0)  # hidden activations well above 0.5: the lowering scales them
    before = [p.asnumpy().copy() for p in step.trainable_params()]
    found = node_parity(step, x, y)
    assert [c.prim for c in found.beyond] == ["Skewed"]  # its consumers get the compiled input
    first = found.first
    assert first.location.endswith(f"test_node_parity.py:{line_of('# PLANTED', Planted.construct)}")
    assert first.code.startswith("h = self.skew(h)") and first.phase == "forward"
    # |1.5 h - h| / max h, the largest h being above 0.5: 1/2 (1.5 h rounded to float32)
    assert first.max_rel == pytest.approx(0.5, rel=1e-6)
    assert not found.skipped
    for p, b in zip(step.trainable_params(), before):  # nothing was updated
        np.testing.assert_array_equal(p.asnumpy(), b)


def test_below_the_planted_threshold_the_modes_agree_node_by_node():
    step = train_step(Planted())
    x, y = batch(0.01)  # every hidden activation below 0.5: the lowering is the identity
    found = node_parity(step, x, y)
    assert found.first is None and found.checks
    assert all(c.error <= c.budget for c in found.checks)


def test_a_lenet_train_step_has_no_node_beyond_rounding():
    from trainer.models.lenet import LeNet5

    ms.set_seed(0)
    step = train_step(LeNet5(num_classes=10), lr=0.05)
    rng = np.random.default_rng(0)
    x, y = rng.random((16, 1, 32, 32), np.float32), rng.integers(0, 10, 16).astype(np.int32)
    found = node_parity(step, x, y)
    assert found.first is None, found.first.describe()
    assert len({c.index for c in found.checks}) == found.nodes and not found.skipped
    kinds = {c.prim for c in found.checks}
    assert {"Conv2D", "Conv2DBackpropFilter", "MatMul", "MaxPoolGrad"} <= kinds  # all phases


class Looped(nn.Cell):
    def __init__(self, plant: bool):
        super().__init__()
        self.w = Parameter(Tensor(np.full((4,), 0.9, np.float32)), name="w")
        self.skew = Skewed() if plant else None

    def construct(self, x, n):
        h = x
        i = 0
        while i < n:  # LOOP
            h = h * self.w
            if self.skew is not None:
                h = self.skew(h)
            i += 1
        return (h * h).sum()


def test_control_flow_is_compared_as_one_node():
    x, n = Tensor(np.array([1.0, 2.0, -3.0, 0.1], np.float32)), Tensor(np.array(3, np.int32))
    clean = node_parity(Looped(plant=False), x, n)
    assert clean.first is None
    assert any(c.prim == "While" and "control flow" in c.note for c in clean.checks)
    found = node_parity(Looped(plant=True), x, n)
    assert found.first.prim == "While" and "not bisected inside" in found.first.note
    assert found.first.location.endswith(f":{line_of('# LOOP', Looped.construct)}")


class Dropped(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 3)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.fc(self.drop(x))


def test_host_random_nodes_are_skipped_and_the_random_state_is_left_alone():
    step = train_step(Dropped())
    x, y = batch(1.0)
    state = seed.get_rng_state()
    found = node_parity(step, x, y)
    assert seed.get_rng_state() == state
    assert [p for _, p, _ in found.skipped] == ["Dropout"]
    assert found.first is None


def _two(x, y):
    return ms.ops.exp(x), ms.ops.sin(y) * 2.0


def test_nodes_fed_a_nan_are_not_compared_and_the_others_are():
    x = Tensor(np.array([0.1, np.nan, 0.3], np.float32))
    found = node_parity(_two, x, Tensor(np.array([0.5, 1.0, 2.0], np.float32)))
    assert [(prim, "NaN among its inputs" in why) for _, prim, why in found.skipped] == [("Exp", True)]
    assert {c.prim for c in found.checks} == {"Sin", "Mul"} and found.first is None
