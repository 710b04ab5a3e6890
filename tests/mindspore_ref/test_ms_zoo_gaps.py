"""The names the model zoo's networks needed (:mod:`tests.mindspore_ref.ms_zoo_gaps_programs`)
in both modes: against MindSpore 2.10's recorded answers per mode (``ms_zoo_gaps_expected.json``,
CI), our two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its
venv. Then, against NumPy, what MindSpore's CPU kernels get wrong (``StridedSlice``'s new-axis
and ellipsis masks, its gradients with masks, shrinking or negative strides; ``ClipByNorm``
over an axis of several rows), and the arguments refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ops import operations as P
from tests.mindspore_ref.ms_zoo_gaps_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import MODES

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_zoo_gaps_expected.json", per_mode=True,
                    tolerance=None, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- ours only ----------------------------------------------------------------------------
X = (np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) % 7 - 3) / 4
# (masks, begin, end, strides, the NumPy index they mean): where MindSpore 2.10's CPU kernels
# go wrong (new_axis/ellipsis values; gradients with masks, shrinking, negative strides)
SLICES = [
    ({"new_axis_mask": 0b10}, (0, 0, 1), (1, 1, 3), (1, 1, 1), np.s_[0:1, None, 1:3]),
    ({"ellipsis_mask": 0b1}, (0, 1), (0, 4), (1, 2), np.s_[..., 1:4:2]),
    ({"ellipsis_mask": 0b10}, (1, 0, 1), (2, 0, 4), (1, 1, 2), np.s_[1:2, ..., 1:4:2]),
    ({"shrink_axis_mask": 0b1}, (1, 0, 1), (2, 3, 4), (1, 2, 2), np.s_[1, 0:3:2, 1:4:2]),
    ({"begin_mask": 0b1, "end_mask": 0b100}, (1, 0, 3), (2, 2, 0), (1, 1, 1), np.s_[:2, 0:2, 3:]),
    ({"begin_mask": 0b10}, (1, 2, 1), (2, 3, 4), (1, 2, 2), np.s_[1:2, 0:3:2, 1:4:2]),
    ({}, (1, 2, 3, 4), (-3, 0, 0, 0), (-1, -1, -2, -1), np.s_[1:-3:-1, 2:0:-1, 3:0:-2, 4:0:-1]),
    ({"begin_mask": 0b1}, (1,), (0,), (-1,), np.s_[:0:-1]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", range(len(SLICES)))
def test_strided_slice_and_its_gradient_match_numpy(case, mode):
    masks, begin, end, strides, index = SLICES[case]
    strided = P.StridedSlice(**masks)

    def loss(t):
        y = strided(t, begin, end, strides)
        return (y * y).sum(), y

    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        fn = ms.value_and_grad(ms.jit(loss) if mode == "graph" else loss, has_aux=True)
        (_, y), grad = fn(Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(y.asnumpy(), X[index])
    want = np.zeros_like(X)
    np.add.at(want, index, 2 * X[index])
    np.testing.assert_allclose(grad.asnumpy(), want, rtol=1e-6)


def test_clip_by_norm_over_an_axis_matches_numpy():
    """MindSpore 2.10's CPU kernel mixes the rows up here; each row is scaled by its own norm."""
    x = np.array([[3.0, 4.0, 0.0, 0.0], [0.1, 0.2, 0.0, 0.1], [0.0, 0.0, 0.0, 0.0]], np.float32)
    got = nn.ClipByNorm(axis=1)(Tensor(x), Tensor(np.array([1.0], np.float32))).asnumpy()
    norms = np.sqrt((x * x).sum(1, keepdims=True))
    np.testing.assert_allclose(got, x / np.maximum(norms, 1.0), rtol=1e-6)
    grad = ms.grad(lambda t: nn.ClipByNorm(axis=1)(t, Tensor(np.array([1.0], np.float32))).sum())(Tensor(x))
    assert np.isfinite(grad.asnumpy()).all()  # the zero row: no 0/0 in the gradient


def test_strided_slice_and_gather_nd_refuse_bad_arguments():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="strides must not be 0"):
        ops.strided_slice(x, (0, 0), (1, 1), (1, 0))
    with pytest.raises(ValueError, match="one length"):
        ops.strided_slice(x, (0,), (1, 1), (1, 1))
    with pytest.raises(TypeError, match="tuple of ints"):
        ops.strided_slice(x, (0, 0.5), (1, 1), (1, 1))
    with pytest.raises(IndexError, match="out of range"):
        ops.gather_nd(x, Tensor(np.array([[1, 3]], np.int32)))
    with pytest.raises(ValueError, match="last axis"):
        ops.gather_nd(x, Tensor(np.array([[0, 0, 0]], np.int32)))
    with pytest.raises(ValueError, match="delta"):
        ops.make_range(0, 3, 0)
