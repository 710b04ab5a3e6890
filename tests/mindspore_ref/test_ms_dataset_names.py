"""``dataset.transforms``, ``dataset.text`` and ``dataset.vision`` (:mod:`tests.mindspore_ref.
ms_dataset_names_programs`: every public name, eager and in ``map``, bad arguments) against
MindSpore 2.10's recorded answers (``ms_dataset_names_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.

Exact (tolerance 0) but for the ``*_approx`` programs: interpolations, gamma and JPEG
decoding that MindSpore computes with OpenCV's and libjpeg-turbo's fixed-point arithmetic,
within one or two grey levels; ``AdjustHue``'s 8-bit HSV round trip within four."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.dataset import config
from tests.mindspore_ref.ms_dataset_names_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

EXACT = {"rtol": 0.0, "atol": 0.0}
TOLERANCE = {"*": EXACT,
             "first_names": {"rtol": 1e-6, "atol": 1e-6},  # float32 rounding order of Rescale, Normalize
             "vision_color_approx": {"rtol": 0.0, "atol": 1.0},
             "vision_hue_approx": {"rtol": 1e-6, "atol": 4.0},
             # colorsys run on NumPy 1 scalars rounds some hues through float32 (one ulp)
             "vision_color_conversions": {"rtol": 1e-6, "atol": 1e-7},
             "vision_warps_approx": {"rtol": 0.0, "atol": 1.0},
             "vision_jpeg_approx": {"rtol": 0.0, "atol": 2.0}}

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_dataset_names_expected.json", per_mode=True,
                    tolerance=TOLERANCE)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


@pytest.fixture(autouse=True)
def _no_dataset_seed_left_behind():
    yield
    config._seed = None
