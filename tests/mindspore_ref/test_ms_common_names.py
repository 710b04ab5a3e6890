"""``mindspore.common``'s type classes, generic and low-precision dtypes and random-number
generators (:mod:`tests.mindspore_ref.ms_common_names_programs`) in both modes: against
MindSpore's recorded answers (``ms_common_names_expected.json``, CI), our modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_common_names_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# graph mode's compiled tanh gradient is within 4e-4 of MindSpore's (relative), PyNative's 1e-6
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_common_names_expected.json", per_mode=True,
                    tolerance={"recompute_block": {"rtol": 1e-3, "atol": 1e-5}})
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
