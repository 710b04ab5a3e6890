"""MindSpore 2.10's hooks and in-place Tensor methods (:mod:`tests.mindspore_ref.
ms_hooks_programs`) in both modes: against MindSpore's recorded answers
(``ms_hooks_expected.json``, CI), our two modes against each other (except where
MindSpore's own modes differ), and MindSpore itself where ``MINDSPORE_PYTHON`` names its
venv. NumPy-derived checks of the same features are in tests/framework/test_hooks.py and
test_inplace_methods.py."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_hooks_programs import MODE_DEPENDENT, PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_hooks_expected.json", per_mode=True,
                    mode_dependent=MODE_DEPENDENT)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


def test_mode_dependent_programs_differ_in_the_recording():
    """The programs listed as mode-dependent are the ones MindSpore answers differently."""
    differ = {name for name in RECORDED.names
              if RECORDED.answer(name, "graph") != RECORDED.answer(name, "pynative")}
    assert differ == set(MODE_DEPENDENT)
