"""The sampling and LSTM backward primitives of ``ops.operations._grad_ops``
(:mod:`tests.mindspore_ref.ms_grad_seq_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_grad_seq_expected.json``, CI), our two modes against each other, and
MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then checks against finite
differences of the forward ops they are the backward of."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework
from framework import Tensor, nn, ops
from framework.ops import operations as P
from framework.ops.operations import _grad_ops as G
from tests.finite_differences import numeric_grad
from tests.mindspore_ref.ms_grad_seq_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_grad_seq_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-4, "atol": 1e-5},
                               "half_precision": {"rtol": 2e-2, "atol": 5e-3}}, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------


def _weighted(forward, dy: np.ndarray):
    """``a -> sum(forward(a) * dy)`` on float64 arrays: the function whose gradient a VJP is."""
    return lambda *a: float((forward(*(Tensor(v) for v in a)).asnumpy() * dy).sum())


@pytest.mark.parametrize("mode,padding,corners", [("bilinear", "zeros", False),
                                                  ("bilinear", "reflection", True)])
def test_grid_sampler_2d_grad_is_the_forwards_derivative(mode, padding, corners):
    rng = np.random.default_rng(0)
    x, grid = rng.normal(size=(1, 2, 3, 4)), rng.uniform(-1.1, 1.1, size=(1, 2, 3, 2))
    dy = rng.normal(size=(1, 2, 2, 3))
    # ops.grid_sample: MindSpore's sampler with every padding mode (P.GridSampler2D here is mint's)
    def forward(a, g):
        return ops.grid_sample(a, g, mode, padding, corners)

    dx, dgrid = G.GridSampler2DGrad(mode, padding, corners)(Tensor(dy), Tensor(x), Tensor(grid))
    f = _weighted(forward, dy)
    np.testing.assert_allclose(dx.asnumpy(), numeric_grad(lambda a: f(a, grid), x), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(dgrid.asnumpy(), numeric_grad(lambda g: f(x, g), grid), rtol=1e-5, atol=1e-8)


def test_roi_align_grad_is_the_features_derivative():
    rng = np.random.default_rng(1)
    feats = rng.normal(size=(2, 2, 5, 6))
    rois = np.array([[0, 0.5, 1.0, 3.5, 3.2], [1, 1.0, 0.0, 4.0, 4.0]])
    dy = rng.normal(size=(2, 2, 3, 2))
    forward = P.ROIAlign(3, 2, 0.75, 2)
    ours = G.ROIAlignGrad(3, 2, 0.75, 2)(Tensor(dy), Tensor(rois), (2, 2, 5, 6)).asnumpy()
    expected = numeric_grad(lambda a: _weighted(forward, dy)(a, rois), feats)
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("corners,half", [(False, False), (True, False), (False, True)])
def test_resize_bicubic_grad_is_the_resizes_derivative(corners, half):
    rng = np.random.default_rng(2)
    image, dy = rng.normal(size=(1, 2, 3, 4)), rng.normal(size=(1, 2, 5, 3))
    forward = P.ResizeBicubic(corners, half)
    ours = G.ResizeBicubicGrad(corners, half)(Tensor(dy), Tensor(image)).asnumpy()
    expected = numeric_grad(lambda a: _weighted(lambda t: forward(t, (5, 3)), dy)(a), image)
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-8)


def test_deformable_offsets_grad_is_the_forwards_derivative():
    rng = np.random.default_rng(3)
    x, offsets = rng.normal(size=(1, 2, 3, 4)), rng.uniform(-0.9, 0.9, size=(1, 12, 2, 3))
    dy = rng.normal(size=(1, 2, 4, 6))
    args = ((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))
    forward = P.DeformableOffsets(*args)
    dx, doff = G.DeformableOffsetsGrad(*args)(Tensor(dy), Tensor(x), Tensor(offsets))
    f = _weighted(forward, dy)
    np.testing.assert_allclose(dx.asnumpy(), numeric_grad(lambda a: f(a, offsets), x), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(doff.asnumpy(), numeric_grad(lambda o: f(x, o), offsets), rtol=1e-5,
                               atol=1e-7)


def test_a_cotangent_of_the_wrong_shape_is_named():
    with pytest.raises(ValueError, match="GridSampler2DGrad: grad has shape"):
        G.GridSampler2DGrad()(Tensor(np.ones((1, 1, 2, 2), np.float32)),
                              Tensor(np.ones((1, 1, 3, 3), np.float32)),
                              Tensor(np.zeros((1, 3, 3, 2), np.float32)))


def _lstm_case(rng, input_size, hidden, layers, bias, bidirectional):
    directions = 2 if bidirectional else 1
    size = sum(directions * (4 * hidden * (input_size if k == 0 else hidden * directions)
                             + 4 * hidden * hidden + (4 * hidden if bias else 0)) for k in range(layers))
    cells = layers * directions
    x, w = rng.normal(size=(3, 2, input_size)), rng.normal(size=(size, 1, 1)) * 0.4
    h, c = rng.normal(size=(cells, 2, hidden)), rng.normal(size=(cells, 2, hidden))
    dy = rng.normal(size=(3, 2, hidden * directions))
    dh, dc = rng.normal(size=(cells, 2, hidden)), rng.normal(size=(cells, 2, hidden))
    return x, h, c, w, dy, dh, dc


@pytest.mark.parametrize("layers,bias,bidirectional", [
    (1, True, False), pytest.param(2, False, True, marks=pytest.mark.slow)])
def test_lstm_grad_is_the_lstms_derivative(layers, bias, bidirectional):
    x, h, c, w, dy, dh, dc = _lstm_case(np.random.default_rng(4), 2, 2, layers, bias, bidirectional)
    args = (2, 2, layers, bias, bidirectional, 0.0)
    forward = P.LSTM(*args)

    def weighted(*a):
        y, hy, cy = forward(*(Tensor(v) for v in a))[:3]
        return float((y.asnumpy() * dy).sum() + (hy.asnumpy() * dh).sum() + (cy.asnumpy() * dc).sum())

    y, hy, cy, reserve, _ = forward(Tensor(x), Tensor(h), Tensor(c), Tensor(w))
    grads = G.LSTMGrad(*args)(Tensor(x), Tensor(h), Tensor(c), Tensor(w), y, hy, cy, Tensor(dy), Tensor(dh),
                              Tensor(dc), reserve)
    inputs = [x, h, c, w]
    for k, ours in enumerate(grads):
        def moved(v, k=k):
            return weighted(*(v if j == k else a for j, a in enumerate(inputs)))

        np.testing.assert_allclose(ours.asnumpy(), numeric_grad(moved, inputs[k]), rtol=1e-5, atol=1e-8)


class _SplitBackward(nn.Cell):
    """The forward, then LSTMGrad, then LSTMGradData and LSTMGradWeight on the same reserve
    (the order MindSpore's GPU backward of P.LSTM calls them in)."""

    def __init__(self, *args):
        super().__init__()
        self.forward, self.full = P.LSTM(*args), G.LSTMGrad(*args)
        self.data, self.weight = G.LSTMGradData(*args), G.LSTMGradWeight(*args)

    def construct(self, x, h, c, w, dy, dh, dc):
        y, hy, cy, reserve, state = self.forward(x, h, c, w)
        full = self.full(x, h, c, w, y, hy, cy, dy, dh, dc, reserve)
        dx, dhx, dcx = self.data(y, dy, dh, dc, w, h, c, reserve, state)
        return full, (dx, dhx, dcx, self.weight(x, h, y, reserve, state))


@pytest.mark.parametrize("mode", ["pynative", pytest.param("graph", marks=pytest.mark.slow)])
def test_lstm_grad_data_and_weight_split_lstm_grad(mode):
    """MindSpore's CPU build has no LSTMGradData/LSTMGradWeight kernels: ours, together,
    give LSTMGrad's gradients, which match MindSpore (``lstm`` program) and finite
    differences (above)."""
    case = _lstm_case(np.random.default_rng(5), 4, 4, 2, True, True)
    framework.set_context(mode=framework.GRAPH_MODE if mode == "graph" else framework.PYNATIVE_MODE)
    try:
        full, split = _SplitBackward(4, 4, 2, True, True, 0.0)(*(Tensor(a) for a in case))
    finally:
        framework.set_context(mode=framework.PYNATIVE_MODE)
    assert tuple(split[3].shape) == (P.LSTM(4, 4, 2, True, True, 0.0).weights, 1, 1)
    for ours, expected in zip(split, full):
        np.testing.assert_allclose(ours.asnumpy().reshape(expected.shape), expected.asnumpy(), rtol=1e-12)


def test_lstm_grad_data_names_a_reserve_from_elsewhere():
    x, h, c, w, dy, dh, dc = _lstm_case(np.random.default_rng(6), 3, 4, 1, True, False)
    y, _, _, _, state = P.LSTM(3, 4, 1, True, False, 0.0)(Tensor(x), Tensor(h), Tensor(c), Tensor(w))
    with pytest.raises(ValueError, match="LSTMGradData: reserve must be P.LSTM's reserve output"):
        G.LSTMGradData(3, 4, 1, True, False, 0.0)(y, Tensor(dy), Tensor(dh), Tensor(dc), Tensor(w),
                                                  Tensor(h), Tensor(c), state, state)


def test_stacked_bidirectional_lstm_names_the_sizes_it_needs():
    """MindSpore's CPU kernel runs each direction as a stack of its own, which needs
    input_size == hidden_size (it fails otherwise, "could not create a primitive descriptor")."""
    x, h, c, w, *_ = _lstm_case(np.random.default_rng(7), 3, 4, 2, True, True)
    with pytest.raises(ValueError, match="LSTM: stacked bidirectional layers need input_size == hidden_size"):
        P.LSTM(3, 4, 2, True, True, 0.0)(Tensor(x), Tensor(h), Tensor(c), Tensor(w))
