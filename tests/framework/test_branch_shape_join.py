"""Graph mode joins branch results whose shapes differ only by size-1 axes (a ``bool[]``
result against a ``bool[1]``, which MindSpore accepts): both give the larger shape, with the
same values as PyNative; other shape differences are still refused with one clear line."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ir.graph import GraphModeError


class Compare(nn.Cell):
    def construct(self, x, y):
        if x > y:
            out = x > 2
        else:
            out = ops.reshape(y, (1,)) > 2
        return out


class Scale(nn.Cell):
    def construct(self, x, y):
        if x > y:
            out = x * 2
        else:
            out = ops.reshape(y, (1,)) * 3
        return out


class Rows(nn.Cell):
    def construct(self, x, y):
        if x.sum() > 0:
            out = x * 2
        else:
            out = ops.reshape(y, (1, 3)) + 1
        return out


@pytest.mark.parametrize("a, b", [(3, 1), (1, 3)])
def test_bool_scalar_against_bool_vector(a, b):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = Compare()(Tensor(a, ms.int32), Tensor(b, ms.int32)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = Compare()(Tensor(a, ms.int32), Tensor(b, ms.int32))
    assert out.shape == (1,) and out.dtype == ms.bool_
    np.testing.assert_array_equal(out.asnumpy(), np.reshape(eager, (1,)))


@pytest.mark.parametrize("a, b, value, grads", [(3.0, 1.0, 6.0, (2.0, 0.0)),
                                                (1.0, 3.0, 9.0, (0.0, 3.0))])
def test_float_join_and_its_gradient(a, b, value, grads):
    ms.set_context(mode=ms.GRAPH_MODE)
    x, y = Tensor(a, ms.float32), Tensor(b, ms.float32)
    out = Scale()(x, y)
    assert out.shape == (1,)
    np.testing.assert_array_equal(out.asnumpy(), [value])
    dx, dy = ops.GradOperation(get_all=True)(Scale())(x, y)
    assert dx.shape == () and dy.shape == ()
    assert (float(dx.asnumpy()), float(dy.asnumpy())) == grads


def test_vector_against_row():
    ms.set_context(mode=ms.GRAPH_MODE)
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    out = Rows()(Tensor(x), Tensor(y))
    assert out.shape == (1, 3)
    np.testing.assert_array_equal(out.asnumpy(), [x * 2])
    out = Rows()(Tensor(-x), Tensor(y))
    np.testing.assert_array_equal(out.asnumpy(), [y + 1])


class Different(nn.Cell):
    def construct(self, x, y):
        if x.sum() > y.sum():
            out = x > 2
        else:
            out = y > 2
        return out


def test_shapes_holding_different_entries_are_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(GraphModeError, match="bool\\[2\\] vs bool\\[1\\]"):
        Different()(Tensor(np.array([3, 1]), ms.int32), Tensor(np.array([1]), ms.int32))
