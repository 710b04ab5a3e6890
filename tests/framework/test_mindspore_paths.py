"""MindSpore names and module paths that model-zoo and test programs import (the semantics
issue's list), used as MindSpore documents them, in both modes where they run in a graph:
``F.grad``/``F.value_and_grad``, ``ops.primitive.constexpr``, ``P.GatherV2``,
``F.tuple_to_array``/``F.scalar_to_array``, ``Parameter.data``, ``Cell.init_parameters_data``,
``mindspore.nn.optim``, ``mindspore.common.api``, ``mindspore.mutable``."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn
from framework.ops import functional as F
from framework.ops import operations as P

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.mark.parametrize("mode", MODES)
def test_functional_grad_and_value_and_grad(mode):
    ms.set_context(mode=mode)
    x = Tensor(np.array([1.0, -2.0, 3.0], np.float32))

    def f(x):
        return (x * x * x).sum()

    np.testing.assert_allclose(F.grad(f)(x).asnumpy(), 3 * x.asnumpy() ** 2, rtol=1e-6)
    value, g = F.value_and_grad(f)(x)
    np.testing.assert_allclose(value.asnumpy(), np.sum(x.asnumpy() ** 3), rtol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), 3 * x.asnumpy() ** 2, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_constexpr_computes_from_shapes_while_compiling(mode):
    from framework.ops.primitive import constexpr

    @constexpr
    def rows_times(n, k):
        return n * k

    class Net(nn.Cell):
        def construct(self, x):
            return x * rows_times(x.shape[0], 10)

    ms.set_context(mode=mode)
    x = Tensor(np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(Net()(x).asnumpy(), np.full((3, 2), 30.0, np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_gatherv2_is_gather(mode):
    params = np.arange(12, dtype=np.float32).reshape(4, 3)
    indices = np.array([3, 0, 3], np.int32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gather = P.GatherV2()

        def construct(self, p, i):
            return self.gather(p, i, 0)

    ms.set_context(mode=mode)
    np.testing.assert_array_equal(Net()(Tensor(params), Tensor(indices)).asnumpy(), params[indices])


def test_tuple_and_scalar_to_array():
    ints = F.tuple_to_array((1, 2, 3))
    assert ints.shape == (3,) and np.issubdtype(ints.asnumpy().dtype, np.integer)
    np.testing.assert_array_equal(ints.asnumpy(), [1, 2, 3])
    floats = F.tuple_to_array((1.0, 2.5))
    assert np.issubdtype(floats.asnumpy().dtype, np.floating)
    np.testing.assert_array_equal(floats.asnumpy(), [1.0, 2.5])
    with pytest.raises(TypeError):
        F.tuple_to_array([1, 2])
    with pytest.raises(ValueError):
        F.tuple_to_array(())
    scalar = F.scalar_to_array(2.5)
    assert scalar.shape == () and float(scalar.asnumpy()) == 2.5
    assert np.issubdtype(F.scalar_to_array(4).asnumpy().dtype, np.integer)


def test_parameter_data_and_init_parameters_data():
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    assert p.data is p
    np.testing.assert_array_equal(p.data.asnumpy(), [1.0, 2.0])
    net = nn.Dense(3, 2)
    mapping = net.init_parameters_data()
    assert set(mapping) == set(net.get_parameters())
    assert all(k is v for k, v in mapping.items())


def test_module_paths():
    from framework.common import api
    from framework.nn import optim

    assert optim.Momentum is nn.Momentum and optim.Adam is nn.Adam
    assert api.jit is ms.jit and api.ms_function is ms.ms_function


@pytest.mark.parametrize("mode", MODES)
def test_mutable_inputs_run_as_variables(mode):
    ms.set_context(mode=mode)
    a, b = Tensor(np.ones(2, np.float32)), Tensor(np.full(2, 2.0, np.float32))

    @ms.jit
    def add_pair(pair):
        return pair[0] + pair[1]

    np.testing.assert_array_equal(add_pair(ms.mutable((a, b))).asnumpy(), [3.0, 3.0])
    assert ms.mutable(a) is a
    with pytest.raises(TypeError, match="mutable"):
        ms.mutable("text")
    with pytest.raises(TypeError, match="dynamic_len"):
        ms.mutable(a, dynamic_len=True)
