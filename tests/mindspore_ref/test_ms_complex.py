"""MindSpore 2.10's complex tensors (:mod:`tests.mindspore_ref.ms_complex_programs`) in both
modes: against MindSpore's recorded answers (``ms_complex_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.
Independent checks (NumPy references, finite differences, the interpreted graph mode) are in
tests/framework/test_complex.py."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_complex_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_complex_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-6, "atol": 1e-6}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
