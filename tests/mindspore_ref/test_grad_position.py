"""``ops.grad`` / ``ms.grad`` / ``value_and_grad`` result structure by ``grad_position``: an
int or a one-entry tuple gives the gradient itself, a longer tuple a tuple; weights' grads
stay a tuple; ``return_ids`` pairs. MindSpore 2.10's documented behaviour, checked against
it when present; the structure itself is asserted here in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from tests.mindspore_ref.reference import Differential, assert_same, needs_mindspore

PROGRAM = '''
W = ms.Parameter(Tensor(np.array([2.0], np.float32)), name="w")


def f(x, y):
    return (x * y * W).sum()


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    out = []
    for position in (0, (0,), (1,), (0, 1)):
        out.append(ops.grad(f, grad_position=position)(x, y))
        out.append(ops.grad(f, grad_position=position, weights=[W])(x, y))
        out.append(ops.value_and_grad(f, grad_position=position)(x, y)[1])
        if position != (1,):  # MindSpore 2.10 returns ((1, 1.0),) there: a scalar, not y's gradient
            out.append(ms.grad(f, grad_position=position, return_ids=True)(x, y))
    return tuple(out)
'''

RUN = Differential({"grad_position": PROGRAM})


def shape(value):
    if isinstance(value, tuple):
        return tuple(shape(v) for v in value)
    return type(value).__name__


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_one_entry_position_tuple_gives_the_gradient_itself(mode):
    ms.set_context(mode=mode)
    try:
        w = ms.Parameter(Tensor(np.array([2.0], np.float32)), name="w")
        x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))

        def f(a, b):
            return (a * b * w).sum()

        for position in (0, (0,)):
            g = ops.grad(f, grad_position=position)(x, y)
            assert isinstance(g, Tensor)
            np.testing.assert_allclose(g.asnumpy(), 2 * y.asnumpy())
            assert shape(ops.grad(f, grad_position=position, weights=[w])(x, y)) == ("Tensor", ("Tensor",))
            assert shape(ops.grad(f, grad_position=position, return_ids=True)(x, y)) == ("int", "Tensor")
        g = ops.grad(f, grad_position=(1,))(x, y)
        np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy())
        assert shape(ops.grad(f, grad_position=(0, 1))(x, y)) == ("Tensor", "Tensor")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@needs_mindspore
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_grad_position_structures_against_mindspore(mode):
    assert_same(RUN.ours(mode, "grad_position"), RUN.mindspore(mode, "grad_position"))
