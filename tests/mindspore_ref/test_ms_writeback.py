"""MindSpore 2.10's write-back of in-place updated arguments and its tensor hooks through
compiled functions (:mod:`tests.mindspore_ref.ms_writeback_programs`) in both modes: against
MindSpore's recorded answers (``ms_writeback_expected.json``, CI), our two modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. NumPy-derived checks of
the same features are in tests/framework/test_inplace_methods.py and test_hooks.py."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_writeback_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_writeback_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


def test_recorded_modes_agree():
    """MindSpore answers every program alike in its two modes (so no program is listed as
    mode-dependent)."""
    assert all(RECORDED.answer(n, "graph") == RECORDED.answer(n, "pynative") for n in RECORDED.names)
