"""Gradients of integer tensors, as MindSpore computes them, in both modes.

Three checks per program of :mod:`tests.mindspore_ref.int_grad_programs`: ours against
MindSpore's recorded answers (no MindSpore needed: CI), our two modes against each other,
and, where ``MINDSPORE_PYTHON`` names a MindSpore venv, ours against MindSpore run now
(one subprocess for every program, in both of its modes).
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.int_grad_programs import EXPECTED, PROGRAMS
from tests.mindspore_ref.reference import MODES, Differential, assert_same, needs_mindspore

NAMES = sorted(PROGRAMS)
RUN = Differential(PROGRAMS)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_matches_mindspores_answer(name, mode):
    assert_same(RUN.ours(mode, name), EXPECTED[name], f"{name} ({mode})")


@pytest.mark.parametrize("name", NAMES)
def test_modes_agree(name):
    assert_same(RUN.ours("graph", name), RUN.ours("pynative", name), f"{name}: graph vs pynative")


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_against_mindspore(name, mode):
    assert_same(RUN.ours(mode, name), RUN.mindspore(mode, name), f"{name} ({mode} vs MindSpore)")


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_recorded_answers_are_mindspores(name, mode):
    assert_same(RUN.mindspore(mode, name), EXPECTED[name], f"{name} (MindSpore {mode})")


# -- float gradients next to integers: unchanged -----------------------------------------
class _Mixed(nn.Cell):
    """A float computation with an integer loop bound."""

    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = ops.tanh(x) * 1.5
            i = i + 1
        return ops.sum(x * x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_float_gradient_beside_an_integer_loop_bound(mode):
    ms.set_context(mode=mode)
    x0 = np.array([0.3, -0.7, 1.1], np.float32)
    dx, dn = ops.GradOperation(get_all=True)(_Mixed())(Tensor(x0), Tensor(2, ms.int32))
    x, chain = x0.astype(np.float64), np.ones(3)
    for _ in range(2):
        chain *= 1.5 * (1 - np.tanh(x) ** 2)
        x = 1.5 * np.tanh(x)
    np.testing.assert_allclose(dx.asnumpy(), 2 * x * chain, rtol=1e-5)
    assert dn.dtype == ms.int32 and int(dn.asnumpy()) == 0
