"""Degenerate integer and empty input (:mod:`tests.mindspore_ref.ms_degenerate_programs`:
integer ``//``/``%`` at the trapping edges, negative integer powers, reductions over an
empty axis, a convolution of an empty batch) in both modes: against MindSpore 2.10's
recorded answers (``ms_degenerate_expected.json``, CI), our two modes against each other,
and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_degenerate_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_degenerate_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
