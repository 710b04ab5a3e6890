"""The module namespaces of :mod:`tests.mindspore_ref.ms_namespaces_programs` (the
``experimental.optim.lr_scheduler`` schedulers, ``nn.optim``, ``common.*``,
``device_context.cpu``, ``ops.operations.{nn_ops,array_ops,math_ops}``) in both modes: against
MindSpore's recorded answers (``ms_namespaces_expected.json``, CI), our modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.ms_namespaces_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

# float32 rates: MindSpore computes them with Tensor ops, we with NumPy float32 scalars
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_namespaces_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-6}})
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()
