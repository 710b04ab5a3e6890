"""Absent names (:mod:`tests.mindspore_ref.ms_absent_names_programs`): the kind of error,
``hasattr`` and ``getattr``'s default in each namespace, against MindSpore's recorded answers
(``ms_absent_names_expected.json``, CI) and MindSpore itself where ``MINDSPORE_PYTHON`` names
its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_absent_names_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_absent_names_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
