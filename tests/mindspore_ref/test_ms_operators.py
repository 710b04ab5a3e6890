"""Tensor's Python operators (:mod:`tests.mindspore_ref.ms_operators_programs`) in both modes:
against MindSpore's recorded answers (``ms_operators_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then the
shifts, which MindSpore 2.10's Tensor lacks (``x << 2`` raises there): checked against
NumPy's ``left_shift``/``right_shift`` in both modes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor
from tests.mindspore_ref.ms_operators_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_operators_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

X = np.array([5, -3, 12, 7, -128], np.int32)
S = np.array([1, 2, 0, 3, 4], np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_shifts_match_numpy_in_both_modes(dtype):
    x, s = X.astype(dtype), S.astype(dtype)
    for got in both_modes(lambda a, b: (a << b) + (a >> b) * 100 + (a << 3) - (a >> 1), x, s):
        want = (np.left_shift(x, s) + np.right_shift(x, s) * 100 + np.left_shift(x, 3)
                - np.right_shift(x, 1))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    for got in both_modes(lambda b: (1 << b) + (64 >> b), s):
        np.testing.assert_array_equal(got, np.left_shift(1, s) + np.right_shift(64, s))


def test_shifts_refuse_floats_and_negative_counts():
    with pytest.raises(TypeError, match="<<"):
        Tensor(np.ones(2, np.float32)) << 1
    with pytest.raises(TypeError, match=">>"):
        Tensor(X) >> 1.5
    with pytest.raises(ValueError, match="negative shift count"):
        Tensor(X) << -1
