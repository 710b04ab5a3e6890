"""ops.topk / ops.TopK / ops.sort / ops.multinomial in both modes: values, int32 indices
and gradients equal between PyNative and graph mode and to NumPy; multinomial's draws
follow ``ms.set_seed`` identically in both modes and have the right frequencies."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops

RNG = np.random.default_rng(4)
# ties on purpose: equal values keep their index order in both modes
X = np.round(RNG.standard_normal((3, 7, 5)), 1).astype(np.float32)
PROGRAMS = {
    "topk-last": (lambda x: ops.topk(x, 3), -1, 3, True),
    "topk-dim1-smallest": (lambda x: ops.topk(x, 2, dim=1, largest=False), 1, 2, False),
    "TopK-class": (lambda x: ops.TopK(sorted=True)(x, 4), -1, 4, True),
    "sort-ascending": (lambda x: ops.sort(x), -1, 5, False),
    "sort-axis0-descending": (lambda x: ops.sort(x, axis=0, descending=True), 0, 3, True),
}


def _numpy(x, axis, k, descending):
    key = -x if descending else x
    order = np.take(np.argsort(key, axis=axis, kind="stable"), np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis), order


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_values_indices_and_gradient(name, compiled):
    program, axis, k, descending = PROGRAMS[name]
    want_v, want_i = _numpy(X, axis, k, descending)
    weight = RNG.standard_normal(want_v.shape).astype(np.float32)

    def loss(x):
        values, indices = program(x)
        return ops.reduce_sum(ops.mul(values, Tensor(weight))), (values, indices)

    fn = ms.value_and_grad(loss, 0, has_aux=True)
    fn = ms.jit(fn) if compiled else fn
    (_, (values, indices)), grad = fn(Tensor(X))
    assert indices.asnumpy().dtype == np.int32
    np.testing.assert_array_equal(indices.asnumpy(), want_i)
    np.testing.assert_array_equal(values.asnumpy(), want_v)
    want_g = np.zeros_like(X)
    np.put_along_axis(want_g, want_i, weight, axis)  # each picked entry once
    np.testing.assert_allclose(grad.asnumpy(), want_g, rtol=1e-6)


def test_topk_gradient_reaches_a_picked_entry_once_per_pick():
    # an entry picked twice is impossible; entries not picked get exactly zero
    g = ms.grad(lambda x: ops.reduce_sum(ops.topk(x, 2)[0]))(Tensor(np.array([[1.0, 5.0, 3.0]])))
    np.testing.assert_array_equal(g.asnumpy(), [[0.0, 1.0, 1.0]])


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_draws_are_the_same_in_both_modes(replacement):
    probs = Tensor(np.array([[0.0, 9.0, 4.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0, 1.0]], np.float32))
    n = 8 if replacement else 3  # row 0 has 3 classes of non-zero weight
    program = ms.jit(lambda p: ops.multinomial(p, n, replacement))
    ms.set_seed(11)
    eager = [ops.multinomial(probs, n, replacement).asnumpy() for _ in range(3)]
    ms.set_seed(11)
    graph = [program(probs).asnumpy() for _ in range(3)]
    for e, g in zip(eager, graph):
        assert g.dtype == np.int32 and g.shape == (2, n)
        np.testing.assert_array_equal(g, e)
    assert not np.array_equal(eager[0], eager[1])  # the generator advances between calls
    for draw in eager:
        assert not np.isin(draw[0], [0, 3]).any()  # zero weight: never drawn ...
        if not replacement:
            assert all(len(set(row)) == n for row in draw)  # ... and no class twice


def test_multinomial_frequencies_follow_the_weights():
    weights = np.array([1.0, 2.0, 0.0, 5.0], np.float32)
    ms.set_seed(0)
    draws = ops.multinomial(Tensor(weights), 20000).asnumpy()
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, weights / weights.sum(), atol=0.015)
    # without replacement the first pick follows the weights too
    firsts = [ops.multinomial(Tensor(weights), 2, replacement=False).asnumpy()[0]
              for _ in range(3000)]
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 3000, weights / 8, atol=0.03)


def test_multinomial_seed_argument_gives_a_reproducible_sequence():
    p = Tensor(np.ones(10, np.float32))
    a = ops.multinomial(p, 5, seed=123).asnumpy()
    b = ops.Multinomial(5, True, 123)(p).asnumpy()
    assert a.shape == b.shape == (5,)
    from framework.ops import sorting

    sorting._SEEDED.pop(123)  # a fresh generator of that seed: the same stream again
    np.testing.assert_array_equal(ops.multinomial(p, 5, seed=123).asnumpy(), a)
    np.testing.assert_array_equal(ops.multinomial(p, 5, seed=123).asnumpy(), b)


def test_bad_arguments_are_refused_in_one_line():
    x = Tensor(X)
    with pytest.raises(ValueError, match=r"k=9 must be in \[0, 5\]"):
        ops.topk(x, 9)
    with pytest.raises(ValueError, match="num_samples=6 > 5 classes"):
        ops.multinomial(Tensor(np.ones(5, np.float32)), 6, replacement=False)
    with pytest.raises(TypeError, match="1-D or 2-D float tensor"):
        ops.multinomial(x, 2)
