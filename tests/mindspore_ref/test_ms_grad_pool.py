"""The pooling and dilation backward primitives of ``ops.operations._grad_ops``
(:mod:`tests.mindspore_ref.ms_grad_pool_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_grad_pool_expected.json``, CI), our two modes against each other, and
MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then the names MindSpore's CPU
build cannot run, against finite differences of the forward or our forward's gradient."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from framework.ops import operations as P
from framework.ops.operations import _grad_ops as G
from tests.finite_differences import numeric_grad
from tests.mindspore_ref.ms_grad_pool_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_grad_pool_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-6}}, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- the names MindSpore's CPU build cannot run, and ours beyond what it runs --------------
def _both_modes(fn, *tensors):
    """``fn``'s results (numpy) in PyNative and compiled (``ms.jit``)."""
    return [np.asarray(r.asnumpy()) for r in (fn(*tensors), ms.jit(fn)(*tensors))]


def _distinct(shape, seed):
    """Values without ties, so each window's maximum (and the derivative) is unique."""
    rng = np.random.default_rng(seed)
    return rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 + rng.normal(size=shape) * 0.01




@pytest.mark.parametrize("pad_mode", ["VALID", "SAME"])
def test_avg_pool_grad_v1_is_the_gradient_of_avg_pool(pad_mode):
    x = Tensor(_distinct((2, 3, 5, 6), 0).astype(np.float32))
    pool = P.AvgPool(kernel_size=3, strides=2, pad_mode=pad_mode)
    dy = Tensor(np.random.default_rng(1).normal(size=pool(x).shape).astype(np.float32))
    expected = ops.grad(lambda a: (pool(a) * dy).sum())(x).asnumpy()
    grad = G.AvgPoolGradV1((1, 1, 3, 3), (1, 1, 2, 2), pad_mode)
    shape = Tensor(np.array([2, 3, 5, 6], np.int32))
    for ours in _both_modes(lambda d: grad(shape, d), dy):
        np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("pad_mode", ["VALID", "SAME"])
def test_max_pool_grad_v1_is_the_gradient_of_max_pool(pad_mode):
    x = Tensor(_distinct((2, 2, 5, 7), 2).astype(np.float32))
    pool = P.MaxPool(kernel_size=(3, 2), strides=2, pad_mode=pad_mode)
    y = pool(x)
    dy = Tensor(np.random.default_rng(3).normal(size=y.shape).astype(np.float32))
    expected = ops.grad(lambda a: (pool(a) * dy).sum())(x).asnumpy()
    grad = G.MaxPoolGradV1((3, 2), 2, pad_mode)
    for ours in _both_modes(grad, x, y, dy):
        np.testing.assert_allclose(ours, expected, rtol=1e-6)


def test_nhwc_pool_gradients_are_the_nchw_ones_transposed():
    x = Tensor(_distinct((2, 3, 4, 6), 4).astype(np.float32))
    d = Tensor(np.random.default_rng(5).normal(size=(2, 3, 2, 3)).astype(np.float32))
    nhwc = (0, 2, 3, 1)
    y = P.MaxPool(2, 2)(x)
    for name in ("AvgPoolGrad", "MaxPoolGradV1"):
        nchw = getattr(G, name)(2, 2)(x, y, d).asnumpy()
        other = getattr(G, name)(2, 2, data_format="NHWC")(x.transpose(nhwc), y.transpose(nhwc),
                                                            d.transpose(nhwc))
        np.testing.assert_allclose(other.asnumpy(), nchw.transpose(nhwc), rtol=1e-6, err_msg=name)


def test_max_pool_grad_grad_is_max_pools_directional_derivative():
    """``MaxPoolGradGrad(x, out, g)`` is ``d/dt MaxPool(x + t g)`` at 0 (the tangent map)."""
    x, g = _distinct((1, 2, 5, 5), 6), np.random.default_rng(7).normal(size=(1, 2, 5, 5))
    pool = P.MaxPool(kernel_size=3, strides=2, pad_mode="SAME")
    eps = 1e-6
    numeric = (pool(Tensor(x + eps * g)).asnumpy() - pool(Tensor(x - eps * g)).asnumpy()) / (2 * eps)
    ours = G.MaxPoolGradGrad(3, 2, "SAME")(Tensor(x), pool(Tensor(x)), Tensor(g))
    np.testing.assert_allclose(ours.asnumpy(), numeric, rtol=1e-6, atol=1e-8)


def test_fractional_max_pool_grad_keeps_batch_entries_apart():
    """MindSpore's CPU kernel mixes batch entries (the recording uses N = 1); ours for N = 2
    is each entry's gradient alone."""
    x = Tensor(_distinct((2, 5, 6, 2), 8).astype(np.float32))
    rows, cols = Tensor(np.array([0, 2, 3, 5], np.int64)), Tensor(np.array([0, 1, 3, 4, 6], np.int64))
    dy = Tensor(np.random.default_rng(9).normal(size=(2, 3, 4, 2)).astype(np.float32))
    grad = G.FractionalMaxPoolGrad()
    whole = grad(x, dy, dy, rows, cols).asnumpy()
    for n in range(2):
        alone = grad(x[n:n + 1], dy[n:n + 1], dy[n:n + 1], rows, cols).asnumpy()
        np.testing.assert_array_equal(whole[n:n + 1], alone)


def _dilation2d(x, f, stride, dilation, pad_mode):
    """Morphological dilation (TensorFlow's definition, NCHW), written out."""
    n, c, h, w = x.shape
    _, kh, kw = f.shape
    outs, befores = [], []
    for size, k in ((h, kh), (w, kw)):
        span = (k - 1) * dilation + 1
        out = -(-size // stride) if pad_mode == "SAME" else -(-(size - span + 1) // stride)
        outs.append(out)
        befores.append(max((out - 1) * stride + span - size, 0) // 2 if pad_mode == "SAME" else 0)
    y = np.full((n, c, *outs), -np.inf)
    for i, j, a, b in np.ndindex(outs[0], outs[1], kh, kw):
        r, q = i * stride + a * dilation - befores[0], j * stride + b * dilation - befores[1]
        if 0 <= r < h and 0 <= q < w:
            y[:, :, i, j] = np.maximum(y[:, :, i, j], x[:, :, r, q] + f[None, :, a, b])
    return y


@pytest.mark.parametrize("stride, dilation, pad_mode", [
    (2, 1, "SAME"), *(pytest.param(*args, marks=pytest.mark.slow)
                      for args in ((1, 1, "VALID"), (1, 2, "SAME"), (2, 2, "VALID")))])
def test_dilation2d_backprops_are_the_dilations_derivatives(stride, dilation, pad_mode):
    x, f = _distinct((2, 2, 6, 7), 10), _distinct((2, 3, 2), 11)  # odd SAME padding
    dy = np.random.default_rng(12).normal(size=_dilation2d(x, f, stride, dilation, pad_mode).shape)
    args = stride, dilation, pad_mode
    want_x = numeric_grad(lambda a: (_dilation2d(a, f, *args) * dy).sum(), x)
    want_f = numeric_grad(lambda b: (_dilation2d(x, b, *args) * dy).sum(), f)
    tensors = Tensor(x), Tensor(f), Tensor(dy)
    for ours in _both_modes(G.Dilation2DBackpropInput(stride, dilation, pad_mode), *tensors):
        np.testing.assert_allclose(ours, want_x, rtol=1e-6, atol=1e-8)
    for ours in _both_modes(G.Dilation2DBackpropFilter((1, 1, stride, stride), dilation, pad_mode),
                            *tensors):
        np.testing.assert_allclose(ours, want_f, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("make, args, match", [
    (lambda: G.MaxPoolGradGrad(2, 2), ((1, 1, 4, 4), (1, 1, 3, 2), (1, 1, 4, 4)), "MaxPoolGradGrad: out"),
    (lambda: G.MaxPool3DGrad(2, 2), ((1, 1, 4, 4, 4), (1, 1, 2, 2, 2), (1, 1, 3, 2, 2)),
     "MaxPool3DGrad: grad"),
    (lambda: G.Dilation2DBackpropInput(1, 1, "VALID"), ((1, 2, 4, 4), (3, 2, 2), (1, 2, 3, 3)),
     "Dilation2DBackpropInput: x must be"),
    (lambda: G.MaxUnpool2DGrad((1, 1, 2, 2)), ((1, 1, 2, 2), (1, 1, 4, 4), (1, 1, 2, 3)),
     "MaxUnpool2DGrad: x"),
])
def test_mismatched_shapes_name_the_primitive(make, args, match):
    tensors = [Tensor(np.zeros(shape, np.float32)) for shape in args]
    if "Unpool" in match:
        tensors[2] = Tensor(np.zeros(args[2], np.int64))
    with pytest.raises(ValueError, match=match):
        make()(*tensors)


def test_window_attributes_are_checked_when_built():
    with pytest.raises(ValueError, match="AvgPoolGrad: kernel_size"):
        G.AvgPoolGrad(kernel_size=(2, 2, 2))
    with pytest.raises(ValueError, match="MaxPool3DGrad: pad_mode"):
        G.MaxPool3DGrad(pad_mode="full")
