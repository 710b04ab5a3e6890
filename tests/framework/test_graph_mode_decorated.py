"""Graph mode compiling a function wrapped by a decorator of another module
(``functools.wraps``): the wrapper's code runs, in its own module, and the wrapped
function's names resolve in the wrapped function's module (the user's ``from ... import
sigmoid``), as Python and MindSpore run them. Checked against PyNative and NumPy."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import framework as ms
from framework import Tensor

HELPER = '''
import functools

from framework import nn


def in_cell(fn):
    """Runs ``fn`` as a Cell's construct, scaled (a test utility's style)."""
    @functools.wraps(fn)
    def wrapper(*args):
        class Net(nn.Cell):
            def construct(self, *xs):
                return fn(*xs)

        return Net()(*args) * SCALE

    return wrapper


SCALE = 2.0
'''

USER = '''
from framework.ops import sigmoid
from {helper} import in_cell


@in_cell
def signed_sigmoid(x):
    if x.sum() > 0:
        return sigmoid(x)
    return -sigmoid(x)
'''


@pytest.fixture
def user_module(tmp_path):
    helper, user = "decorating_helpers", "decorated_user_code"
    (tmp_path / f"{helper}.py").write_text(HELPER)
    (tmp_path / f"{user}.py").write_text(USER.format(helper=helper))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(user)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(user, None)
        sys.modules.pop(helper, None)


def _expected(x: np.ndarray) -> np.ndarray:
    s = 1 / (1 + np.exp(-x))
    return 2 * (s if x.sum() > 0 else -s)


@pytest.mark.parametrize("values", [[1.0, -0.5], [-1.0, -0.5]])
def test_decorated_function_resolves_its_own_globals_in_graph_mode(user_module, values):
    x = np.array(values, np.float32)
    eager = user_module.signed_sigmoid(Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = user_module.signed_sigmoid(Tensor(x)).asnumpy()
        jitted = ms.jit(user_module.signed_sigmoid)(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for got in (eager, graph, jitted):
        np.testing.assert_allclose(got, _expected(x), rtol=1e-6)


def test_gradient_through_the_decorated_function(user_module):
    x = np.array([0.3, -0.1], np.float32)
    s = 1 / (1 + np.exp(-x))
    grads = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            grads.append(ms.grad(lambda t: user_module.signed_sigmoid(t).sum())(Tensor(x)).asnumpy())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for got in grads:
        np.testing.assert_allclose(got, 2 * s * (1 - s), rtol=1e-5)
