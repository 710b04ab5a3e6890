"""``mindspore.mint.nn`` Cells and ``mint.nn.functional`` (:mod:`tests.mindspore_ref.
ms_mint_nn_cover_programs`) in both modes: against MindSpore 2.10's recorded answers
(``ms_mint_nn_cover_expected.json``, CI), our two modes against each other, MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv, and each program run eagerly here (``jit`` the
identity, PyNative) against the same answers, since MindSpore's CPU runs these kernels only
compiled. Then NumPy-derived checks that need no recording."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import mint
from tests.mindspore_ref.ms_mint_nn_cover_programs import PROGRAMS, UNTESTABLE
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import assert_same, framework_result

TOL = {"rtol": 1e-4, "atol": 1e-5}
EXPECTED = Path(__file__).parent / "ms_mint_nn_cover_expected.json"
RECORDED = Recorded(PROGRAMS, EXPECTED, per_mode=True, tolerance={"*": TOL}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

EAGER = "\njit = lambda fn: fn  # noqa: E731\n"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_eager_matches_mindspores_compiled_answer(name):
    source = PROGRAMS[name].replace("\njit = ms.jit\n", EAGER)
    assert EAGER in source
    ours = framework_result(name, source, "pynative", Path(tempfile.mkdtemp(prefix="mint-nn-eager-")))
    assert_same(ours, json.loads(EXPECTED.read_text())[name]["pynative"], f"{name} (eager)", **TOL)


def test_untestable_names_are_ours_and_spelled_as_the_checker_reads_them():
    modules = {"mint.nn": mint.nn, "mint.nn.functional": mint.nn.functional}
    for key, reason in UNTESTABLE.items():
        namespace, name = key.split(":")
        assert hasattr(modules[namespace], name), key
        assert reason.strip() and "\n" not in reason, key


# -- independent of the recording ---------------------------------------------------------
X = np.array([-1.0, 0.0, 1.0, 2.0, -2.0, 0.5], np.float32)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_clamp_gradient_reaches_the_input_at_the_bounds(mode):
    """Inside ``[min, max]``, bounds included, the gradient is 1; outside it is 0."""
    ms.set_context(mode=mode)
    try:
        both = ms.jit(ms.grad(lambda x: mint.nn.functional.clamp(x, -1.0, 1.0).sum()))(ms.tensor(X))
        low = ms.grad(lambda x: mint.clamp(x, min=0.0).sum())(ms.tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(both.asnumpy(), ((X >= -1) & (X <= 1)).astype(np.float32))
    np.testing.assert_array_equal(low.asnumpy(), (X >= 0).astype(np.float32))


def test_pads_follow_numpy():
    x = np.sin(np.arange(2 * 3 * 4 * 5, dtype=np.float32)).reshape(2, 3, 4, 5)
    got = mint.nn.ConstantPad2d((1, 0, 2, 1), 2.0)(ms.tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)), constant_values=2.0))
    got = mint.nn.ZeroPad3d((1, 0, 2, 1, 0, 1))(ms.tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 1), (2, 1), (1, 0))))
    got = mint.nn.ConstantPad1d(2, -1.5)(ms.tensor(x[0])).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x[0], ((0, 0), (0, 0), (2, 2)), constant_values=-1.5))


def test_nearest_upsampling_repeats_pixels():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4)
    want = x.repeat(2, axis=2).repeat(3, axis=3)
    got = mint.nn.UpsamplingNearest2d(scale_factor=(2.0, 3.0))(ms.tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(mint.nn.Upsample(size=(6, 12))(ms.tensor(x)).asnumpy(), want)


def test_losses_follow_numpy():
    x = np.array([[0.5, -1.25, 2.0, 3.5], [-0.75, 1.5, -2.5, 0.25]], np.float32)
    t = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]], np.float32)
    labels = np.array([2, 1])
    log_softmax = x - x.max(1, keepdims=True)
    log_softmax = log_softmax - np.log(np.exp(log_softmax).sum(1, keepdims=True))
    got = mint.nn.LogSoftmax(1)(ms.tensor(x)).asnumpy()
    np.testing.assert_allclose(got, log_softmax, rtol=1e-6, atol=1e-6)
    got = float(mint.nn.CrossEntropyLoss()(ms.tensor(x), ms.tensor(labels)).asnumpy())
    np.testing.assert_allclose(got, -log_softmax[np.arange(2), labels].mean(), rtol=1e-6)
    bce = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
    got = float(mint.nn.functional.binary_cross_entropy_with_logits(ms.tensor(x), ms.tensor(t)).asnumpy())
    np.testing.assert_allclose(got, bce.mean(), rtol=1e-6)


def test_embedding_looks_up_rows():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    ids = np.array([[0, 4], [2, 2]])
    got = mint.nn.functional.embedding(ms.tensor(ids), ms.tensor(table)).asnumpy()
    np.testing.assert_array_equal(got, table[ids])
