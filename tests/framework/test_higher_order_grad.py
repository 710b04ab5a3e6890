"""Derivatives of any order: ``grad`` of ``grad`` in PyNative and graph mode, checked against
closed forms and central finite differences of the next lower order (float64), Hessian-vector
products, control flow under a second derivative, and the refusals by name where a gradient
kernel has no gradient of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops

from .control_flow_cases import f64, run_in


def fd_grad(fn: Callable[[Tensor], Tensor], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of ``sum(fn(x))`` (PyNative, float64) at ``x``."""
    grad = np.zeros_like(x)
    for k in range(x.size):
        step = np.zeros_like(x)
        step.flat[k] = eps
        hi = float(np.sum(fn(Tensor(x + step)).asnumpy()))
        lo = float(np.sum(fn(Tensor(x - step)).asnumpy()))
        grad.flat[k] = (hi - lo) / (2 * eps)
    return grad


def cube(x):
    return (x ** 3).sum()


def sines(x):
    return ops.sin(x).sum()


def exps(x):
    return ops.exp(x).sum()


def tanhs(x):
    return ops.tanh(x).sum()


LABELS = Tensor(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]))


def softmax_ce(x):
    return nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(x, LABELS)


X = np.array([0.3, -1.2, 2.0, 0.7])
CLOSED_FORM = [(cube, lambda x: 6 * x), (sines, lambda x: -np.sin(x)), (exps, np.exp),
               (tanhs, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2))]


@pytest.mark.parametrize("fn,second", CLOSED_FORM, ids=[f.__name__ for f, _ in CLOSED_FORM])
def test_second_derivative_of_scalar_functions_pynative(fn, second):
    got = ms.grad(ms.grad(fn))(Tensor(X)).asnumpy()
    np.testing.assert_allclose(got, second(X), rtol=1e-12)
    np.testing.assert_allclose(got, fd_grad(ms.grad(fn), X), rtol=1e-6, atol=1e-8)


def test_second_derivative_of_softmax_cross_entropy_pynative():
    logits = np.array([[0.2, -0.4, 1.1], [0.5, 0.3, -0.8]])
    got = ms.grad(ms.grad(softmax_ce))(Tensor(logits)).asnumpy()
    # sum_j d2L/dx_ij dx_ij ... grad of sum(grad): d/dx sum_j (p_j - y_j)/n = 0 per row
    fd = fd_grad(ms.grad(softmax_ce), logits)
    np.testing.assert_allclose(got, fd, atol=1e-8)
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)  # Hessian of one row: diag(p) - pp^T
    hess_rows = [np.diag(r) - np.outer(r, r) for r in p]
    want = np.stack([h.sum(0) for h in hess_rows]) / 2
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_third_and_fourth_derivatives_of_sin_pynative():
    x = Tensor(X)
    np.testing.assert_allclose(ms.grad(ms.grad(ms.grad(sines)))(x).asnumpy(), -np.cos(X), rtol=1e-12)
    fourth = ms.grad(ms.grad(ms.grad(ms.grad(sines))))(x).asnumpy()
    np.testing.assert_allclose(fourth, np.sin(X), rtol=1e-12)


def test_value_and_grad_inside_grad_and_weights_of_a_cell():
    w = Parameter(Tensor(np.array([[0.4], [-0.7], [0.2]])), name="w")

    def loss(x):
        return (ops.tanh(ops.matmul(x, w)) ** 2).sum()

    def grad_norm(x):  # the gradient penalty's core: |d loss / d x|^2
        value, g = ms.value_and_grad(loss)(x)
        return (g * g).sum() + 0.0 * value

    x = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])
    got = ms.grad(grad_norm)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, fd_grad(grad_norm, x), rtol=1e-6, atol=1e-9)
    got_w = ms.grad(grad_norm, grad_position=None, weights=[w])(Tensor(x))[0].asnumpy()
    w0 = w.asnumpy().copy()

    def at(wv: np.ndarray) -> float:
        w.set_data(Tensor(wv))
        return float(grad_norm(Tensor(x)).asnumpy())

    fd = np.zeros_like(w0)
    for k in range(w0.size):
        step = np.zeros_like(w0)
        step.flat[k] = 1e-6
        fd.flat[k] = (at(w0 + step) - at(w0 - step)) / 2e-6
    w.set_data(Tensor(w0))
    np.testing.assert_allclose(got_w, fd, rtol=1e-6, atol=1e-9)


def hvp(fn: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """Hessian-vector product: the gradient of <grad f(x), v>."""
    return ms.grad(lambda t: (ms.grad(fn)(t) * v).sum())(x)


def rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def rosenbrock_hessian(x: np.ndarray) -> np.ndarray:
    n = x.size
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i + 1, i + 1] += 200
        h[i, i + 1] += -400 * x[i]
        h[i + 1, i] += -400 * x[i]
    return h


def test_hessian_vector_product_pynative():
    x = np.array([0.5, -0.3, 1.2, 0.8])
    v = np.array([1.0, -2.0, 0.5, 0.25])
    got = hvp(rosenbrock, Tensor(x), Tensor(v)).asnumpy()
    np.testing.assert_allclose(got, rosenbrock_hessian(x) @ v, rtol=1e-12)


def branchy(x):
    if x.sum() > 0:
        y = ops.sin(x) * x
    else:
        y = x * x * x
    return y.sum()


def looped(x):
    y = x
    while y.sum() < 10.0:
        y = y * x
    return y.sum()


def test_control_flow_under_second_derivative_pynative():
    for x in (np.array([1.5, 1.2]), np.array([-0.5, -0.2])):
        got = ms.grad(ms.grad(branchy))(Tensor(x)).asnumpy()
        np.testing.assert_allclose(got, fd_grad(ms.grad(branchy), x), rtol=1e-6)
    x = np.array([1.5, 1.2])  # y = x^5 there (4 multiplications)
    np.testing.assert_allclose(ms.grad(ms.grad(looped))(Tensor(x)).asnumpy(), 20 * x ** 3, rtol=1e-12)


def test_gradient_kernel_without_gradient_refuses_second_order_by_name():
    def inverted(a):
        return ops.inverse(a).sum()  # its gradient is a host kernel (HostGrad)

    a = Tensor(np.array([[2.0, 0.5], [0.3, 1.5]]))
    ms.grad(inverted)(a)  # first order works
    with pytest.raises(NotImplementedError, match="HostGrad .* stops a higher-order derivative"):
        ms.grad(ms.grad(inverted))(a)



def test_a_gradient_kernel_in_the_forward_pass_refuses_only_when_its_gradient_is_needed():
    # P.CTCLoss returns (loss, gradient): its forward runs the CTCLossGrad kernel on the
    # logits. A first-order loss of its first output never needs that kernel's gradient.
    from framework.ops import operations as P

    logits = Tensor(np.sin(np.arange(5 * 2 * 4, dtype=np.float32).reshape(5, 2, 4) * 0.7))
    indices = Tensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64))
    values, lengths = Tensor(np.array([1, 2, 1], np.int32)), Tensor(np.array([5, 5], np.int32))

    def loss(x):
        return P.CTCLoss()(x, indices, values, lengths)[0].sum()

    _, kernel_gradient = P.CTCLoss()(logits, indices, values, lengths)
    np.testing.assert_allclose(ms.grad(loss)(logits).asnumpy(), kernel_gradient.asnumpy(), rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(NotImplementedError, match="CTCLossGrad .* stops a higher-order derivative"):
        ms.grad(lambda x: ms.grad(loss)(x).sum())(logits)

def test_max_pool_to_third_order():
    pool = nn.MaxPool2d(2, 2)

    def pooled(x):
        return (pool(x) ** 3).sum()

    x = np.random.default_rng(0).normal(size=(1, 2, 4, 4))
    second = ms.grad(ms.grad(pooled))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(second, fd_grad(ms.grad(pooled), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ms.grad(ms.grad(ms.grad(pooled)))(Tensor(x)).asnumpy(),
                               fd_grad(ms.grad(ms.grad(pooled)), x), rtol=1e-6, atol=1e-8)


# -- graph mode -----------------------------------------------------------------------------
def _graph(fn: Callable[[], Any]) -> Any:
    return run_in(ms.GRAPH_MODE, fn)


@pytest.mark.slow
def test_second_and_third_derivatives_graph_mode():
    x = Tensor(X)
    for fn, second in CLOSED_FORM:
        got = _graph(lambda fn=fn: ms.grad(ms.grad(fn))(x)).asnumpy()
        np.testing.assert_allclose(got, second(X), rtol=1e-10, err_msg=fn.__name__)
    third = _graph(lambda: ms.grad(ms.grad(ms.grad(sines)))(x)).asnumpy()
    np.testing.assert_allclose(third, -np.cos(X), rtol=1e-10)
    logits = Tensor(np.array([[0.2, -0.4, 1.1], [0.5, 0.3, -0.8]]))
    np.testing.assert_allclose(_graph(lambda: ms.grad(ms.grad(softmax_ce))(logits)).asnumpy(),
                               ms.grad(ms.grad(softmax_ce))(logits).asnumpy(), atol=1e-12)


@pytest.mark.slow
def test_hessian_vector_product_and_jit_graph_mode():
    x = np.array([0.5, -0.3, 1.2, 0.8])
    v = np.array([1.0, -2.0, 0.5, 0.25])
    got = _graph(lambda: hvp(rosenbrock, Tensor(x), Tensor(v))).asnumpy()
    np.testing.assert_allclose(got, rosenbrock_hessian(x) @ v, rtol=1e-10)

    @ms.jit
    def second(t):
        return ms.grad(ms.grad(sines))(t)

    np.testing.assert_allclose(second(Tensor(X)).asnumpy(), -np.sin(X), rtol=1e-10)


@pytest.mark.slow
def test_control_flow_under_second_derivative_graph_mode():
    for x in (np.array([1.5, 1.2]), np.array([-0.5, -0.2])):
        got = _graph(lambda x=x: ms.grad(ms.grad(branchy))(f64(x))).asnumpy()
        np.testing.assert_allclose(got, ms.grad(ms.grad(branchy))(f64(x)).asnumpy(), rtol=1e-10)


def recurrent(x):
    y = x
    while y.sum() < 10:
        y = y * 1.5 + ops.sin(x) * y
    return (y * y).sum()


@pytest.mark.slow
@pytest.mark.parametrize("fn", [looped, recurrent])
def test_while_on_a_tensor_under_second_and_third_derivatives_graph_mode(fn):
    # 0, 1 and several iterations; the loops' backward passes become loops themselves
    for x in (np.array([6.0, 5.0]), np.array([1.5, 1.2]), np.array([1.1, 1.3])):
        for order in (2, 3):
            g = fn
            for _ in range(order):
                g = ms.grad(g)
            want = g(f64(x)).asnumpy()
            np.testing.assert_allclose(_graph(lambda g=g, x=x: g(f64(x))).asnumpy(), want,
                                       rtol=1e-10, err_msg=f"{fn.__name__} order {order} at {x}")
    x = np.array([1.1, 1.3])
    np.testing.assert_allclose(ms.grad(ms.grad(fn))(f64(x)).asnumpy(), fd_grad(ms.grad(fn), x), rtol=1e-6)


@pytest.mark.slow
def test_grad_at_a_parameter_passed_as_input_inside_jit_follows_its_value():
    # the Parameter is first seen inside the traced grad: its traced value must be
    # differentiated, not its host array at trace time (a constant of the graph)
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    @ms.jit
    def step(x):
        return ms.grad(lambda t: (t * t * x).sum())(w)

    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_allclose(step(x).asnumpy(), [2.0, 4.0])
    w.set_data(Tensor(np.array([3.0, 4.0], np.float32)))
    np.testing.assert_allclose(step(x).asnumpy(), [6.0, 8.0])


def _layer_cases() -> list[tuple[str, Callable[[Tensor], Tensor], tuple[int, ...]]]:
    ms.set_seed(3)
    f64 = ms.float64
    norm = nn.LayerNorm((4,), dtype=f64)
    cell = nn.LSTMCell(4, 3, dtype=f64)
    lstm = nn.LSTM(4, 3, batch_first=True, dtype=f64)
    attention = nn.MultiheadAttention(4, 2, dtype=f64)
    conv = nn.Conv2d(1, 2, 3, pad_mode="same", weight_init="normal", dtype=f64)
    batch_norm = nn.BatchNorm1d(3, dtype=f64)
    labels = Tensor(np.array([1, 2], np.int32))
    state = (Tensor(np.full((2, 3), 0.1)), Tensor(np.full((2, 3), -0.2)))
    return [
        ("layer_norm", lambda t: (norm(t) * ops.sin(t)).sum(), (2, 4)),
        ("lstm_cell", lambda t: ops.tanh(cell(t, state)[0]).sum(), (2, 4)),
        ("lstm", lambda t: (lstm(t)[0] ** 2).sum(), (2, 3, 4)),
        ("attention", lambda t: ops.tanh(attention(t, t, t)[0]).sum(), (3, 2, 4)),
        ("conv", lambda t: ops.tanh(conv(t)).sum(), (1, 1, 4, 4)),
        ("batch_norm", lambda t: ops.tanh(batch_norm(t)).sum(), (4, 3)),
        ("gelu_softmax", lambda t: (ops.softmax(ops.gelu(t), -1) ** 2).sum(), (2, 3)),
        ("cross_entropy", lambda t: nn.CrossEntropyLoss()(t, labels), (2, 5)),
        ("bmm", lambda t: ops.tanh(ops.bmm(t, t)).sum(), (2, 3, 3)),
    ]


@pytest.mark.parametrize("case", range(9), ids=[c[0] for c in _layer_cases()])
def test_second_order_through_layers_equals_finite_differences(case):
    name, fn, shape = _layer_cases()[case]

    def penalty(t):  # the squared norm of the input gradient, as a gradient penalty
        g = ms.grad(fn)(t)
        return (g * g).sum()

    x = np.random.default_rng(case).normal(size=shape)
    got = ms.grad(penalty)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, fd_grad(penalty, x), rtol=1e-5, atol=1e-8, err_msg=name)


@pytest.mark.slow
def test_max_pool_second_order_graph_mode():
    pool = nn.MaxPool2d(2, 2)

    def pooled(x):
        return (pool(x) ** 3).sum()

    x = Tensor(np.random.default_rng(0).normal(size=(1, 2, 4, 4)))
    np.testing.assert_allclose(_graph(lambda: ms.grad(ms.grad(pooled))(x)).asnumpy(),
                               ms.grad(ms.grad(pooled))(x).asnumpy(), rtol=1e-10)
