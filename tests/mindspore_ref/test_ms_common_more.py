"""The rest of ``mindspore.common`` (:mod:`tests.mindspore_ref.ms_common_more_programs`:
``Symbol``, ``UntypedStorage``, ``flops_collection``, the saved-tensor hooks, ``load_mindir``
and ``save_mindir``) in both modes: against MindSpore's recorded answers
(``ms_common_more_expected.json``, CI), our modes against each other, and MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_common_more_programs import MODE_DEPENDENT, PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_common_more_expected.json", per_mode=True,
                    mode_dependent=MODE_DEPENDENT)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
