"""``Cell.to_float(dtype)``: returns the cell; from then on the floating-point inputs of the
cell and of the cells inside it are cast to ``dtype`` (integers left alone), in both modes;
against MindSpore's graph mode where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.reference import Differential, assert_same, needs_mindspore


class Echo(nn.Cell):
    def construct(self, x, i):
        return x, i, x * 2


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Echo()

    def construct(self, x, i):
        a, b, c = self.inner(x, i)
        return a, b, c, x + 1


def _dtypes(values):
    return [t.dtype for t in values]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_inputs_are_cast_in_the_cell_and_its_children(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.array([[1.5, 2.0, 3.25]]), ms.float32)
    i = Tensor(np.array([1, 2]), ms.int32)
    echo = Echo()
    assert echo.to_float(ms.float16) is echo
    out = echo(x, i)
    assert _dtypes(out) == [ms.float16, ms.int32, ms.float16]
    np.testing.assert_array_equal(out[2].asnumpy(), (x.asnumpy() * 2).astype(np.float16))
    assert _dtypes(echo(Tensor(np.array([1.5]), ms.float64), i))[0] == ms.float16
    outer = Outer()
    outer.to_float(ms.float16)
    assert _dtypes(outer(x, i)) == [ms.float16, ms.int32, ms.float16, ms.float16]
    only_inner = Outer()
    only_inner.inner.to_float(ms.float16)
    assert _dtypes(only_inner(x, i)) == [ms.float16, ms.int32, ms.float16, ms.float32]
    assert _dtypes(Echo().to_float(ms.float16).to_float(ms.float32)(x, i))[2] == ms.float32


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_comes_back_in_the_inputs_dtype(mode):
    ms.set_context(mode=mode)
    dense = nn.Dense(3, 2).to_float(ms.float16)
    x = Tensor(np.array([[0.5, -1.0, 2.0]]), ms.float32)
    grad = ops.GradOperation()(dense)(x)
    assert grad.dtype == ms.float32
    # the float16 input's gradient, in float16 (the weights read as float16, as MindSpore's:
    # float32 master weights, float32 accumulation), cast back
    w16 = dense.weight.asnumpy().astype(np.float16).astype(np.float32)
    expected = w16.sum(0, keepdims=True).astype(np.float16)
    assert dense.weight.dtype == ms.float32
    np.testing.assert_array_equal(grad.asnumpy(), expected.astype(np.float32))


def test_only_float_types_are_accepted():
    with pytest.raises(ValueError, match="to_float"):
        Echo().to_float(ms.int32)


PROGRAMS = {"to_float": '''
class Echo(nn.Cell):
    def construct(self, x, i):
        return x, i, x * 2


def main():
    x = Tensor(np.array([[1.5, 2.0, 3.25]]), ms.float32)
    i = Tensor(np.array([1, 2]), ms.int32)
    echo = Echo()
    same = echo.to_float(ms.float16) is echo
    return same, echo(x, i), ops.GradOperation()(Echo().to_float(ms.float16))(x, i)
'''}
RUN = Differential(PROGRAMS)


@needs_mindspore
def test_against_mindspores_graph_mode():
    """MindSpore's PyNative returns an input handed straight back uncast (its graph mode
    casts it, as documented): compared in graph mode."""
    assert_same(RUN.ours("graph", "to_float"), RUN.mindspore("graph", "to_float"))
    assert_same(RUN.ours("pynative", "to_float"), RUN.mindspore("graph", "to_float"))
