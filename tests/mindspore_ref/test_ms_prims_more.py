"""The volume pooling and resampling, CTC, band-matrix, least-squares, spectral and summary
``P.*`` classes (:mod:`tests.mindspore_ref.ms_prims_more_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_prims_more_expected.json``, CI), our two modes against each other,
and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mindspore_ref.ms_prims_more_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# MindSpore's single-precision kernels (trilinear weights, FFTs, CTC sums) against ours
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_prims_more_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-4, "atol": 1e-5}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = (pytest.mark.slow(t) for t in RECORDED.tests())  # graph compiles: ~30 s
