"""MindSpore's JIT Fallback and JIT syntax support (:mod:`tests.mindspore_ref.ms_fallback_programs`)
in both modes: against MindSpore 2.10's recorded answers (``ms_fallback_expected.json``, CI),
our two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its
venv. Independent checks (NumPy references, the interpreted path) are in
tests/framework/test_jit_fallback.py."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_fallback_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_fallback_expected.json", per_mode=True,
                    tolerance=None, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
