"""``dataset.audio``'s filters (:mod:`tests.mindspore_ref.ms_audio_programs`: every biquad,
``LFilter``, clamping, shapes, float16/32/64, ``map``, bad arguments) against MindSpore 2.10's
recorded answers (``ms_audio_expected.json``, CI), bit for bit (tolerance 0), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_audio_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_audio_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 0.0, "atol": 0.0}})
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
