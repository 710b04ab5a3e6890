"""Derivatives that compose (:mod:`tests.mindspore_ref.ms_derivatives_programs`: ``ops.grad`` of
``ops.grad``, ``ops.jvp``, ``ops.vjp``, ``ops.jacfwd``, ``ops.jacrev``, Hessians) in both modes:
against MindSpore's recorded answers (``ms_derivatives_expected.json``, CI), our modes against
each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_derivatives_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_derivatives_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-6}}, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
