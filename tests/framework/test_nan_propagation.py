"""NaN propagates through ReLU, Maximum/Minimum and MaxPool in graph mode as in PyNative
(NumPy's rules): graph mode used to drop it (TIR's max/min are order-dependent compares and
TOPI's max reduction skips NaN), so a NaN input trained on silently there while PyNative's
loss check stopped the run (issue 28, item 2). Values and gradients, both modes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

NAN = np.nan


def _inputs():
    x = np.array([[NAN, 1.0, -1.0, 2.0], [0.5, -2.0, NAN, 3.0]], np.float32)
    y = np.array([1.0, NAN, NAN, 0.0], np.float32)  # broadcast over x's rows
    img = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) - 10.0
    img[0, 0, 0, 0] = NAN
    img[0, 1, 3, 2] = NAN
    return Tensor(x), Tensor(y), Tensor(img)


def _forward(x, y, img):
    pool = nn.MaxPool2d(2, 2)
    return (ops.relu(x), ops.maximum(x, y), ops.maximum(y, x), ops.minimum(x, y),
            ops.minimum(y, x), pool(img), nn.MaxPool2d(3, 1, pad_mode="same")(img))


def _both(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eager = fn(*args)
    return eager, ms.jit(fn)(*args)


def test_nan_propagates_in_both_modes():
    eager, graph = _both(_forward, *_inputs())
    for i, (e, g) in enumerate(zip(eager, graph, strict=True)):
        e, g = e.asnumpy(), g.asnumpy()
        assert np.array_equal(e, g, equal_nan=True), (i, e, g)
    assert np.isnan(graph[0].asnumpy()[0, 0]) and np.isnan(graph[5].asnumpy()[0, 0, 0, 0])


@pytest.mark.parametrize("which", ["relu", "maximum", "minimum", "max_pool"])
def test_gradients_around_nan_agree(which):
    x, y, img = _inputs()

    def loss(x, y, img):
        if which == "relu":
            out = ops.relu(x) * 3.0
        elif which == "maximum":
            out = ops.maximum(x, y) * 2.0
        elif which == "minimum":
            out = ops.minimum(x, y) * 2.0
        else:
            out = nn.MaxPool2d(2, 2)(img) * 2.0
        # the NaN entries are masked out of the loss: what is compared is where the
        # gradient lands for the finite ones, and that none lands because of a NaN
        return ops.select(out == out, out, ops.zeros_like(out)).sum()

    eager, graph = _both(ms.grad(loss, (0, 1, 2)), x, y, img)
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis,keep", [(1, False), ((0, 2), True), (-1, False)])
def test_reduce_max_of_nan_and_all_minus_inf_slices(dtype, axis, keep):
    """ReduceMax: a slice of -inf only gives -inf (graph mode gave the lowest finite float,
    TVM's max starting value), a slice holding a NaN gives NaN, the lowest finite float
    itself survives; the values of NumPy's max, both modes."""
    lowest = np.finfo(dtype).min
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(dtype)
    x[0, :, :] = -np.inf
    x[:, 2, :] = -np.inf
    x[1, :, 3] = -np.inf
    x[2, 1, 1] = NAN
    x[2, 3, :] = lowest
    x[2, 3, 0] = -np.inf
    eager, graph = _both(lambda t: ops.ReduceMax(keep_dims=keep)(t, axis), Tensor(x))
    want = np.max(x, axis=axis, keepdims=keep)
    assert np.isneginf(want).any() and np.isnan(want).any()
    np.testing.assert_array_equal(eager.asnumpy(), want)
    np.testing.assert_array_equal(graph.asnumpy(), want)


def test_a_window_of_minus_infinity_pools_to_minus_infinity_in_both_modes():
    # a 2x2 pool's window is one expression (lower/te_kernels._window_max): its max starts
    # from the window's first entry, not from the lowest float32 (-inf stays -inf, as NumPy)
    img = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    img[0, 0, :2, :2] = -np.inf
    img[0, 0, 2:, 2:] = [[-np.inf, NAN], [1.0, 2.0]]
    eager, graph = _both(lambda t: nn.MaxPool2d(2, 2)(t), Tensor(img))
    want = np.array([[[[-np.inf, 7.0], [13.0, NAN]]]], np.float32)
    np.testing.assert_array_equal(eager.asnumpy(), want)
    np.testing.assert_array_equal(graph.asnumpy(), want)
