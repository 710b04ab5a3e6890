"""The special-function and linear-algebra ``P.*`` classes
(:mod:`tests.mindspore_ref.ms_prims_special_programs`) in both modes: against MindSpore 2.10's
recorded answers (``ms_prims_special_expected.json``, CI), our two modes against each other,
and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_prims_special_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# MindSpore's single-precision special-function kernels against ours (float64, rounded)
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_prims_special_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-4, "atol": 1e-5}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
