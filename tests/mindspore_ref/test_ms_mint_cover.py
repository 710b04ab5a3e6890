"""The ``mint`` functions of :mod:`tests.mindspore_ref.ms_mint_cover_programs` (those no other
differential test spelled) in both modes: against MindSpore 2.10's recorded answers
(``ms_mint_cover_expected.json``, CI), our two modes against each other, and MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv. Then NumPy-derived checks of the same functions,
compiled (``ms.jit``) and eager, which need no recording."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import mint, ops
from tests.mindspore_ref.ms_mint_cover_programs import MODE_DEPENDENT, PROGRAMS, UNTESTABLE
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_mint_cover_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-6}}, mode_dependent=MODE_DEPENDENT)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 5)).astype(np.float32)
B = (np.abs(RNG.normal(size=(4, 5))) + 0.5).astype(np.float32)


def test_untestable_names_are_mint_names_we_have():
    """Each name MindSpore cannot run is one of mint's and one we provide (the record is of
    MindSpore's failure, not ours)."""
    assert UNTESTABLE and all(key.startswith("mint:") for key in UNTESTABLE)
    assert all(callable(getattr(mint, key.split(":", 1)[1])) for key in UNTESTABLE)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_diff_of_booleans_is_numpys_xor(n):
    flags = RNG.normal(size=(3, 6)) > 0

    @ms.jit
    def compiled(x):
        return mint.diff(x, n, 1)

    want = np.diff(flags, n, 1)  # NumPy: not_equal for booleans
    for got in (mint.diff(ms.tensor(flags), n, 1), compiled(ms.tensor(flags))):
        assert got.dtype == ms.bool_
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_nansum_keeps_integer_dtypes():
    values = np.arange(-6, 6).reshape(3, 4)
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        got = mint.nansum(ms.tensor(values.astype(dtype)), 1)
        assert got.asnumpy().dtype == dtype
        np.testing.assert_array_equal(got.asnumpy(), values.sum(1))
    flags = mint.nansum(ms.tensor(values > 0))
    assert flags.dtype == ms.int64 and flags.asnumpy() == np.count_nonzero(values > 0)


def test_nansum_skips_nans_like_numpy():
    with_nans = np.where(A > 1, np.nan, A).astype(np.float32)
    np.testing.assert_allclose(mint.nansum(ms.tensor(with_nans), 0).asnumpy(), np.nansum(with_nans, 0),
                               rtol=1e-6)


def test_item_compiled_runs_interpreted():
    @ms.jit
    def compiled(x):
        return mint.item(x[1, 2]) * 2, mint.item(mint.sum(x))

    doubled, total = compiled(ms.tensor(A))
    assert type(doubled) is float and doubled == pytest.approx(2 * float(A[1, 2]))
    assert total == pytest.approx(float(A.sum()), rel=1e-5)


def test_elementwise_against_numpy_in_both_forms():
    @ms.jit
    def compiled(x, y):
        return mint.floor_divide(x, y), mint.polar(y, x)

    ints = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(mint.floor_divide(ms.tensor(ints), ms.tensor(np.int32(4))).asnumpy(),
                                  np.floor_divide(ints, 4))
    np.testing.assert_array_equal(mint.bitwise_and(ms.tensor(ints), ms.tensor(ints + 5)).asnumpy(),
                                  ints & (ints + 5))
    np.testing.assert_allclose(mint.fmod(ms.tensor(A), ms.tensor(B)).asnumpy(), np.fmod(A, B), rtol=1e-6)
    floor, polar = compiled(ms.tensor(A), ms.tensor(B))
    np.testing.assert_allclose(floor.asnumpy(), np.floor_divide(A, B), rtol=1e-6)
    np.testing.assert_allclose(polar.asnumpy(), B * np.exp(1j * A), rtol=1e-5, atol=1e-6)


def test_t_and_index_add_gradients_by_hand():
    w = RNG.normal(size=(5, 4)).astype(np.float32)
    grad_x = ms.grad(lambda x: (mint.t(x) * ms.tensor(w)).sum())(ms.tensor(A))
    np.testing.assert_allclose(grad_x.asnumpy(), w.T)
    index = ms.tensor(np.array([4, 1], np.int32))

    def loss(x, source):
        return (mint.index_add(x, 1, index, source, alpha=3) * ms.tensor(B)).sum()

    gx, gs = ms.grad(loss, (0, 1))(ms.tensor(A), ms.tensor(A[:, :2].copy()))
    np.testing.assert_allclose(gx.asnumpy(), B)
    np.testing.assert_allclose(gs.asnumpy(), 3 * B[:, [4, 1]])


def test_empty_gives_shapes_and_dtypes():
    @ms.jit
    def compiled(x):
        return mint.empty_like(x, dtype=ms.int16), mint.empty(3, 2)

    for got in (compiled(ms.tensor(A)), (mint.empty_like(ms.tensor(A), dtype=ms.int16), mint.empty((3, 2)))):
        assert [(t.dtype, t.shape) for t in got] == [(ms.int16, (4, 5)), (ms.float32, (3, 2))]
    assert ops.is_tensor(mint.empty(0))
