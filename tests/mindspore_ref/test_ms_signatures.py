"""``ops`` functions called with MindSpore's keywords and positions (the spec's generated
wrappers, :mod:`tests.mindspore_ref.ms_signatures_programs`) in both modes: against MindSpore
2.10's recorded answers (``ms_signatures_expected.json``, CI), our two modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import ops
from tests.mindspore_ref.ms_signatures_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_signatures_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-5, "atol": 2e-6}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


@pytest.mark.parametrize("value, dtype", [(2, np.int64), (0.5, np.float32), (-3, np.int64)])
def test_scalar_to_array_is_a_0d_tensor(value, dtype):
    got = ops.scalar_to_array(value)
    assert got.shape == () and got.asnumpy().dtype == dtype and got.asnumpy() == np.asarray(value, dtype)
    with pytest.raises(TypeError, match="scalar_to_array: input_x must be an int or a float"):
        ops.scalar_to_array(True)
