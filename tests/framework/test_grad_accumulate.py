"""PyNative's gradient accumulation (framework/autograd/accumulate.py: in-place sums, slice
cotangents written into a buffer) against NumPy's hand-derived gradients, central finite
differences and graph mode: tensors used many times, overlapping slices, slices of slices,
one cotangent handed to several inputs (Add's bprop), mixed dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, ops

BLOCKS = [((0, 0), (2, 3)), ((1, 1), (3, 4)), ((0, 2), (4, 3)), ((2, 0), (1, 5))]


def sliced_sum(x, weights):
    """sum_k <w_k, x[block_k]> + <x, x> + sum((x + x)[:2]) + <w_0, x[:3][1:3, :3]>."""
    total = (x * x).sum() + (x + x)[:2].sum()
    for (begin, size), w in zip(BLOCKS, weights):
        total = total + (ops.slice_(x, begin, size) * w).sum()
    return total + (x[:3][1:3, :3] * weights[0]).sum()


def sliced_sum_grad(x, weights):
    grad = 2 * x
    grad[:2] += 2
    for (begin, size), w in zip(BLOCKS, weights):
        grad[begin[0]:begin[0] + size[0], begin[1]:begin[1] + size[1]] += w
    grad[1:3, :3] += weights[0]
    return grad


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_overlapping_slices_against_numpy(dtype) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6)).astype(dtype)
    weights = [rng.standard_normal(size).astype(dtype) for _, size in BLOCKS]
    grad = ms.grad(lambda t: sliced_sum(t, [Tensor(w) for w in weights]))(Tensor(x)).asnumpy()
    assert grad.dtype == dtype
    # float32: terms of size ~1 summed in some order (atol: a few of their ulps)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-13}
    np.testing.assert_allclose(grad, sliced_sum_grad(x.astype(np.float64), weights), **tol)


def test_one_cotangent_handed_to_two_inputs_stays_two() -> None:
    """Add's bprop gives its dout to both inputs: summing more into one of them must not
    change the other."""
    a, b = Tensor(np.arange(6.0).reshape(2, 3)), Tensor(np.ones((2, 3)))

    def f(a, b):
        s = a + b
        return s.sum() + (a[:, 1:] * 3.0).sum() + (a * a).sum() + (b[0] * 5.0).sum()

    ga, gb = ms.grad(f, (0, 1))(a, b)
    want_a = 1 + 2 * a.asnumpy()
    want_a[:, 1:] += 3
    want_b = np.ones((2, 3))
    want_b[0] += 5
    np.testing.assert_array_equal(ga.asnumpy(), want_a)
    np.testing.assert_array_equal(gb.asnumpy(), want_b)


def test_a_summed_cotangent_handed_on_is_not_summed_into() -> None:
    """s's cotangent is a sum (s is used twice); Add's bprop hands it to both a and b, and
    a's later contributions (from a * a, computed before s) must not reach b's."""
    a, b = Tensor(np.arange(6.0).reshape(2, 3)), Tensor(np.ones((2, 3)))

    def f(a, b):
        u = a * a
        s = a + b
        return s.sum() + (s * 2.0).sum() + u.sum()

    ga, gb = ms.grad(f, (0, 1))(a, b)
    np.testing.assert_array_equal(ga.asnumpy(), 3 + 2 * a.asnumpy())
    np.testing.assert_array_equal(gb.asnumpy(), np.full((2, 3), 3.0))


def halves(x):
    """Leaves of x (T, ...) by halving, as nn.LSTM splits its time-major input."""
    steps = x.shape[0]
    if steps == 1:
        return [x]
    half = steps // 2
    return halves(x[:half]) + halves(x[half:])


def test_slices_of_slices_against_numpy() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 2, 3))
    w = rng.standard_normal((8, 2, 3))

    def f(t):
        leaves = halves(t * 2.0)
        return sum(((leaf * float(k + 1)) * Tensor(w[k:k + 1])).sum()
                   for k, leaf in enumerate(leaves)) + (t[2:5] * t[2:5]).sum()

    grad = ms.grad(f)(Tensor(x)).asnumpy()
    want = 2.0 * np.arange(1, 9).reshape(8, 1, 1) * w
    want[2:5] += 2 * x[2:5]
    np.testing.assert_allclose(grad, want, rtol=1e-13)


def recurrent(x, w, steps=12):
    """A weight used at every step, gates sliced out of one block (an LSTM's pattern)."""
    h = ops.zeros((x.shape[0], 2), x.dtype)
    for t in range(steps):
        g = ops.matmul(ops.concat([x[:, t], h], 1), w)  # (N, 6)
        i, f, c = g[:, :2], g[:, 2:4], g[:, 4:]
        h = ops.sigmoid(i) * ops.tanh(c) + ops.sigmoid(f) * h
    return (h * h).sum()


def test_recurrent_weight_against_finite_differences() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 12, 4))
    w0 = rng.standard_normal((6, 6)) * 0.5
    w = Parameter(Tensor(w0), "w")
    grad = ms.grad(lambda t: recurrent(t, w), None, [w])(Tensor(x))[0].asnumpy()
    numeric = np.zeros_like(w0)
    eps = 1e-6
    for idx in np.ndindex(*w0.shape):
        for sign in (1, -1):
            shifted = w0.copy()
            shifted[idx] += sign * eps
            numeric[idx] += sign * float(recurrent(Tensor(x), Tensor(shifted)).asnumpy())
    np.testing.assert_allclose(grad, numeric / (2 * eps), rtol=1e-6, atol=1e-8)


def test_pynative_equals_graph_mode() -> None:
    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((3, 12, 4)).astype(np.float32))
    w = Parameter(Tensor((rng.standard_normal((6, 6)) * 0.5).astype(np.float32)), "w")
    grad_fn = ms.value_and_grad(lambda t: recurrent(t, w), None, [w])
    eager_loss, (eager,) = grad_fn(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_loss, (graph,) = ms.jit(grad_fn)(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(float(eager_loss.asnumpy()), float(graph_loss.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(eager.asnumpy(), graph.asnumpy(), rtol=1e-5, atol=1e-6)


def test_mixed_dtype_cotangents_keep_their_promotion() -> None:
    """A float32 slice cotangent joining a float64 one goes through F.add's promotion."""
    x = Tensor(np.arange(4.0))

    def f(x):
        return (ops.cast(x[1:3], ms.float32) * 2.0).sum() + (x * 1.5).sum()

    grad = ms.grad(f)(x).asnumpy()
    assert grad.dtype == np.float64
    np.testing.assert_array_equal(grad, [1.5, 3.5, 3.5, 1.5])
