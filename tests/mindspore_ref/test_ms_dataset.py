"""MindSpore's dataset pipeline features used by its tutorials (:mod:`tests.mindspore_ref.
ms_dataset_programs`: samplers and seeded orders, filter/concat/zip, per_batch_map, dict and
string columns, eager transforms, ``dataset.text``) in both modes: against MindSpore 2.10's
recorded answers (``ms_dataset_expected.json``, CI), our two modes against each other, and
MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.dataset import config
from tests.mindspore_ref.ms_dataset_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_dataset_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


@pytest.fixture(autouse=True)
def _no_dataset_seed_left_behind():
    """Programs call ``ds.config.set_seed``; later tests must get unseeded pipelines again."""
    yield
    config._seed = None
