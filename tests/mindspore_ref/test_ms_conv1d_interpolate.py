"""``nn.Conv1d``, ``ops.interpolate`` and ``ops.scatter_nd``
(:mod:`tests.mindspore_ref.ms_conv1d_interpolate_programs`) in both modes: against MindSpore's
recorded answers (``ms_conv1d_interpolate_expected.json``, CI), our two modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then what MindSpore's
asynchronous PyNative cannot show in a program: ``scatter_nd``'s errors, here one line each."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, ops
from tests.mindspore_ref.ms_conv1d_interpolate_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# bicubic/bilinear gradients sum many products: MindSpore's CPU kernels round otherwise
TOLERANCE = {"*": {"rtol": 1e-5, "atol": 1e-5}}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_conv1d_interpolate_expected.json",
                    per_mode=True, tolerance=TOLERANCE)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

IDX = Tensor(np.array([[0], [2]], np.int32))
UPD = Tensor(np.array([1.0, 2.0], np.float32))


def test_scatter_nd_errors_name_the_problem():
    with pytest.raises(RuntimeError, match=r"ScatterNd: indices \[\[5\]\] are out of range for shape \(4,\)"):
        ops.scatter_nd(Tensor(np.array([[5]], np.int32)), Tensor(np.array([1.0], np.float32)), (4,))
    with pytest.raises(RuntimeError, match="out of range"):
        ops.scatter_nd(Tensor(np.array([[-1]], np.int32)), Tensor(np.array([1.0], np.float32)), (4,))
    with pytest.raises(ValueError, match=r"updates must have shape \(2,\)"):
        ops.scatter_nd(IDX, UPD[:1], (4,))
    with pytest.raises(ValueError, match="last axis must be 1..1"):
        ops.scatter_nd(Tensor(np.array([[0, 1]], np.int32)), UPD[:1], (4,))
    with pytest.raises(TypeError, match="tuple of positive ints"):
        ops.scatter_nd(IDX, UPD, [4])
