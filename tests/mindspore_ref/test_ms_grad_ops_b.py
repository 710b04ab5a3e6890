"""The loss, PReLU, slice and trace backward primitives of ``ops.operations._grad_ops``
(:mod:`tests.mindspore_ref.ms_grad_ops_b_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_grad_ops_b_expected.json``, CI), our two modes against each other, and
MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then checks against finite
differences of the forward ops they are the backward of."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, ops
from framework.ops.operations import _grad_ops as G
from tests.finite_differences import numeric_grad
from tests.mindspore_ref.ms_grad_ops_b_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_grad_ops_b_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-6}})
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------


def test_smooth_l1_loss_grad_is_the_losss_derivative():
    rng = np.random.default_rng(0)
    p, t = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    beta = 0.7

    def loss(a):
        d = np.abs(a - t)
        return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).mean()

    ours = G.SmoothL1LossGrad(beta, "mean")(Tensor(p), Tensor(t), Tensor(np.float64(1.0)))
    np.testing.assert_allclose(ours.asnumpy(), numeric_grad(loss, p), rtol=1e-5, atol=1e-7)


def test_prelu_grad_is_the_forwards_derivative():
    rng = np.random.default_rng(1)
    x, w, dy = rng.normal(size=(2, 3, 4)), np.array([0.2, -0.5, 1.5]), rng.normal(size=(2, 3, 4))

    def forward(a, b):
        return (np.where(a > 0, a, a * b[None, :, None]) * dy).sum()

    dx, dw = G.PReLUGrad()(Tensor(dy), Tensor(x), Tensor(w))
    np.testing.assert_allclose(dx.asnumpy(), numeric_grad(lambda a: forward(a, w), x), rtol=1e-5)
    np.testing.assert_allclose(dw.asnumpy(), numeric_grad(lambda b: forward(x, b), w), rtol=1e-5)


def test_slice_grad_is_the_gradient_of_slice():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    dy = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    expected = ops.grad(lambda a: (ops.slice(a, (1, 2), (2, 2)) * dy).sum())(x)
    np.testing.assert_array_equal(G.SliceGrad()(dy, x, (1, 2), (2, 2)).asnumpy(), expected.asnumpy())


def test_slice_grad_rejects_a_slice_past_the_input_naming_it():
    with pytest.raises(ValueError, match="SliceGrad: begin"):
        G.SliceGrad()(Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones((2, 3), np.float32)),
                      (0, 2), (2, 2))


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad_grad_is_the_gradient_of_mirror_pad(mode):
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    pads = Tensor(np.array([[2, 1], [1, 2]], np.int64))
    dy = Tensor(np.random.default_rng(2).normal(size=(6, 7)).astype(np.float32))
    pad = ops.operations.MirrorPad(mode=mode)
    expected = ops.grad(lambda a: (pad(a, pads) * dy).sum())(x)
    np.testing.assert_allclose(G.MirrorPadGrad(mode)(dy, pads).asnumpy(), expected.asnumpy(), rtol=1e-6)


def test_strided_slice_grad_is_the_gradient_of_strided_slice():
    x = Tensor(np.arange(30, dtype=np.float32).reshape(5, 6))
    dy = Tensor(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    args = ((1, 0), (5, 6), (2, 2))
    expected = ops.grad(lambda a: (ops.strided_slice(a, *args) * dy).sum())(x)
    np.testing.assert_array_equal(G.StridedSliceGrad()(dy, (5, 6), *args).asnumpy(), expected.asnumpy())


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_grad_is_the_gradient_of_nll_loss(reduction):
    logits = Tensor(np.random.default_rng(3).normal(size=(4, 3)).astype(np.float32))
    labels = Tensor(np.array([2, 0, 1, 0], np.int32))
    weight = Tensor(np.array([0.5, 1.0, 2.0], np.float32))
    expected = ops.grad(lambda a: ops.nll_loss(a, labels, weight, reduction=reduction))(logits)
    total = Tensor(np.float32(weight.asnumpy()[labels.asnumpy()].sum()))
    ours = G.NLLLossGrad(reduction)(logits, Tensor(np.float32(1.0)), labels, weight, total)
    np.testing.assert_allclose(ours.asnumpy(), expected.asnumpy(), rtol=1e-6)


def test_mvlgamma_grad_is_the_derivative_of_mvlgamma():
    x = np.array([2.3, 3.1, 4.7])
    ours = G.MvlgammaGrad(3)(Tensor(np.ones(3)), Tensor(x)).asnumpy()
    numeric = numeric_grad(lambda a: ops.mvlgamma(Tensor(a), 3).asnumpy().sum(), x)
    np.testing.assert_allclose(ours, numeric, rtol=1e-5)


@pytest.mark.parametrize("align_corners", [False, True])
def test_resize_nearest_neighbor_grad_is_the_gradient_of_the_resize(align_corners):
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3))
    dy = Tensor(np.random.default_rng(4).normal(size=(1, 2, 5, 4)).astype(np.float32))
    resize = ops.operations.ResizeNearestNeighbor((5, 4), align_corners=align_corners)
    expected = ops.grad(lambda a: (resize(a) * dy).sum())(x)
    ours = G.ResizeNearestNeighborGrad(align_corners)(dy, (2, 3))
    np.testing.assert_allclose(ours.asnumpy(), expected.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 3.0])
def test_pdist_grad_is_the_derivative_of_pairwise_distances(p):
    x = np.random.default_rng(5).normal(size=(4, 3))
    g = np.array([1.0, -2.0, 0.5, 1.5, 3.0, -1.0])

    def weighted(a):
        i, j = np.triu_indices(len(a), 1)
        return (np.linalg.norm(a[i] - a[j], ord=p, axis=1) * g).sum()

    y = Tensor(np.array([np.linalg.norm(x[i] - x[j], ord=p) for i, j in zip(*np.triu_indices(4, 1))]))
    ours = G.PdistGrad(p)(Tensor(g), Tensor(x), y).asnumpy()
    np.testing.assert_allclose(ours, numeric_grad(weighted, x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss_grad_is_the_derivative_of_the_loss(p):
    x = np.random.default_rng(6).normal(size=(3, 4))
    target, weight = np.array([1, 3, 0]), np.array([0.5, 1.0, 2.0, 1.5])

    def loss(a):
        picked = a[np.arange(3), target][:, None]
        m = np.maximum(0.0, 0.7 - picked + a) ** p
        m[np.arange(3), target] = 0.0
        return (m.sum(1) * weight[target] / 4).mean()

    ours = G.MultiMarginLossGrad(p, 0.7)(Tensor(np.float64(1.0)), Tensor(x), Tensor(target),
                                         Tensor(weight))
    np.testing.assert_allclose(ours.asnumpy(), numeric_grad(loss, x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", ["reflect", "edge", "circular"])
def test_pad_v3_grad_is_the_gradient_of_pad_v3(mode):
    x = Tensor(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4))
    pads = Tensor(np.array([2, 1, 1, 2], np.int64))
    dy = Tensor(np.random.default_rng(7).normal(size=(1, 2, 6, 7)).astype(np.float32))
    # our PadV3 calls MindSpore's "edge" mode "replicate"
    pad = ops.operations.PadV3(mode="replicate" if mode == "edge" else mode)
    expected = ops.grad(lambda a: (pad(a, pads) * dy).sum())(x)
    np.testing.assert_allclose(G.PadV3Grad(mode)(dy, pads).asnumpy(), expected.asnumpy(), rtol=1e-5)


def test_pad_v3_grad_rejects_a_reflection_as_wide_as_its_axis():
    with pytest.raises(ValueError, match="PadV3Grad: paddings .* too wide"):
        G.PadV3Grad()(Tensor(np.ones((1, 2, 5), np.float32)), (2, 1))


@pytest.mark.parametrize("root", [False, True])
def test_sparse_segment_grads_are_the_forwards_derivatives(root):
    """The forward, written out: segment ``s`` = sum of rows ``idx[k]`` with ``seg[k] = s``
    over its count (or its square root); its derivative by finite differences."""
    x = np.random.default_rng(8).normal(size=(5, 2))
    idx, seg = np.array([4, 0, 4, 2, 1]), np.array([0, 0, 0, 2, 2])
    g = np.array([[1.0, -2.0], [0.5, 0.0], [3.0, 1.5]])

    def weighted(a):
        out = np.zeros((3, 2))
        np.add.at(out, seg, a[idx])
        counts = np.maximum(np.bincount(seg, minlength=3), 1)
        return (out / (np.sqrt(counts) if root else counts)[:, None] * g).sum()

    op = G.SparseSegmentSqrtNGrad() if root else G.SparseSegmentMeanGrad()
    ours = op(Tensor(g), Tensor(idx.astype(np.int32)), Tensor(seg.astype(np.int32)), 5).asnumpy()
    np.testing.assert_allclose(ours, numeric_grad(weighted, x), rtol=1e-6, atol=1e-8)


def test_max_pool_grad_with_argmax_is_the_gradient_of_max_pooling():
    x = np.random.default_rng(9).normal(size=(2, 3, 4, 6)).astype(np.float32)
    windows = x.reshape(2, 3, 2, 2, 3, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 3, 4)
    best = windows.argmax(-1)
    rows = np.arange(2)[:, None] * 2 + best // 2
    cols = np.arange(3)[None, :] * 2 + best % 2
    argmax = Tensor((rows * 6 + cols).astype(np.int32))
    dy = Tensor(np.random.default_rng(10).normal(size=(2, 3, 2, 3)).astype(np.float32))
    pool = ops.operations.MaxPool(kernel_size=2, strides=2)
    expected = ops.grad(lambda a: (pool(a) * dy).sum())(Tensor(x))
    ours = G.MaxPoolGradWithArgmax(kernel_size=2, strides=2)(Tensor(x), dy, argmax)
    np.testing.assert_allclose(ours.asnumpy(), expected.asnumpy(), rtol=1e-6)


def test_resize_linear_1d_grad_is_the_gradient_of_linear_interpolation():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(1, 2, 3))
    dy = Tensor(np.random.default_rng(11).normal(size=(1, 2, 7)).astype(np.float32))
    expected = ops.grad(lambda a: (ops.interpolate(a, size=(7,), mode="linear", align_corners=True)
                                   * dy).sum())(x)
    ours = G.ResizeLinear1DGrad()(dy, x)
    np.testing.assert_allclose(ours.asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)
