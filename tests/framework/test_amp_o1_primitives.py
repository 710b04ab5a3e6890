"""O1 converts the white-list *primitives* a cell holds (``self.matmul = ops.MatMul()``), as
MindSpore's O1 does, while functional calls (``ops.matmul``) stay float32 (issue 26).

References: NumPy with float16 rounding of the inputs and of the result (float32
accumulation), and MindSpore 2.10 running the same program (skips without it)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops
from tests.mindspore_ref.reference import Differential, assert_same, needs_mindspore

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def half(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float16).astype(np.float32)


class Held(nn.Cell):
    """A matmul and a relu as primitive instances, and the same matmul as a function."""

    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.bmm = ops.BatchMatMul()
        self.relu = ops.ReLU()
        self.w = Parameter(Tensor(np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)), name="w")

    def construct(self, x):
        a = self.matmul(x, self.w)
        batched = self.bmm(ops.expand_dims(x, 0), ops.expand_dims(self.w, 0))
        return a, ops.matmul(x, self.w), self.relu(a), batched


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
def test_o1_runs_held_primitives_in_float16_and_functions_in_float32(mode):
    ms.set_context(mode=mode)
    x = np.random.default_rng(1).normal(size=(3, 8)).astype(np.float32) * 1.37
    net = Held()
    w = net.w.asnumpy()
    held, functional, relu, batched = ms.amp.auto_mixed_precision(net, "O1")(Tensor(x))
    assert {t.dtype for t in (held, functional, relu, batched)} == {ms.float32}
    expected = half(half(x) @ half(w))
    np.testing.assert_array_equal(held.asnumpy(), expected)
    np.testing.assert_array_equal(batched.asnumpy()[0], expected)
    np.testing.assert_array_equal(relu.asnumpy(), np.maximum(expected, 0))
    np.testing.assert_allclose(functional.asnumpy(), x @ w, rtol=1e-6, atol=1e-6)
    assert np.abs(held.asnumpy() - x @ w).max() > 1e-4  # float16 really changed it
    assert [p.name for p in net.trainable_params()] == ["w"] and net.w.dtype == ms.float32


def test_o1_leaves_a_cell_the_user_set_to_float32_alone():
    inner = Held().to_float(ms.float32)
    outer = nn.SequentialCell([inner])
    ms.amp.auto_mixed_precision(outer, "O1")
    x = np.random.default_rng(2).normal(size=(2, 8)).astype(np.float32)
    held = inner(Tensor(x))[0]
    np.testing.assert_allclose(held.asnumpy(), x @ inner.w.asnumpy(), rtol=1e-6, atol=1e-6)
    assert isinstance(inner.matmul, ops.MatMul)


def test_the_white_list_names_the_primitives():
    white = ms.amp.get_white_list()
    assert ops.MatMul in white and ops.BatchMatMul in white and nn.Dense in white


PROGRAMS = {"o1_held_and_functional": '''
class Held(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.relu = ops.ReLU()
        self.w = ms.Parameter(Tensor(np.linspace(-2, 2, 32).reshape(8, 4).astype(np.float32)), name="w")

    def construct(self, x):
        a = self.matmul(x, self.w)
        return a, ops.matmul(x, self.w), self.relu(a)


def main():
    x = Tensor(np.sin(np.arange(24.0) * 1.7).reshape(3, 8).astype(np.float32) * 1.37)
    return ms.amp.auto_mixed_precision(Held(), "O1")(x)
'''}

RUN = Differential(PROGRAMS)


@needs_mindspore
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_o1_primitives_against_mindspore(mode):
    assert_same(RUN.ours(mode, "o1_held_and_functional"), RUN.mindspore(mode, "o1_held_and_functional"))
