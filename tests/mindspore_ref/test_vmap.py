"""``ops.vmap`` / ``F.vmap`` / ``ms.vmap`` in both modes, checked against MindSpore's recorded
answers (CI), our two modes against each other, and MindSpore itself where
``MINDSPORE_PYTHON`` names its venv (see :mod:`tests.mindspore_ref.vmap_programs`)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.reference import MODES, Differential, assert_same, needs_mindspore
from tests.mindspore_ref.vmap_programs import EXPECTED, PROGRAMS

NAMES = sorted(PROGRAMS)
RUN = Differential(PROGRAMS)


def _same_error_kind(ours, ref, where):
    if isinstance(ref, dict) and "error" in ref:
        assert ours.get("error") == ref["error"], f"{where}: {ours} vs {ref}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_matches_mindspores_answer(name, mode):
    ours = RUN.ours(mode, name)
    assert_same(ours, EXPECTED[name], f"{name} ({mode})")
    _same_error_kind(ours, EXPECTED[name], name)


@pytest.mark.parametrize("name", NAMES)
def test_modes_agree(name):
    assert_same(RUN.ours("graph", name), RUN.ours("pynative", name), f"{name}: graph vs pynative")


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_against_mindspore(name, mode):
    ours, theirs = RUN.ours(mode, name), RUN.mindspore(mode, name)
    assert_same(ours, theirs, f"{name} ({mode} vs MindSpore)")
    _same_error_kind(ours, theirs, name)


@needs_mindspore
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_recorded_answers_are_mindspores(name, mode):
    theirs = RUN.mindspore(mode, name)
    assert_same(theirs, EXPECTED[name], f"{name} (MindSpore {mode})")
    _same_error_kind(theirs, EXPECTED[name], name)


# -- ours only ----------------------------------------------------------------------------
def test_the_names_are_one_function():
    from framework.ops import functional as F

    assert ops.vmap is F.vmap is ms.vmap


def test_vmap_traces_fn_once_and_matches_pynative():
    """The batching transform runs fn once, on one example's shapes (not once per example)."""
    calls = []

    def row_norm(r):
        calls.append(1)
        return ops.sqrt((r * r).sum())

    x = Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    eager = ops.vmap(row_norm)(x)
    assert len(calls) == 1
    traced = ms.jit(lambda a: ops.vmap(row_norm)(a))(x)
    np.testing.assert_allclose(traced.asnumpy(), eager.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(eager.asnumpy(), np.linalg.norm(x.asnumpy(), axis=1), rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_branch_on_each_example(mode):
    """Per example, a tensor condition takes its own branch (MindSpore refuses this)."""

    def clip_row(r):
        if r.sum() > 3:
            return r * 0
        return r

    ms.set_context(mode=mode)
    try:
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        out = ops.vmap(clip_row)(Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 2], [0, 0, 0]])


def test_structures_of_results_keep_their_type():
    def parts(a):
        return [a * 2, (a.sum(), a[0])]

    out = ops.vmap(parts)(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert isinstance(out, list) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[1][0].asnumpy(), [3, 12])
    np.testing.assert_array_equal(out[1][1].asnumpy(), [0, 3])


def test_refusals():
    x = Tensor(np.ones((2, 3), np.float32))

    def f(a, b=None):
        return a

    with pytest.raises(RuntimeError, match="keyword"):
        ops.vmap(f)(x, b=x)
    with pytest.raises(ValueError, match="empty"):
        ops.vmap(f)(Tensor(np.ones((0, 3), np.float32)))
    with pytest.raises(RuntimeError, match="function or a Cell"):
        ops.vmap(3)
    with pytest.raises(RuntimeError, match="must be tensors or numbers"):
        ops.vmap(lambda a: {"k": a})(x)
    with pytest.raises(RuntimeError, match="CellList size"):
        ops.vmap(nn.CellList([nn.ReLU(), nn.ReLU(), nn.ReLU()]))(x)


def test_out_axes_none_in_pynative_compares_the_examples():
    """In PyNative a result declared unbatched must be the same for every example."""
    x = Tensor(np.array([[1.0, 2.0], [1.0, 2.0]], np.float32))
    same = ops.vmap(lambda a: (a, a * 0 + 1), out_axes=(0, None))(x)
    np.testing.assert_array_equal(same[1].asnumpy(), [1, 1])
    with pytest.raises(RuntimeError, match="out_axes None"):
        ops.vmap(lambda a: (a, a), out_axes=(0, None))(Tensor(np.eye(2, dtype=np.float32)))
