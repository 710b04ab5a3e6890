"""The volume pooling and resampling, CTC, band-matrix, least-squares, spectral and summary
``P.*`` classes (:mod:`tests.mindspore_ref.ms_prims_more_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_prims_more_expected.json``, CI), our two modes against each other,
and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.mindspore_ref.ms_prims_more_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# MindSpore's single-precision kernels (trilinear weights, FFTs, CTC sums) against ours
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_prims_more_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-4, "atol": 1e-5}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = (pytest.mark.slow(t) for t in RECORDED.tests())  # graph compiles: ~30 s


# MindSpore's CPU build cannot run these two (ms_prims_more_programs.UNTESTABLE): NumPy checks
def test_move_to_copies_the_values_in_both_modes():
    import framework as ms
    from tests.mindspore_ref.reference import both_modes

    x = np.linspace(-2.0, 3.0, 12, dtype=np.float32).reshape(3, 4)
    for out in both_modes(lambda t: ms.ops.operations.MoveTo()(t, "CPU", True) * 2.0, x):
        np.testing.assert_array_equal(out, x * 2.0)
    with pytest.raises(ValueError, match="'CPU', 'Ascend' or 'GPU'"):
        ms.ops.operations.MoveTo()(ms.Tensor(x), "TPU")


def test_coalesce_sums_repeated_positions_in_row_major_order():
    import framework as ms

    rng = np.random.default_rng(5)
    indices = rng.integers(0, 3, size=(2, 9)).astype(np.int64)
    values = rng.normal(size=9).astype(np.float32)
    dense = np.zeros((3, 4), np.float32)
    np.add.at(dense, tuple(indices), values)
    occupied = np.unique(np.ravel_multi_index(tuple(indices), (3, 4)))  # sorted flat positions
    out_indices, out_values, out_shape = ms.ops.operations.Coalesce()(
        ms.Tensor(indices), ms.Tensor(values), ms.Tensor(np.array([3, 4], np.int64)))
    np.testing.assert_array_equal(out_indices.asnumpy(), np.stack(np.unravel_index(occupied, (3, 4))))
    np.testing.assert_allclose(out_values.asnumpy(), dense.reshape(-1)[occupied], rtol=1e-6)
    np.testing.assert_array_equal(out_shape.asnumpy(), [3, 4])
    assert out_indices.dtype == ms.int64 and out_values.dtype == ms.float32


def test_ragged_range_says_it_needs_pynative_and_refuses_a_zero_delta():
    import framework as ms

    class Net(ms.nn.Cell):
        def construct(self, starts, limits, deltas):
            return ms.ops.operations.RaggedRange(ms.int32)(starts, limits, deltas)

    three = [ms.Tensor(np.array(v, np.int32)) for v in ([0, 1], [4, 5], [1, 2])]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError, match="RaggedRange: its output shape depends on the input values"):
            Net()(*three)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="deltas must not be 0"):
        Net()(three[0], three[1], ms.Tensor(np.array([1, 0], np.int32)))


@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_max_pool_pools_its_windows_and_sends_the_gradient_to_their_maxima(overlapping):
    import framework as ms

    x = np.sin(np.arange(2 * 7 * 6 * 3) * 0.77).reshape(2, 7, 6, 3).astype(np.float32)
    pool = ms.ops.operations.FractionalMaxPool([1.0, 1.5, 1.44, 1.0], True, overlapping)
    weights = np.cos(np.arange(2 * 4 * 4 * 3)).reshape(2, 4, 4, 3).astype(np.float32)
    ms.set_seed(7)
    y, rows, cols = (t.asnumpy() for t in pool(ms.Tensor(x)))
    ms.set_seed(7)  # the same draws: the same windows
    grad = ms.ops.grad(lambda t: (pool(t)[0] * ms.Tensor(weights)).sum())(ms.Tensor(x)).asnumpy()
    extra = 1 if overlapping else 0
    expected_grad = np.zeros((2, 7 * 6, 3), np.float64)
    for i in range(4):
        for j in range(4):
            r1, c1 = min(rows[i + 1] + extra, 7), min(cols[j + 1] + extra, 6)
            patch = x[:, rows[i]:r1, cols[j]:c1, :]
            np.testing.assert_array_equal(y[:, i, j], patch.max(axis=(1, 2)))
            first = patch.reshape(2, -1, 3).argmax(axis=1)  # (2, 3): the first maximum
            width = c1 - cols[j]
            flat = (rows[i] + first // width) * 6 + cols[j] + first % width
            for n in range(2):
                for ch in range(3):
                    expected_grad[n, flat[n, ch], ch] += weights[n, i, j, ch]
    np.testing.assert_allclose(grad, expected_grad.reshape(x.shape), rtol=1e-6)
