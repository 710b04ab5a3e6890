"""Tensor-valued axis/begin/end/strides arguments and ``bmm``'s batch axes
(:mod:`tests.mindspore_ref.ms_tensor_arguments_programs`) in both modes: against MindSpore's
recorded answers (``ms_tensor_arguments_expected.json``, CI), our two modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then what the
programs cannot show: ``ReduceSum(skip_mode=True)`` as MindSpore documents it (its CPU
kernel answers otherwise) and the message for an axis Tensor computed while compiling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ops import operations as P
from tests.mindspore_ref.ms_tensor_arguments_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_tensor_arguments_expected.json", per_mode=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_reduce_sum_skip_mode_leaves_the_input_for_an_empty_axis():
    """MindSpore's docs: with skip_mode and an empty axis the sum is not taken (its 2.10 CPU
    kernel instead fills x's shape with the total: not followed)."""
    for axis in ((), [], Tensor(np.array([], np.int64))):
        np.testing.assert_array_equal(P.ReduceSum(skip_mode=True)(Tensor(X), axis).asnumpy(), X)
    np.testing.assert_array_equal(P.ReduceSum(skip_mode=True)(Tensor(X), (0,)).asnumpy(), X.sum(0))
    np.testing.assert_array_equal(P.ReduceSum(True, True)(Tensor(X), Tensor(1)).asnumpy(),
                                  X.sum(1, keepdims=True))


def test_axis_computed_in_compiled_code_is_refused_with_one_line():
    class Net(nn.Cell):
        def construct(self, x, axis):
            return P.ReduceSum()(x, axis)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="axis must be known while compiling"):
            Net()(Tensor(X), Tensor(np.array([1], np.int64)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="must hold integers"):
        ops.sum(Tensor(X), Tensor(np.array([1.0], np.float32)))
