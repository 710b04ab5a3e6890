"""Graph mode's frontend on nested and recursive calls (issue 35), against PyNative: a
nested ``def`` that calls something (a lambda) was converted twice (``SyntaxError:
duplicate argument '_cf_rt'``); cells nested 300 deep exceeded Python's recursion limit
while tracing (about five interpreter frames per level); a function recurring until a
tensor's value says stop never ends while compiling and gave a ``RecursionError`` from
inside the tracer: now one line naming the function and its ``file:line``. (MindSpore
2.10 compiled such a recursion on a 0-d tensor, and ran over 10 minutes without an answer
on ``grow`` below; recursion on Python values compiles unrolled in both.)"""

from __future__ import annotations

import inspect
import os
import re

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ir.graph import GraphModeError

X = np.array([1.0, -2.0, 3.0], np.float32)


def _both(fn, *arrays):
    eager = fn(*(Tensor(a) for a in arrays)).asnumpy()
    compiled = ms.jit(fn)(*(Tensor(a) for a in arrays)).asnumpy()
    return eager, compiled


def outer_with_a_lambda(x):
    def inner(y):
        double = lambda z: z * 2  # noqa: E731
        return double(y) + ops.relu(y)

    def plain(y):
        return ops.abs(y)

    return inner(x) + plain(x)


def test_a_nested_def_that_calls_a_lambda_compiles():
    eager, compiled = _both(outer_with_a_lambda, X)
    np.testing.assert_array_equal(compiled, eager)
    np.testing.assert_array_equal(eager, X * 2 + np.maximum(X, 0) + np.abs(X))


class Wrap(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def construct(self, x):
        return self.inner(x) + 1


def test_cells_nested_300_deep_compile():
    net = nn.ReLU()
    for _ in range(300):
        net = Wrap(net)
    eager = net(Tensor(X)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = net(Tensor(X)).asnumpy()
    np.testing.assert_array_equal(compiled, eager)
    np.testing.assert_array_equal(eager, np.maximum(X, 0) + 300)


def halve(x, depth):
    if depth == 0:
        return x
    return halve(x * 0.5, depth - 1)


def test_a_recursion_on_python_values_compiles_unrolled():
    eager, compiled = _both(lambda x: halve(x, 250), X)
    np.testing.assert_array_equal(compiled, eager)
    np.testing.assert_array_equal(eager, X * np.float32(0.5) ** 250)


def grow(x):
    if x.sum() > 100:
        return x
    return grow(x * 2)


class Doubling(nn.Cell):
    def construct(self, x):
        if x.sum() > 100:
            return x
        return self.construct(x * 2)


@pytest.mark.parametrize("recursive", [grow, Doubling.construct], ids=["function", "cell"])
def test_a_recursion_on_a_tensor_value_is_one_clear_error(recursive):
    x = np.array([1.0, 2.0], np.float32)
    if recursive is grow:
        eager = grow(Tensor(x)).asnumpy()
        run = lambda: ms.jit(grow)(Tensor(x))  # noqa: E731
    else:
        cell = Doubling()
        eager = cell(Tensor(x)).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        run = lambda: cell(Tensor(x))  # noqa: E731
    np.testing.assert_array_equal(eager, [64.0, 128.0])  # PyNative runs it
    with pytest.raises(GraphModeError) as caught:
        run()
    message = str(caught.value)
    line = inspect.getsourcelines(recursive)[1]
    assert len(message.splitlines()) == 1
    where = rf"\((.*/)?{re.escape(os.path.basename(__file__))}:{line}\)"
    assert re.match(rf"{re.escape(recursive.__qualname__)} {where} calls itself without end while "
                    "compiling", message), message
