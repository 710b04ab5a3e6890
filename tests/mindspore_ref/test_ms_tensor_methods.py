"""Tensor methods that are ``ops`` functions with the tensor first
(:mod:`tests.mindspore_ref.ms_tensor_methods_programs`) in both modes: against MindSpore
2.10's recorded answers (``ms_tensor_methods_expected.json``, CI), our two modes against each
other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. ``Tensor.addcdiv``,
whose kernel MindSpore's CPU build lacks, against NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.mindspore_ref.ms_tensor_methods_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_tensor_methods_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-5, "atol": 2e-6}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


def test_addcdiv_is_input_plus_value_times_quotient():
    x, y, p = (np.random.default_rng(i).uniform(0.5, 2.0, (3, 4)).astype(np.float32) for i in range(3))
    for got in both_modes(lambda a, b, c: a.addcdiv(b, c, 0.5), x, y, p):
        np.testing.assert_allclose(got, x + 0.5 * y / p, rtol=1e-6)


def test_index_add_adds_alpha_times_source_along_dim():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    src = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
    index = np.array([0, 2], np.int32)
    want = x.copy()
    want[:, index] += 2.0 * src
    import framework as ms

    for got in both_modes(lambda a, s: a.index_add(1, ms.Tensor(index), s, alpha=2.0), x, src):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_set_const_arg_and_init_data_as_mindspore_documents():
    import framework as ms
    from framework.common.initializer import One

    x = ms.Tensor(np.ones((2, 3), np.float32))
    assert x.set_const_arg() is x and x.const_arg is True
    assert x.set_const_arg(False).const_arg is False
    with pytest.raises(TypeError, match="init_data must be set Tensor.init"):
        x.init_data()
    built = ms.Tensor(shape=(2, 2), dtype=ms.float32, init=One())
    np.testing.assert_array_equal(built.init_data().asnumpy(), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_choose_is_numpys_choose(mode):
    index = np.array([2, 0, 5, 1], np.int32)
    choices = [np.random.default_rng(i).standard_normal(4).astype(np.float32) for i in range(3)]

    for got in both_modes(lambda i, a, b, c: i.choose([a, b, c], mode=mode), index, *choices):
        np.testing.assert_array_equal(got, np.choose(index, choices, mode=mode))
