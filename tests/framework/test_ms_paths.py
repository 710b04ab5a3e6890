"""MindSpore's module paths and the small APIs control-flow code uses, in both modes:
``context``, ``ops.operations`` (P), ``ops.composite`` (C), ``ops.functional`` (F),
``common.dtype``/``parameter``/``tensor``, ``ms_function``/``JitConfig``/``jit_class``,
Assign, AddN, zeros/ones, ``ops.grad``, 0-d int tensors as loop counters."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import context, nn
from framework.common import dtype as mstype
from framework.common.parameter import Parameter, ParameterTuple
from framework.common.tensor import Tensor
from framework.ops import composite as C
from framework.ops import functional as F
from framework.ops import operations as P

RNG = np.random.default_rng(1)


def both(fn, *args):
    """(PyNative result, graph-mode result) of ``fn(*args)``."""
    return fn(*args), ms.jit(fn)(*args)


def assert_same(eager, graph, rtol=1e-6):
    eager = eager if isinstance(eager, tuple) else (eager,)
    graph = graph if isinstance(graph, tuple) else (graph,)
    assert len(eager) == len(graph)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=rtol)


def test_module_paths_name_the_same_objects():
    assert context.GRAPH_MODE == ms.GRAPH_MODE and context.PYNATIVE_MODE == ms.PYNATIVE_MODE
    context.set_context(mode=context.GRAPH_MODE)
    assert ms.get_context("mode") == context.get_context("mode") == ms.GRAPH_MODE
    context.set_context(mode=context.PYNATIVE_MODE)
    assert mstype.int32 is ms.int32 and mstype.float32 is ms.float32 and mstype.bool_ is ms.bool_
    assert Parameter is ms.Parameter and ParameterTuple is ms.ParameterTuple
    assert Tensor is ms.Tensor
    assert C.GradOperation is ms.ops.GradOperation and F.assign is ms.ops.assign
    assert P.TensorAdd is P.Add is ms.ops.TensorAdd
    for name in ("ReduceSum", "Assign", "Add", "MatMul", "FloorMod", "Gather", "ReduceAll"):
        assert getattr(P, name) is getattr(ms.ops, name)


def test_operations_classes_compute_numpy_results():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    np.testing.assert_allclose(P.ReduceSum()(Tensor(a), 1).asnumpy(), a.sum(1))
    np.testing.assert_allclose(P.ReduceSum(keep_dims=True)(Tensor(a)).asnumpy(),
                               a.sum(keepdims=True))
    np.testing.assert_allclose(P.MatMul()(Tensor(a), Tensor(b)).asnumpy(), a @ b)
    np.testing.assert_allclose(P.TensorAdd()(Tensor(a), Tensor(a)).asnumpy(), 2 * a)
    np.testing.assert_allclose(P.AddN()((Tensor(a), Tensor(a), Tensor(a))).asnumpy(), 3 * a)
    np.testing.assert_allclose(F.addn([Tensor(a), Tensor(-a)]).asnumpy(), 0 * a)
    np.testing.assert_array_equal(P.Gather()(Tensor(a), Tensor(np.array([2, 0])), 0).asnumpy(),
                                  a[[2, 0]])


def test_addn_refuses_mixed_shapes():
    with pytest.raises(ValueError, match=r"AddN: inputs must have one shape.*test_ms_paths"):
        ms.ops.AddN()([Tensor(np.ones(2)), Tensor(np.ones(3))])


def test_zeros_ones_and_likes():
    z = ms.ops.zeros((2, 3), mstype.int32)
    assert z.shape == (2, 3) and z.dtype == mstype.int32 and not z.asnumpy().any()
    o = ms.ops.ones(4)
    assert o.dtype == mstype.float32 and np.all(o.asnumpy() == 1)
    x = Tensor(RNG.standard_normal((2, 2)))
    assert ms.ops.zeros_like(x).dtype == mstype.float64
    assert ms.ops.ones_like(x, dtype=mstype.int32).dtype == mstype.int32
    np.testing.assert_array_equal(ms.ops.fill(mstype.int32, (2,), 7).asnumpy(), [7, 7])
    assert_same(*both(lambda t: ms.ops.ones_like(t) + ms.ops.zeros((2, 2), mstype.float64), x))


# -- Assign -----------------------------------------------------------------------------------


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")
        self.steps = Parameter(Tensor(np.array(0), mstype.int32), name="steps", requires_grad=False)
        self.assign = P.Assign()

    def construct(self, x):
        self.assign(self.total, self.total + x)
        F.assign(self.steps, self.steps + 1)
        return self.total * 2.0


def test_assign_updates_parameters_in_both_modes():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    eager_net, graph_net = Accumulate(), Accumulate()
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(3):
        graph_out = graph_net(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for _ in range(3):
        eager_out = eager_net(x)
    np.testing.assert_allclose(eager_out.asnumpy(), 6 * x.asnumpy())
    assert_same(eager_out, graph_out)
    assert int(eager_net.steps) == int(graph_net.steps) == 3
    np.testing.assert_allclose(graph_net.total.asnumpy(), 3 * x.asnumpy())


def test_assign_sets_a_plain_tensor():
    """MindSpore 2.10's ``ops.assign`` takes a plain Tensor too: it then holds the value
    (PyNative), and later reads in a compiled function see it (graph)."""
    x = Tensor(np.zeros(2, np.float32))
    assert ms.ops.assign(x, Tensor(np.ones(2, np.float32))) is x
    np.testing.assert_array_equal(x.asnumpy(), np.ones(2, np.float32))

    @ms.jit
    def twice_then_triple(t):
        ms.ops.operations.Assign()(t, t * 2)
        return t * 3

    values = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(twice_then_triple(Tensor(values)).asnumpy(), values * 6)
    with pytest.raises(TypeError, match=r"Assign: variable must be a Parameter or a Tensor"):
        ms.ops.assign(np.zeros(2), Tensor(np.ones(2)))
    constant = Tensor(np.zeros(2, np.float32))
    with pytest.raises(RuntimeError, match=r"Assign: graph mode: variable is a tensor the compiled"):
        ms.jit(lambda t: ms.ops.assign(constant, t))(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(constant.asnumpy(), np.zeros(2, np.float32))


# -- jit decorators ----------------------------------------------------------------------------


def test_ms_function_and_jit_config():
    config = ms.JitConfig(jit_level="O1")
    fn = ms.jit(lambda a: a * a + 1.0, jit_config=config)
    old = ms.ms_function(lambda a: a * a + 1.0)
    x = Tensor(RNG.standard_normal(3))
    assert fn.jit_config is config and config.jit_level == "O1"
    np.testing.assert_allclose(fn(x).asnumpy(), x.asnumpy() ** 2 + 1)
    np.testing.assert_allclose(old(x).asnumpy(), x.asnumpy() ** 2 + 1)
    assert fn.last_report is not None and old.last_report is not None  # both compiled
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O9")
    with pytest.raises(TypeError, match="jit_config must be a JitConfig"):
        ms.jit(lambda a: a, jit_config={"jit_level": "O1"})


def test_jit_class_methods_trace_through():
    @ms.jit_class
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        def apply(self, t):
            return t * self.factor + 1.0

    scaler = Scaler(3.0)
    x = Tensor(RNG.standard_normal((2, 2)))
    assert_same(*both(lambda t: scaler.apply(t), x))
    with pytest.raises(TypeError, match="nn.Cell"):
        ms.jit_class(nn.Dense)
    with pytest.raises(TypeError, match="decorates a class"):
        ms.jit_class(lambda: None)


# -- 0-d tensors as loop counters --------------------------------------------------------------


def test_int_counter_loop_in_pynative():
    i = Tensor(np.array(0), mstype.int32)
    evens, total = 0, Tensor(np.array(0), mstype.int32)
    while i < 10:
        if i % 2 == 0:
            evens += 1
        total += i // 3
        i += 1
    assert i.dtype == mstype.int32 and total.dtype == mstype.int32
    assert evens == 5 and int(total) == sum(k // 3 for k in range(10))
    assert total == Tensor(sum(k // 3 for k in range(10)), mstype.int32)
    assert not (total == Tensor(21, mstype.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_floor_div_and_mod_match_python_in_both_modes(dtype):
    a = np.array([7, -7, 5, -5, 0, 9], dtype)
    b = np.array([3, 3, -2, -2, 4, 9], dtype)

    def program(x, y):
        return x // y, x % y, x % 4, 13 // y, -13 % y

    eager, graph = both(program, Tensor(a), Tensor(b))
    want = (a // b, a % b, a % dtype(4), dtype(13) // b, dtype(-13) % b)
    for got, ref in zip(eager, want):
        np.testing.assert_array_equal(got.asnumpy(), ref)
        assert got.asnumpy().dtype == dtype
    assert_same(eager, graph)


def test_all_any_in_both_modes():
    a = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]])

    def program(x, n):
        return x.all(), x.any(), x.all(axis=1), (x > 0).any(axis=0), (n == 21).all()

    eager, graph = both(program, Tensor(a), Tensor(21, mstype.int32))
    want = (a.all(), a.any(), a.all(axis=1), (a > 0).any(axis=0), True)
    for got, ref in zip(eager, want):
        assert got.dtype == mstype.bool_
        np.testing.assert_array_equal(got.asnumpy(), ref)
    assert_same(eager, graph)


def test_counter_arithmetic_in_graph_mode():
    def program(i, x):
        for _ in range(4):  # a Python loop unrolls; the counter stays a tensor
            x = x + F.cast(i % 3, mstype.float32) * x[i % 2]
            i += 1
        return i, x

    args = (Tensor(np.array(0), mstype.int32), Tensor(RNG.standard_normal((2, 3))))
    assert_same(*both(program, *args))


# -- composite helpers and ops.grad --------------------------------------------------------------

_update = C.MultitypeFuncGraph("update")


@_update.register("Number", "Tensor", "Tensor")
def _update_tensor(lr, param, grad):
    return param - grad * lr


def test_hypermap_with_multitype_func_graph_in_both_modes():
    hyper_map = C.HyperMap()
    params = (Tensor(RNG.standard_normal(3)), Tensor(RNG.standard_normal((2, 2))))
    grads = (Tensor(RNG.standard_normal(3)), Tensor(RNG.standard_normal((2, 2))))

    def step(ps, gs):
        return hyper_map(C.partial(_update, 0.5), ps, gs)

    eager, graph = both(step, params, grads)
    for p, g, e in zip(params, grads, eager):
        np.testing.assert_allclose(e.asnumpy(), p.asnumpy() - 0.5 * g.asnumpy())
    assert_same(eager, graph)
    with pytest.raises(TypeError, match=r"'update': no implementation .*\(str, Tensor, Tensor\)"):
        _update("a", params[0], grads[0])


def test_ops_grad_positions_weights_aux_and_ids():
    w = Parameter(Tensor(RNG.standard_normal(3)), name="w")

    def fn(x, y):
        out = (x * y * w).sum()
        return out, x * 2.0

    x, y = Tensor(RNG.standard_normal(3)), Tensor(RNG.standard_normal(3))
    (gx, gy), aux = ms.ops.grad(fn, grad_position=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(gx.asnumpy(), y.asnumpy() * w.asnumpy())
    np.testing.assert_allclose(gy.asnumpy(), x.asnumpy() * w.asnumpy())
    np.testing.assert_allclose(aux[0].asnumpy(), 2 * x.asnumpy())
    gw = ms.grad(lambda a, b: fn(a, b)[0], grad_position=None, weights=[w])(x, y)
    np.testing.assert_allclose(gw[0].asnumpy(), x.asnumpy() * y.asnumpy())
    ids = ms.grad(lambda a, b: fn(a, b)[0], grad_position=1, weights=[w], return_ids=True)

    def check(result):
        (pos, g1), ((name, g2),) = result
        assert pos == 1 and name == "w"
        np.testing.assert_allclose(g1.asnumpy(), x.asnumpy() * w.asnumpy())
        np.testing.assert_allclose(g2.asnumpy(), x.asnumpy() * y.asnumpy())

    check(ids(x, y))
    check(ms.jit(ids)(x, y))


def test_functional_old_names_and_helpers():
    a, b = np.array([7.0, -3.0, 2.5]), np.array([2.0, 2.0, -1.5])
    x, y = Tensor(a), Tensor(b)
    for got, want in [(F.tensor_add(x, y), a + b), (F.tensor_sub(x, y), a - b),
                      (F.tensor_mul(x, y), a * b), (F.tensor_div(x, y), a / b),
                      (F.tensor_mod(x, y), np.mod(a, b)), (F.tensor_floordiv(x, y), a // b),
                      (F.tensor_lt(x, y), a < b), (F.tensor_ge(x, y), a >= b)]:
        np.testing.assert_array_equal(got.asnumpy(), want)
    t = F.scalar_to_tensor(3, mstype.int32)
    assert t.shape == () and t.dtype == mstype.int32 and int(t) == 3
    assert F.shape(x) == (3,) and F.rank(x) == 1 and F.size(x) == 3 and F.dtype(x) == ms.float64
    assert P.Shape()(Tensor(np.zeros((2, 5)))) == (2, 5)
    assert F.depend(x, y) is x
