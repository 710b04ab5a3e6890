"""Value-dependent output shapes compiled (:mod:`tests.mindspore_ref.ms_value_shapes_programs`)
in both modes: against MindSpore 2.10's recorded answers (``ms_value_shapes_expected.json``,
CI), our two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names
its venv. Independent checks (NumPy, finite differences, compile counts) are in
tests/framework/test_value_shapes_graph.py."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_value_shapes_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_value_shapes_expected.json",
                    per_mode=True, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
