"""Hooks (framework/autograd/hooks.py, framework/nn/cell_hooks.py) against gradients derived
by hand with NumPy, in both modes. MindSpore's own answers for the same features are
checked in tests/mindspore_ref/test_ms_hooks.py."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3,)).astype(np.float32)
Y = RNG.normal(size=(3,)).astype(np.float32) + 2


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


# -- ops.HookBackward -----------------------------------------------------------------------
def test_hook_backward_sees_and_replaces_the_gradient():
    """f = (x*y)*y with the hook on x*y: it sees d f/d(xy) = y; scaled by 3 it gives
    df/dx = 3y^2 and df/dy = 3xy + xy (the second factor's term is not hooked)."""
    seen = []

    def times3(grads):
        seen.append(grads[0].asnumpy())
        return (grads[0] * 3,)

    hook = ops.HookBackward(times3)
    gx, gy = ms.grad(lambda x, y: hook(x * y) * y, grad_position=(0, 1))(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(seen[0], Y, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), 3 * Y * Y, rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), 3 * X * Y + X * Y, rtol=1e-5)


def test_hook_backward_forward_is_identity_and_several_inputs_give_a_tuple():
    seen = []

    def keep(grads):
        seen.append(len(grads))

    hook = ops.HookBackward(keep, cell_id="x")
    a, b = hook(Tensor(X), Tensor(Y))
    np.testing.assert_array_equal(a.asnumpy(), X)
    np.testing.assert_array_equal(b.asnumpy(), Y)

    def f(x, y):
        u, v = hook(x, y)
        return (u * 2 + v * 3).sum()

    gx, gy = ms.grad(f, grad_position=(0, 1))(Tensor(X), Tensor(Y))
    assert seen == [2]
    np.testing.assert_allclose(gx.asnumpy(), np.full(3, 2.0))
    np.testing.assert_allclose(gy.asnumpy(), np.full(3, 3.0))


def test_hook_backward_is_left_out_of_graph_mode_with_a_warning(mode):
    calls = []

    def record(grads):
        calls.append(1)
        return (grads[0] * 100,)

    hook = ops.HookBackward(record)

    @ms.jit
    def g(x, y):
        return ms.grad(lambda a, b: hook(a * b) * b, grad_position=(0, 1))(x, y)

    with pytest.warns(UserWarning, match="HookBackward"):
        gx, gy = g(Tensor(X), Tensor(Y))
    assert calls == []
    np.testing.assert_allclose(gx.asnumpy(), Y * Y, rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), 2 * X * Y, rtol=1e-5)


def test_hook_backward_checks_its_arguments():
    with pytest.raises(TypeError, match="callable hook function"):
        ops.HookBackward(3)
    with pytest.raises(TypeError, match="Tensors"):
        ops.HookBackward(print)(1.0)


# -- Tensor.register_hook -------------------------------------------------------------------
def test_tensor_hook_gets_the_summed_gradient_in_both_modes(mode):
    """z = 2a used twice (3z + z^2): the hook sees 3 + 2z, once; times 10 it gives
    df/da = 20 (3 + 4a)."""
    seen = []

    def times10(grad):
        seen.append(1)
        return grad * 10

    def f(a):
        z = a * 2
        z.register_hook(times10)
        return (z * 3 + z * z).sum()

    grad = ms.grad(f)(Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), 20 * (3 + 4 * X), rtol=1e-5)
    assert seen == [1]  # called once (graph mode: while tracing)


def test_tensor_hooks_chain_in_order_and_come_off():
    def plus1(grad):
        return grad + 1

    def times10(grad):
        return grad * 10

    x = Tensor(X)
    first = x.register_hook(plus1)
    second = x.register_hook(times10)
    np.testing.assert_allclose(ms.grad(lambda a: (a * 3).sum())(x).asnumpy(), np.full(3, 40.0))
    first.remove()
    np.testing.assert_allclose(ms.grad(lambda a: (a * 3).sum())(x).asnumpy(), np.full(3, 30.0))
    second.remove()
    second.remove()  # twice is harmless
    np.testing.assert_allclose(ms.grad(lambda a: (a * 3).sum())(x).asnumpy(), np.full(3, 3.0))


def test_parameter_hook_changes_its_gradient(mode):
    w = ms.Parameter(Tensor(Y), name="w")
    w.register_hook(lambda grad: grad * 2)
    grads = ms.grad(lambda x: (w * x).sum(), None, [w])(Tensor(X))
    np.testing.assert_allclose(grads[0].asnumpy(), 2 * X, rtol=1e-6)


def test_graph_mode_refuses_two_hooks_on_a_tensor_and_removal_inside():
    def two(a):
        z = a * 2
        z.register_hook(lambda g: g)
        z.register_hook(lambda g: g)
        return z.sum()

    def removed(a):
        z = a * 2
        z.register_hook(lambda g: g).remove()
        return z.sum()

    with pytest.raises(RuntimeError, match="multiple hooks"):
        ms.jit(ms.grad(two))(Tensor(X))
    with pytest.raises(AttributeError, match="cannot be removed"):
        ms.jit(ms.grad(removed))(Tensor(X))
    np.testing.assert_allclose(ms.grad(removed)(Tensor(X)).asnumpy(), np.full(3, 2.0))
    with pytest.raises(TypeError, match="callable hook function"):
        Tensor(X).register_hook("no")


# -- Cell hooks -----------------------------------------------------------------------------
class Scale(nn.Cell):
    def construct(self, x):
        return x * 3


def test_forward_hooks_change_inputs_and_outputs_and_gradients(mode):
    """pre: x -> 2x; forward hook: out -> out + out*out. f = 6x + 36x^2, f' = 6 + 72x."""
    cell = Scale()
    cell.register_forward_pre_hook(lambda c, args: args[0] * 2)  # a bare tensor is one argument
    cell.register_forward_hook(lambda c, args, out: out + out * out)
    np.testing.assert_allclose(cell(Tensor(X)).asnumpy(), 6 * X + 36 * X * X, rtol=1e-5)
    grad = ms.grad(lambda x: cell(x).sum())(Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), 6 + 72 * X, rtol=1e-5)


def test_forward_hook_kwargs_prepend_and_always_call():
    order = []

    class K(nn.Cell):
        def construct(self, x, scale=1.0):
            if scale < 0:
                raise ValueError("negative scale")
            return x * scale

    k = K()
    k.register_forward_pre_hook(lambda c, a: order.append("first"))
    k.register_forward_pre_hook(lambda c, a: order.append("prepended"), prepend=True)
    k.register_forward_pre_hook(lambda c, a, kw: ((a[0] + 1,), {"scale": kw["scale"] * 2}),
                                with_kwargs=True)
    k.register_forward_hook(lambda c, a, kw, out: out - kw["scale"], with_kwargs=True)
    k.register_forward_hook(lambda c, a, out: order.append("always"), always_call=True)
    np.testing.assert_allclose(k(Tensor(X), scale=1.5).asnumpy(), (X + 1) * 3 - 3, rtol=1e-6)
    assert order == ["prepended", "first", "always"]
    with pytest.raises(ValueError, match="negative"):
        k(Tensor(X), scale=-1.0)
    assert order[-1] == "always"


def test_backward_hooks_see_a_dense_layers_gradients_and_replace_them(mode):
    """y = x W^T + b, loss = sum(y * c): grad_output = c, grad_input = c W; the pre-hook
    doubles grad_output and the hook adds one to grad_input."""
    dense = nn.Dense(3, 2)
    weight = dense.weight.asnumpy()
    c = RNG.normal(size=(4, 2)).astype(np.float32)
    x = RNG.normal(size=(4, 3)).astype(np.float32)

    def pre(cell, grad_output):
        return (grad_output[0] * 2,)

    def hook(cell, grad_input, grad_output):
        return (grad_input[0] + 1,)

    dense.register_backward_pre_hook(pre)
    dense.register_backward_hook(hook)
    grad_x, grad_w = ms.grad(lambda x: (dense(x) * Tensor(c)).sum(), 0, [dense.weight])(Tensor(x))
    np.testing.assert_allclose(grad_x.asnumpy(), 2 * c @ weight + 1, rtol=1e-5)
    np.testing.assert_allclose(grad_w[0].asnumpy(), 2 * c.T @ x, rtol=1e-5)


def test_backward_hooks_see_grad_output_and_grad_input():
    dense = nn.Dense(3, 2)
    c = RNG.normal(size=(4, 2)).astype(np.float32)
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    seen = []
    dense.register_backward_pre_hook(lambda cell, go: seen.append(go[0].asnumpy()))
    dense.register_backward_hook(lambda cell, gi, go: seen.extend([gi[0].asnumpy(), go[0].asnumpy()]))
    ms.grad(lambda x: (dense(x) * Tensor(c)).sum())(Tensor(x))
    np.testing.assert_allclose(seen[0], c)
    np.testing.assert_allclose(seen[1], c @ dense.weight.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(seen[2], c)


def test_backward_hooks_none_for_unused_output_and_untracked_input():
    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(Y), name="w")

        def construct(self, x):
            return x * self.w, x * 3

    seen = []
    two = Two()
    two.register_backward_pre_hook(lambda c, g: seen.append(("pre", [v is None for v in g])))
    two.register_backward_hook(lambda c, gi, go: seen.append(("hook", [v is None for v in gi])))
    grads = ms.grad(lambda x: two(x)[0].sum(), None, [two.w])(Tensor(X))
    np.testing.assert_allclose(grads[0].asnumpy(), X, rtol=1e-6)
    assert seen == [("pre", [False, True]), ("hook", [True])]


def test_backward_hook_on_a_cell_called_twice_runs_twice(mode):
    calls = []
    cell = Scale()
    cell.register_backward_hook(lambda c, gi, go: calls.append(1))
    grad = ms.grad(lambda x: cell(cell(x)).sum())(Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), np.full(3, 9.0))
    assert len(calls) == 2


def test_graph_mode_hooks_run_compiled_and_are_fixed_at_compile_time(capfd):
    """As in MindSpore: the hooks are part of the compiled function (a hook's print is a
    runtime print, shown at each call); a hook added after the first call is not."""
    def shout(cell, args, out):
        print("hook ran")
        return out + 1

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        cell = Scale()
        cell.register_forward_hook(shout)
        first = cell(Tensor(X)).asnumpy()
        second = cell(Tensor(X)).asnumpy()
        cell.register_forward_hook(lambda c, a, out: out * 100)
        third = cell(Tensor(X)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert capfd.readouterr().out.count("hook ran") == 3
    for out in (first, second, third):
        np.testing.assert_allclose(out, 3 * X + 1, rtol=1e-6)


def test_graph_mode_refuses_kwargs_hooks_and_ignores_prepend():
    cell = Scale()
    cell.register_forward_pre_hook(lambda c, a: a[0] * 2)
    cell.register_forward_pre_hook(lambda c, a: a[0] + 1, prepend=True)
    np.testing.assert_allclose(cell(Tensor(X)).asnumpy(), (X + 1) * 2 * 3, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(lambda x: cell(x))(Tensor(X)).asnumpy(), (X * 2 + 1) * 3,
                               rtol=1e-6)
    kw = Scale()
    kw.register_forward_pre_hook(lambda c, a, k: None, with_kwargs=True)
    with pytest.raises(TypeError, match="with_kwargs"):
        ms.jit(lambda x: kw(x))(Tensor(X))


def test_cell_hook_registration_checks_the_hook():
    for register in ("register_forward_pre_hook", "register_forward_hook",
                     "register_backward_pre_hook", "register_backward_hook"):
        with pytest.raises(TypeError, match=f"Scale.{register}: hook_fn must be callable"):
            getattr(Scale(), register)(None)


# -- tensor hooks on the arguments of compiled functions ------------------------------------
def _times10(grad):
    return grad * 10


def _plus1(grad):
    return grad + 1


def _cube_sum(x):
    return (x * x * x).sum()


def test_an_arguments_hook_applies_to_gradients_through_compiled_functions():
    """d/dx sum(x^3) = 3x^2, times 10 by the hook registered outside: whether the gradient is
    taken of a jit function, jit of a gradient, or in GRAPH_MODE (a function and a Cell)."""
    class Cube(nn.Cell):
        def construct(self, x):
            return _cube_sum(x)

    x = Tensor(X)
    x.register_hook(_times10)
    want = 30 * X * X
    results = [ms.grad(ms.jit(_cube_sum))(x), ms.jit(ms.grad(_cube_sum))(x)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        results += [ms.grad(_cube_sum)(x), ms.grad(Cube())(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for got in results:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_a_compiled_gradient_is_traced_again_when_an_arguments_hooks_change():
    from framework.graph_mode import cache_stats

    step = ms.jit(ms.grad(_cube_sum))
    x = Tensor(X)
    plain = 3 * X * X
    np.testing.assert_allclose(step(x).asnumpy(), plain, rtol=1e-5)
    traces = cache_stats["traces"]
    handle = x.register_hook(_times10)
    np.testing.assert_allclose(step(x).asnumpy(), 10 * plain, rtol=1e-5)
    handle.remove()
    np.testing.assert_allclose(step(x).asnumpy(), plain, rtol=1e-5)   # the first graph again
    handle = x.register_hook(_times10)
    np.testing.assert_allclose(step(x).asnumpy(), 10 * plain, rtol=1e-5)  # the second again
    assert cache_stats["traces"] == traces + 1
    handle.remove()
    x.register_hook(_plus1)  # another function: traced anew
    np.testing.assert_allclose(step(x).asnumpy(), plain + 1, rtol=1e-5)
    assert cache_stats["traces"] == traces + 2
    np.testing.assert_allclose(step(Tensor(X)).asnumpy(), plain, rtol=1e-5)  # a tensor without
