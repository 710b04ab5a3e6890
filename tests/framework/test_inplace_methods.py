"""In-place Tensor methods (framework/ops/tensor_inplace.py) against NumPy, in PyNative and
compiled (``@ms.jit``), with gradients derived by hand. MindSpore's answers for the ones
its CPU backend runs are in tests/mindspore_ref/test_ms_hooks.py."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

X = np.array([1.5, 3.0, -2.0, 0.25], np.float32)
Y = np.array([2.0, 4.0, 3.0, -0.5], np.float32)
MASK = np.array([True, False, True, False])


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


# method name, call on (tensor a, Tensor y), NumPy result from (x, y)
CASES = [
    ("add_", lambda a, y: a.add_(y), lambda x, y: x + y),
    ("add_alpha", lambda a, y: a.add_(y, alpha=2), lambda x, y: x + 2 * y),
    ("add_scalar", lambda a, y: a.add_(3), lambda x, y: x + 3),
    ("sub_", lambda a, y: a.sub_(y), lambda x, y: x - y),
    ("sub_alpha", lambda a, y: a.sub_(y, alpha=3), lambda x, y: x - 3 * y),
    ("mul_", lambda a, y: a.mul_(y), lambda x, y: x * y),
    ("mul_scalar", lambda a, y: a.mul_(2.5), lambda x, y: x * 2.5),
    ("div_", lambda a, y: a.div_(y), lambda x, y: x / y),
    ("div_floor", lambda a, y: a.div_(y, rounding_mode="floor"), lambda x, y: np.floor(x / y)),
    ("div_trunc", lambda a, y: a.div_(y, rounding_mode="trunc"), lambda x, y: np.trunc(x / y)),
    ("floor_divide_", lambda a, y: a.floor_divide_(y), lambda x, y: np.floor_divide(x, y)),
    ("remainder_", lambda a, y: a.remainder_(y), lambda x, y: np.mod(x, y)),
    ("copy_", lambda a, y: a.copy_(y), lambda x, y: y),
    ("fill_", lambda a, y: a.fill_(5.0), lambda x, y: np.full_like(x, 5.0)),
    ("fill_tensor", lambda a, y: a.fill_(Tensor(np.float32(6))), lambda x, y: np.full_like(x, 6.0)),
    ("zero_", lambda a, y: a.zero_(), lambda x, y: np.zeros_like(x)),
    ("clamp_", lambda a, y: a.clamp_(0.5, 2.5), lambda x, y: np.clip(x, 0.5, 2.5)),
    ("masked_fill_", lambda a, y: a.masked_fill_(Tensor(MASK), 9.0), lambda x, y: np.where(MASK, 9.0, x)),
    ("exp_", lambda a, y: a.exp_(), np.exp),
    ("sigmoid_", lambda a, y: a.sigmoid_(), lambda x, y: _sigmoid(x)),
    ("tanh_", lambda a, y: a.tanh_(), lambda x, y: np.tanh(x)),
    ("floor_", lambda a, y: a.floor_(), lambda x, y: np.floor(x)),
    ("sign_", lambda a, y: a.sign_(), lambda x, y: np.sign(x)),
]


def _numpy(expected, x, y):
    try:
        return np.asarray(expected(x, y), np.float32)
    except TypeError:  # the one-argument NumPy functions
        return np.asarray(expected(x), np.float32)


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_pynative_updates_the_tensor_and_returns_it(name, call, expected):
    a = Tensor(X.copy())
    out = call(a, Tensor(Y))
    assert out is a
    np.testing.assert_allclose(a.asnumpy(), _numpy(expected, X, Y), rtol=1e-6)


@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_compiled_in_place_gives_the_same_values(name, call, expected):
    @ms.jit
    def f(x, y):
        a = x * 1
        call(a, y)
        return a

    np.testing.assert_allclose(f(Tensor(X), Tensor(Y)).asnumpy(), _numpy(expected, X, Y), rtol=1e-6)


def test_log_on_positive_values():
    a = Tensor(np.abs(X))
    a.log_()
    np.testing.assert_allclose(a.asnumpy(), np.log(np.abs(X)), rtol=1e-6)


def test_dtype_is_kept_and_the_other_operand_must_broadcast_to_the_tensor():
    a = Tensor(np.array([1, 2, 3], np.int32))
    a.add_(Tensor(np.array([0.5, 0.5, 0.5], np.float32)))
    assert a.dtype == ms.int32
    np.testing.assert_array_equal(a.asnumpy(), [1, 2, 3])  # 1.5 cast back to int32 truncates
    b = Tensor(np.zeros((2, 3), np.float32))
    b.add_(Tensor(np.arange(3, dtype=np.float32)))  # broadcasts to b
    np.testing.assert_array_equal(b.asnumpy(), np.tile(np.arange(3, dtype=np.float32), (2, 1)))
    with pytest.raises(RuntimeError, match=r"broadcast to the tensor's shape \(3,\)"):
        Tensor(np.zeros(3, np.float32)).add_(Tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(ValueError, match="rounding_mode"):
        Tensor(X).div_(Tensor(Y), rounding_mode="up")
    with pytest.raises(RuntimeError, match="one-element"):
        Tensor(X).fill_(Tensor(Y))


@pytest.mark.parametrize("compiled", [False, True])
def test_gradients_flow_through_the_chain_of_values(compiled):
    """z = (x + y) * y: dz/dx = y, dz/dy = x + 2y (summed over z)."""
    def f(x, y):
        z = x * 1
        z.add_(y)
        z.mul_(y)
        return z.sum()

    g = ms.grad(ms.jit(f) if compiled else f, grad_position=(0, 1))
    gx, gy = g(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), Y, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), X + 2 * Y, rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_in_place_on_a_differentiated_input(compiled):
    """x.add_(y); return x * x: d/dx = 2 (x + y), d/dy = 2 (x + y)."""
    def f(x, y):
        x.add_(y)
        return (x * x).sum()

    g = ms.grad(ms.jit(f) if compiled else f, grad_position=(0, 1))
    gx, gy = g(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), 2 * (X + Y), rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), 2 * (X + Y), rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_parameter_in_place_is_a_state_update(mode):
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="count",
                                      requires_grad=False)

        def construct(self, x):
            self.count.add_(x)
            return self.count * 1

    ms.set_context(mode=mode)
    try:
        net = Counter()
        net(Tensor(np.ones(2, np.float32)))
        out = net(Tensor(np.ones(2, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(net.count.asnumpy(), [2.0, 2.0])
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0])


def test_graph_mode_refuses_to_update_a_constant():
    constant = Tensor(X.copy())

    @ms.jit
    def f(x):
        constant.add_(x)
        return constant

    with pytest.raises(RuntimeError, match="constant"):
        f(Tensor(Y))
    np.testing.assert_array_equal(constant.asnumpy(), X)


# -- write-back: a compiled function's arguments updated in place (MindSpore's graph mode) --
@pytest.mark.parametrize("name,call,expected", CASES, ids=[c[0] for c in CASES])
def test_compiled_in_place_writes_back_to_the_callers_tensor(name, call, expected):
    @ms.jit
    def f(x, y):
        call(x, y)
        return x * 2

    a = Tensor(X.copy())
    out = f(a, Tensor(Y))
    want = _numpy(expected, X, Y)
    np.testing.assert_allclose(a.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), 2 * want, rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_write_back_in_a_cell_accumulates_over_calls(mode):
    """GRAPH_MODE compiles construct; in PyNative the in-place update is the eager one."""
    class Accumulate(nn.Cell):
        def construct(self, total, x):
            ops.assign(total, total + x)
            return total * 1

    ms.set_context(mode=mode)
    try:
        net, total = Accumulate(), Tensor(np.zeros(4, np.float32))
        for _ in range(3):
            out = net(total, Tensor(Y))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(total.asnumpy(), 3 * Y, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), 3 * Y, rtol=1e-6)


def test_the_same_tensor_given_twice_is_one_tensor_inside():
    @ms.jit
    def f(a, b):
        a.add_(1)
        b.mul_(3)
        return b * 1

    x, y, z = Tensor(X.copy()), Tensor(X.copy()), Tensor(Y.copy())
    np.testing.assert_allclose(f(y, z).asnumpy(), 3 * Y, rtol=1e-6)   # two tensors first
    np.testing.assert_allclose(f(x, x).asnumpy(), (X + 1) * 3, rtol=1e-6)
    np.testing.assert_allclose(x.asnumpy(), (X + 1) * 3, rtol=1e-6)
    np.testing.assert_allclose(f(y, z).asnumpy(), 9 * Y, rtol=1e-6)   # not the aliased graph
    np.testing.assert_allclose(y.asnumpy(), X + 2, rtol=1e-6)


def test_write_back_reaches_tuples_and_dicts_not_lists_or_arrays():
    @ms.jit
    def f(pair, named, listed, array):
        pair[0].add_(1)
        named["a"].add_(2)
        listed[0].add_(3)
        array.add_(4)
        return array * 1

    t, d, li, arr = Tensor(X.copy()), Tensor(X.copy()), Tensor(X.copy()), X.copy()
    out = f((t, Tensor(Y)), {"a": d}, [li], arr)
    np.testing.assert_allclose(t.asnumpy(), X + 1, rtol=1e-6)
    np.testing.assert_allclose(d.asnumpy(), X + 2, rtol=1e-6)
    np.testing.assert_array_equal(li.asnumpy(), X)
    np.testing.assert_array_equal(arr, X)
    np.testing.assert_allclose(out.asnumpy(), X + 4, rtol=1e-6)


def test_write_back_of_a_constant_a_parameter_and_not_of_item_assignment(tmp_path):
    @ms.jit
    def f(x, p, s):
        x.copy_(Tensor(Y))      # a constant: the caller's tensor takes it too
        p.mul_(2)
        s[0] = 100.0            # item assignment stays inside, as in MindSpore
        return s * 1

    x, s = Tensor(X.copy()), Tensor(X.copy())
    p = ms.Parameter(Tensor(X.copy()), name="p")
    out = f(x, p, s)
    np.testing.assert_array_equal(x.asnumpy(), Y)
    np.testing.assert_allclose(p.asnumpy(), 2 * X, rtol=1e-6)
    np.testing.assert_array_equal(s.asnumpy(), X)
    np.testing.assert_array_equal(out.asnumpy()[1:], X[1:])
    assert out.asnumpy()[0] == 100.0
    labelled = ms.jit(lambda a: a.add_(1) * 1, ir_dir=str(tmp_path))
    labelled(Tensor(X.copy()))
    assert "new tensor 0" in (tmp_path / "02_opt.ir").read_text()


@pytest.mark.parametrize("how", ["pynative", "grad_of_jit", "jit_of_grad", "graph_mode"])
def test_in_place_on_a_differentiated_input_reaches_the_callers_tensor(how):
    """x.add_(y); return sum(x * x): the caller's x holds x + y afterwards (as MindSpore's
    compiled gradients give) and d/dx = 2 (x + y)."""
    def f(x, y):
        x.add_(y)
        return (x * x).sum()

    x = Tensor(X.copy())
    if how == "graph_mode":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        g = ms.grad(ms.jit(f) if how == "grad_of_jit" else f)
        gx = (ms.jit(g) if how == "jit_of_grad" else g)(x, Tensor(Y))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(x.asnumpy(), X + Y, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), 2 * (X + Y), rtol=1e-6)
