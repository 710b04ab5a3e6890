"""The long-standing ``P.*`` classes (:mod:`tests.mindspore_ref.ms_prims_cover_programs`:
elementwise, comparison, reduction, shape, indexing, nn, Parameter-update, constant and
sampling classes) in both modes: against MindSpore 2.10's recorded answers
(``ms_prims_cover_expected.json``, CI), our two modes against each other, and MindSpore
itself where ``MINDSPORE_PYTHON`` names its venv. Then NumPy-derived checks that need no
recording, and the two constructor forms that ``P.Conv2DBackpropInput`` and ``P.Multinomial``
keep (MindSpore's, and our primitives' own)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from framework.ops import conv, sorting
from tests.mindspore_ref.ms_prims_cover_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

P = ms.ops.operations

# MindSpore's float32 kernels round a little differently (Tanh's gradient 1 - y*y near
# saturation, LogSoftmax's log-sum-exp): ours are closer to the float64 values
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_prims_cover_expected.json", per_mode=True,
                    tolerance={"math_functions": {"rtol": 1e-5, "atol": 1e-5},
                               "nn_classes": {"rtol": 1e-4, "atol": 1e-5}},
                    mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
S = np.array([[0.5, -2.0, 1.5], [2.5, -0.7, 0.1]], np.float32)


# -- independent of the recording ---------------------------------------------------------
def test_floor_classes_follow_numpy():
    i, j = np.array([-7, 4, 0, 12], np.int32), np.array([3, -5, 5, -4], np.int32)
    np.testing.assert_array_equal(P.FloorDiv()(Tensor(i), Tensor(j)).asnumpy(), np.floor_divide(i, j))
    np.testing.assert_array_equal(P.FloorMod()(Tensor(i), Tensor(j)).asnumpy(), np.mod(i, j))
    np.testing.assert_allclose(P.FloorMod()(Tensor(R), Tensor(S)).asnumpy(), np.mod(R, S), rtol=1e-6,
                               atol=1e-6)


def test_batchnorm_inference_gradient_is_scale_over_std():
    """d(sum y)/dx of inference BatchNorm is scale / sqrt(var + eps) per channel (MindSpore
    2.10's CPU kernel gives other values here, so this is not in the recorded set)."""
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2))
    scale, var = np.array([0.5, -2.0, 1.5], np.float32), np.array([0.2, 0.5, 1.0], np.float32)

    def loss(x):
        zeros, ones = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
        return P.BatchNorm()(x, Tensor(scale), zeros, ones, Tensor(var))[0].sum()

    want = np.broadcast_to((scale / np.sqrt(var + 1e-5)).reshape(1, 3, 1, 1), (2, 3, 2, 2))
    np.testing.assert_allclose(ops.grad(loss)(x).asnumpy(), want, rtol=1e-6)


def test_conv2d_backprop_input_is_conv2d_gradient():
    x = Tensor(np.linspace(-1, 1, 2 * 2 * 5 * 4, dtype=np.float32).reshape(2, 2, 5, 4))
    w = Tensor(np.linspace(1, -0.5, 3 * 2 * 3 * 3, dtype=np.float32).reshape(3, 2, 3, 3))
    dy = Tensor(np.linspace(0.3, -2, 2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2))
    fwd = P.Conv2D(3, 3, pad_mode="pad", pad=(1, 0, 0, 1), stride=(2, 2))

    def loss(x):
        return (fwd(x, w) * dy).sum()

    got = P.Conv2DBackpropInput(3, 3, pad_mode="pad", pad=(1, 0, 0, 1), stride=2)(dy, w, (2, 2, 5, 4))
    np.testing.assert_allclose(got.asnumpy(), ops.grad(loss)(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert isinstance(P.Conv2DTranspose(3, 3), P.Conv2DBackpropInput)


def test_keyword_forms_give_our_primitives():
    assert type(P.Conv2DBackpropInput(input_shape=(1, 2, 4, 4), stride=1)) is conv.Conv2DBackpropInput
    assert type(P.Multinomial(4, False, 7)) is sorting.Multinomial
    assert type(P.Multinomial(num_samples=3)) is sorting.Multinomial
    assert not isinstance(P.Multinomial(seed=2), sorting.Multinomial)


@pytest.mark.parametrize("dtype", [ms.int32, ms.int64])
def test_multinomial_draws_only_weighted_classes(dtype):
    weights = Tensor(np.array([[0.0, 2.0, 0.0, 1.0], [5.0, 0.0, 0.0, 0.0]], np.float32))
    out = P.Multinomial(seed=1, dtype=dtype)(weights, 300)
    drawn = out.asnumpy()
    assert out.dtype == dtype and drawn.shape == (2, 300)
    assert set(drawn[0].tolist()) == {1, 3} and set(drawn[1].tolist()) == {0}
    assert 0.55 < float(np.mean(drawn[0] == 1)) < 0.8
