"""MindSpore's math names added from the spec (:mod:`tests.mindspore_ref.ms_ops_math_programs`)
in both modes: against MindSpore's recorded answers (``ms_ops_math_expected.json``, CI), our
two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.
Checks MindSpore cannot answer (random draws, values it gets wrong) follow, against NumPy
and finite differences."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_ops_math_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# MindSpore's special-function kernels are single-precision approximations (~1e-5 relative
# from the correctly rounded values ours give); float16 results differ by an ulp of float16
TOL = {"rtol": 1e-4, "atol": 1e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_ops_math_expected.json", per_mode=True,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
