"""``ops.vjp``, ``ops.jvp``, ``ops.jacrev``, ``ops.jacfwd`` and Hessians (``jacfwd(jacrev(f))``)
in both modes: against central finite differences (float64), against each other, against
PyTorch's ``torch.func`` (subprocess, skipped without it), and their result structure
(MindSpore's: ``output.shape + input.shape``, a tuple per output and per position)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, ops
from tests.torch_ref import needs_torch, reference

from .control_flow_cases import run_in

SCRIPT = Path(__file__).with_name("torch_derivatives.py")
RNG = np.random.default_rng(7)
X = RNG.normal(size=(2, 3))
W1, B1, W2 = RNG.normal(size=(3, 4)), RNG.normal(size=(4,)), RNG.normal(size=(4, 2))
IMG, KERNEL = RNG.normal(size=(1, 2, 4, 4)), RNG.normal(size=(3, 2, 3, 3))
V = np.array([0.5, -0.3, 1.2, 0.8])


def mlp(x, w1, b1, w2):
    return ops.matmul(ops.tanh(ops.matmul(x, w1) + b1), w2)


def conv(img, kernel):
    return ops.sigmoid(ops.conv2d(img, kernel, pad_mode="pad", padding=1)).mean(axis=(2, 3))


def scalar(x):
    return (ops.sin(x) * x).sum() + (x[:-1] * x[1:] ** 2).sum()


def scalar_hessian(x: np.ndarray) -> np.ndarray:
    h = np.diag(2 * np.cos(x) - x * np.sin(x))
    for i in range(x.size - 1):  # x_i x_{i+1}^2
        h[i, i + 1] += 2 * x[i + 1]
        h[i + 1, i] += 2 * x[i + 1]
        h[i + 1, i + 1] += 2 * x[i]
    return h


def fd_jacobian(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d fn / d x by central differences, shaped ``out.shape + x.shape``."""
    out_shape = np.shape(fn(x))
    cols = []
    for k in range(x.size):
        step = np.zeros_like(x)
        step.flat[k] = eps
        cols.append((np.asarray(fn(x + step)) - np.asarray(fn(x - step))) / (2 * eps))
    return np.stack(cols, -1).reshape(out_shape + x.shape)


def mlp_of_x(x: np.ndarray) -> np.ndarray:
    return mlp(Tensor(x), Tensor(W1), Tensor(B1), Tensor(W2)).asnumpy()


def t(a: np.ndarray) -> Tensor:
    return Tensor(a)


def test_jacrev_and_jacfwd_equal_finite_differences():
    args = (t(X), t(W1), t(B1), t(W2))
    fd_x = fd_jacobian(mlp_of_x, X)
    rev_x, rev_w1 = ops.jacrev(mlp, grad_position=(0, 1))(*args)
    assert rev_x.shape == (2, 2, 2, 3) and rev_w1.shape == (2, 2, 3, 4)
    np.testing.assert_allclose(rev_x.asnumpy(), fd_x, atol=1e-8)
    fd_w1 = fd_jacobian(lambda w: mlp(t(X), t(w), t(B1), t(W2)).asnumpy(), W1)
    np.testing.assert_allclose(rev_w1.asnumpy(), fd_w1, atol=1e-8)
    np.testing.assert_allclose(ops.jacfwd(mlp)(*args).asnumpy(), fd_x, atol=1e-8)


def test_vjp_and_jvp_equal_finite_differences_and_each_other():
    tx, ct = RNG.normal(size=X.shape), RNG.normal(size=(2, 2))
    f = lambda x: mlp(x, t(W1), t(B1), t(W2))  # noqa: E731
    out, pull = ops.vjp(f, t(X))
    np.testing.assert_allclose(out.asnumpy(), mlp_of_x(X))
    (g,) = pull(t(ct))
    jac = fd_jacobian(mlp_of_x, X)
    np.testing.assert_allclose(g.asnumpy(), np.tensordot(ct, jac, 2), atol=1e-8)
    out2, tangent = ops.jvp(f, t(X), t(tx))
    np.testing.assert_allclose(out2.asnumpy(), mlp_of_x(X))
    np.testing.assert_allclose(tangent.asnumpy(), np.tensordot(jac, tx, 2), atol=1e-8)
    # <ct, J tx> == <J^T ct, tx>
    np.testing.assert_allclose((ct * tangent.asnumpy()).sum(), (g.asnumpy() * tx).sum(), rtol=1e-12)


def test_result_structures_follow_mindspore():
    x, y = t(np.array([[1.0, 2.0], [3.0, 4.0]])), t(np.ones((2, 2)))

    def two(a):
        return a ** 3, a * 2

    out, pull, aux = ops.vjp(two, x, has_aux=True)
    assert isinstance(pull(t(np.ones((2, 2)))), tuple) and aux.shape == (2, 2)
    np.testing.assert_allclose(pull(t(np.ones((2, 2))))[0].asnumpy(), 3 * x.asnumpy() ** 2)
    grads = ops.vjp(lambda a, b: a * b, x, y)[1](t(np.ones((2, 2))))
    assert len(grads) == 2
    primal, tangents = ops.jvp(two, x, y)  # several outputs: a tuple of each
    assert len(primal) == 2 and len(tangents) == 2
    np.testing.assert_allclose(tangents[1].asnumpy(), 2 * np.ones((2, 2)))
    assert len(ops.jvp(two, x, y, has_aux=True)) == 3
    jac, aux = ops.jacrev(two, has_aux=True)(x)
    assert jac.shape == (2, 2, 2, 2) and np.allclose(aux.asnumpy(), 2 * x.asnumpy())
    per_output = ops.jacfwd(lambda a, b: (a ** 3, (a * b).sum()), grad_position=(0, 1))(x, y)
    assert [type(p) for p in per_output] == [tuple, tuple]
    assert per_output[1][0].shape == (2, 2) and per_output[0][1].shape == (2, 2, 2, 2)


def test_vjp_with_weights():
    w = Parameter(Tensor(np.array([0.5, -1.0])), name="w")
    out, pull = ops.vjp(lambda a: ops.sin(a * w), t(np.array([0.3, 0.8])), weights=[w])
    (gx,), (gw,) = pull(t(np.ones(2)))
    a, wv = np.array([0.3, 0.8]), np.array([0.5, -1.0])
    np.testing.assert_allclose(gx.asnumpy(), np.cos(a * wv) * wv, rtol=1e-12)
    np.testing.assert_allclose(gw.asnumpy(), np.cos(a * wv) * a, rtol=1e-12)


def test_hessians_forward_over_reverse_and_reverse_over_reverse():
    want = scalar_hessian(V)
    np.testing.assert_allclose(ops.jacfwd(ops.jacrev(scalar))(t(V)).asnumpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ops.jacrev(ops.jacrev(scalar))(t(V)).asnumpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ops.jacrev(ms.grad(scalar))(t(V)).asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_jvp_of_grad_is_a_hessian_vector_product():
    v = np.array([1.0, 0.0, -2.0, 0.5])
    _, hv = ops.jvp(ms.grad(scalar), t(V), t(v))
    np.testing.assert_allclose(hv.asnumpy(), scalar_hessian(V) @ v, rtol=1e-12)


def test_bad_tangents_name_the_input():
    with pytest.raises(ValueError, match=r"tangent of input 0 must be a Tensor of its shape \(2,\)"):
        ops.jvp(ops.sin, t(np.ones(2)), t(np.ones(3)))
    with pytest.raises(ValueError, match="has_aux=True: the function must return"):
        ops.jacrev(ops.sin, has_aux=True)(t(np.ones(2)))


@pytest.mark.slow
def test_graph_mode_equals_pynative():
    args = (t(X), t(W1), t(B1), t(W2))
    tx, ct = t(RNG.normal(size=X.shape)), t(RNG.normal(size=(2, 2)))
    f = lambda x: mlp(x, t(W1), t(B1), t(W2))  # noqa: E731

    def every():
        out, pull = ops.vjp(f, t(X))
        return (ops.jacrev(mlp, grad_position=(0, 1))(*args), ops.jacfwd(mlp)(*args),
                ops.jvp(f, t(X), tx), (out, pull(ct)), ops.jacfwd(ops.jacrev(scalar))(t(V)))

    eager, graph = run_in(ms.PYNATIVE_MODE, every), run_in(ms.GRAPH_MODE, every)

    def flat(v):
        return [a for item in v for a in flat(item)] if isinstance(v, tuple | list) else [v.asnumpy()]

    for g, e in zip(flat(graph), flat(eager), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.slow
def test_equal_torch_func(tmp_path):
    tx, ct = RNG.normal(size=X.shape), RNG.normal(size=(2, 2))
    ref = reference(SCRIPT, tmp_path, x=X, w1=W1, b1=B1, w2=W2, img=IMG, kernel=KERNEL, v=V, tx=tx, ct=ct)
    args = (t(X), t(W1), t(B1), t(W2))
    f = lambda x: mlp(x, t(W1), t(B1), t(W2))  # noqa: E731
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        def every():
            rev_x, rev_w1 = ops.jacrev(mlp, grad_position=(0, 1))(*args)
            return {"mlp_jacrev_x": rev_x, "mlp_jacrev_w1": rev_w1,
                    "mlp_jacfwd_x": ops.jacfwd(mlp)(*args),
                    "conv_jacrev": ops.jacrev(conv, grad_position=1)(t(IMG), t(KERNEL)),
                    "hessian": ops.jacfwd(ops.jacrev(scalar))(t(V)),
                    "jvp": ops.jvp(f, t(X), t(tx))[1], "vjp": ops.vjp(f, t(X))[1](t(ct))[0]}

        got = run_in(mode, every)
        for name, want in ref.items():
            np.testing.assert_allclose(got[name].asnumpy(), want, rtol=1e-9, atol=1e-11,
                                       err_msg=f"{name} (mode {mode})")


def _vmap_compositions():
    x = t(np.array([[0.3, -1.2], [2.0, 0.5]]))
    f = lambda a: (ops.sin(a) * a).sum()  # noqa: E731
    return (ms.vmap(ms.grad(f))(x), ms.vmap(ms.grad(ms.grad(f)))(x),
            ms.grad(lambda a: ms.vmap(lambda r: (r ** 3).sum())(a).sum())(x))


def _vmap_expected() -> list[np.ndarray]:
    x = np.array([[0.3, -1.2], [2.0, 0.5]])
    return [np.sin(x) + x * np.cos(x), 2 * np.cos(x) - x * np.sin(x), 3 * x ** 2]


def test_vmap_of_grad_and_grad_of_vmap():
    for got, want in zip(_vmap_compositions(), _vmap_expected(), strict=True):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)


@pytest.mark.slow
def test_vmap_of_grad_and_grad_of_vmap_graph_mode():
    for got, want in zip(run_in(ms.GRAPH_MODE, _vmap_compositions), _vmap_expected(), strict=True):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10)


def test_linearize_reuses_one_linearization_for_every_tangent():
    f = lambda x: mlp(x, t(W1), t(B1), t(W2))  # noqa: E731
    out, jvp_fn = ops.linearize(f, t(X))
    np.testing.assert_allclose(out.asnumpy(), mlp_of_x(X))
    jac = fd_jacobian(mlp_of_x, X)
    for _ in range(2):
        tx = RNG.normal(size=X.shape)
        np.testing.assert_allclose(jvp_fn(t(tx)).asnumpy(), np.tensordot(jac, tx, 2), atol=1e-8)


def test_derivative_of_any_order_equals_closed_forms():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    f = lambda a: ops.exp(ops.sin(a))  # noqa: E731
    e, s, c = np.exp(np.sin(x)), np.sin(x), np.cos(x)
    out, first = ops.derivative(f, t(x), 1)
    np.testing.assert_allclose(out.asnumpy(), e, rtol=1e-12)
    np.testing.assert_allclose(first.asnumpy(), c * e, rtol=1e-12)
    np.testing.assert_allclose(ops.derivative(f, t(x), 3)[1].asnumpy(),
                               e * (-c - 3 * s * c + c ** 3), rtol=1e-12)
    # several inputs move together: d^2/de^2 (x+e)^2 (y+e) = 2 (y + e) + 4 (x + e) at e = 0
    _, second = ops.derivative(lambda a, b: a * a * b, (t(x), t(x + 1)), 2)
    np.testing.assert_allclose(second.asnumpy(), 2 * (x + 1) + 4 * x, rtol=1e-12)
    with pytest.raises(ValueError, match="order must be an int >= 1"):
        ops.derivative(f, t(x), 0)
