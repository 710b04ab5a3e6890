"""The text classifier script (:mod:`tests.mindspore_ref.text_classifier`: ``~``/``&`` padding
mask, ``nn.Conv1d``, ``nn.TransformerEncoderLayer`` with ``src_key_padding_mask``,
``ops.interpolate``, ``GeneratorDataset(list).split``, ``value_and_grad`` in ``ms.jit``) with
MindSpore's numbers: its 18 training losses, test logits and score against MindSpore 2.10's
recorded answers in both modes (``ms_text_classifier_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mindspore_ref.ms_text_classifier_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# 18 Adam steps from the same weights: float32 rounding of two engines' kernels accumulates
TOLERANCE = {"*": {"rtol": 2e-4, "atol": 2e-5}}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_text_classifier_expected.json",
                    per_mode=True, tolerance=TOLERANCE)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = (pytest.mark.slow(t) for t in RECORDED.tests())
