"""``dataset.transforms``, ``dataset.text`` and ``dataset.vision`` (:mod:`tests.mindspore_ref.
ms_dataset_names_programs`: every public name, eager and in ``map``, bad arguments) against
MindSpore 2.10's recorded answers (``ms_dataset_names_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.

Exact (tolerance 0) but for the ``*_approx`` programs: interpolations, hue and JPEG decoding
that MindSpore computes with OpenCV's and libjpeg-turbo's fixed-point arithmetic, within
one or two grey levels."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.dataset import config
from tests.mindspore_ref.ms_dataset_names_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

EXACT = {"rtol": 0.0, "atol": 0.0}
TOLERANCE = {"*": EXACT, "vision_color_approx": {"rtol": 0.0, "atol": 1.0},
             "vision_warps_approx": {"rtol": 0.0, "atol": 1.0}, "vision_jpeg_approx": {"rtol": 0.0, "atol": 2.0}}

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_dataset_names_expected.json", per_mode=True,
                    tolerance=TOLERANCE)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


@pytest.fixture(autouse=True)
def _no_dataset_seed_left_behind():
    yield
    config._seed = None
