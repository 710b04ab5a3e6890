"""split / Split / chunk / stack / Stack / unstack / Unstack / tile / Tile / arange
(compositions of existing primitives): values against NumPy's split, array_split, stack,
tile and arange; gradients against the analytic ones (a weighted sum of the pieces), in
both modes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops

RNG = np.random.default_rng(9)
X = RNG.standard_normal((2, 6, 4))

# name -> (ours, NumPy's); each returns one tensor or a tuple of them
PROGRAMS = {
    "split-int": (lambda x: ops.split(x, 4, 1), lambda x: np.split(x, [4], 1)),
    "split-sections": (lambda x: ops.split(x, [1, 3, 2], -2), lambda x: np.split(x, [1, 4], 1)),
    "Split": (lambda x: ops.Split(2, 2)(x), lambda x: np.split(x, 2, 2)),
    "chunk": (lambda x: ops.chunk(x, 4, 1), lambda x: np.split(x, [2, 4], 1)),  # ceil(6/4)=2: 3
    "stack": (lambda x: ops.stack([x, x * 2.0, -x], 1), lambda x: np.stack([x, x * 2, -x], 1)),
    "Stack": (lambda x: ops.Stack(-1)((x, x * 3.0)), lambda x: np.stack([x, x * 3], -1)),
    "unstack": (lambda x: ops.unstack(x, 2), lambda x: tuple(np.moveaxis(x, 2, 0))),
    "Unstack": (lambda x: ops.Unstack(0, 2)(x), lambda x: tuple(x)),
    "tile": (lambda x: ops.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3))),
    "tile-longer": (lambda x: ops.Tile()(x, (2, 1, 1, 2)), lambda x: np.tile(x, (2, 1, 1, 2))),
    "tile-shorter": (lambda x: ops.tile(x, (3,)), lambda x: np.tile(x, (3,))),
}


def _tuple(out):
    return tuple(out) if isinstance(out, tuple | list) else (out,)


@pytest.mark.parametrize("name", PROGRAMS)
@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_values_and_gradients(name, compiled):
    ours, ref = PROGRAMS[name]
    want = _tuple(ref(X))
    weights = [RNG.standard_normal(w.shape) for w in want]

    def loss(x):
        total = None
        for piece, w in zip(_tuple(ours(x)), weights):
            term = ops.reduce_sum(ops.mul(piece, Tensor(w)))
            total = term if total is None else total + term
        return total, ours(x)

    fn = ms.value_and_grad(loss, 0, has_aux=True)
    fn = ms.jit(fn) if compiled else fn
    (_, got), grad = fn(Tensor(X))
    got = _tuple(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)
    # d/dx sum(w_i * piece_i(x)): each piece is linear in x; the NumPy map's adjoint by
    # probing with unit vectors would be slow, so use the identity on a random direction
    direction = RNG.standard_normal(X.shape)
    directional = sum((w * p).sum() for w, p in zip(weights, _tuple(ref(direction))))
    np.testing.assert_allclose((grad.asnumpy() * direction).sum(), directional, rtol=1e-5)


@pytest.mark.parametrize("args, kwargs, want", [
    ((5,), {}, np.arange(5)),
    ((1, 6), {}, np.arange(1, 6)),
    ((7, 1, -2), {}, np.array([7, 5, 3])),
    ((0, 3, 1.2), {}, np.array([0.0, 1.2, 2.4], np.float32)),
    ((0, 2, 0.5), dict(dtype=ms.float64), np.array([0, 0.5, 1, 1.5])),
    ((2, 5), dict(dtype=ms.int32), np.array([2, 3, 4], np.int32)),
])
def test_arange(args, kwargs, want):
    out = ops.arange(*args, **kwargs)
    assert out.asnumpy().dtype == want.dtype
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-7)
    assert out.dtype == (ms.int64 if want.dtype == np.int64 else out.dtype)


def test_arange_inside_a_compiled_function_is_a_constant():
    fn = ms.jit(lambda x: x + ops.arange(4, dtype=ms.float32))
    np.testing.assert_array_equal(fn(Tensor(np.ones(4, np.float32))).asnumpy(), [1, 2, 3, 4])


def test_bad_arguments_are_refused_in_one_line():
    x = Tensor(X)
    with pytest.raises(ValueError, match=r"split.*sections \[1, 2\] must be >= 0 and add up"):
        ops.split(x, [1, 2], 1)
    with pytest.raises(ValueError, match="does not split into 4 equal pieces"):
        ops.Split(1, 4)(x)
    with pytest.raises(ValueError, match="all tensors must have one shape"):
        ops.stack([x, Tensor(np.zeros((2, 6)))])
    with pytest.raises(ValueError, match="step must not be 0"):
        ops.arange(0, 3, 0)
    with pytest.raises(ValueError, match="moves away from end"):
        ops.arange(0, 3, -1)
    with pytest.raises(ValueError, match=r"num=3 but axis 0 has size 2"):
        ops.Unstack(0, 3)(x)
