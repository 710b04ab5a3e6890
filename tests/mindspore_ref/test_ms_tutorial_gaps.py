"""What MindSpore's tutorials print that differed here (:mod:`tests.mindspore_ref.
ms_tutorial_gaps_programs`: ``repr`` of Tensors and Cells, Tensor byte attributes,
``Tensor.from_numpy``, ``mindspore.tensor``) in both modes: against MindSpore 2.10's
recorded answers (``ms_tutorial_gaps_expected.json``, CI), our two modes against each other,
and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then NumPy-derived checks of
the same behaviours that need no recording."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor
from tests.mindspore_ref.ms_tutorial_gaps_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_tutorial_gaps_expected.json", per_mode=True,
                    tolerance=None, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------
@pytest.mark.parametrize("shape,dtype", [((2, 3), np.float32), ((4, 1, 5), np.int16), ((), np.float64)])
def test_byte_attributes_follow_numpy_c_order(shape, dtype):
    array = np.zeros(shape, dtype)
    x = Tensor(array)
    assert (x.itemsize, x.nbytes, x.strides) == (array.itemsize, array.nbytes, array.strides)


def test_repr_values_read_back():
    """The numbers a float repr shows are the tensor's values to 8 significant digits."""
    values = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    text = repr(Tensor(values)).split("value=\n", 1)[1].rstrip(")")
    shown = np.array(json.loads(text), np.float32)
    np.testing.assert_allclose(shown, values, rtol=1e-7)


def test_tensor_is_mindspores_function_and_the_class_lives_in_common_tensor():
    import inspect
    import sys

    from framework.common.tensor import Tensor as Imported

    assert Imported is Tensor and sys.modules["framework.common.tensor"].Tensor is Tensor
    assert inspect.isfunction(ms.tensor) and ms.common.tensor is ms.tensor  # as in MindSpore 2.10
    made = ms.tensor(np.zeros(2, np.int8))
    assert isinstance(made, Tensor) and made.dtype == ms.int8


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError, match="from_numpy"):
        Tensor.from_numpy([1, 2])
