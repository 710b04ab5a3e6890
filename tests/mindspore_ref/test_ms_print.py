"""``print`` in compiled code and ``ops.Print`` (:mod:`tests.mindspore_ref.ms_print_programs`)
in both modes: against MindSpore 2.10's recorded answers (``ms_print_expected.json``, CI),
our two modes against each other (except ``cell_construct``, whose ``construct`` runs as
Python in PyNative), and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. The
format rules are checked against NumPy in ``tests/framework/test_print_format.py``."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_print_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_print_expected.json", per_mode=True,
                    tolerance=None, mode_dependent=("cell_construct",))
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
