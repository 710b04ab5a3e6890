"""``ops.matmul`` with NumPy's rules and ``ops.BatchMatMul``: values against ``np.matmul``,
gradients against the closed form summed over broadcast axes, in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops

SHAPES = [((3,), (3,)), ((3,), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (3, 4, 5)),
          ((5, 3), (3, 2)), ((4, 3), (2, 3, 6))]


def _run(mode, fn, *args):
    ms.set_context(mode=mode)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("sa,sb", SHAPES, ids=[f"{a}@{b}" for a, b in SHAPES])
def test_matmul_follows_numpy(mode, sa, sb):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
    want = np.matmul(a, b)
    w = rng.standard_normal(want.shape).astype(np.float32)

    def loss(x, y):
        return (ops.matmul(x, y) * Tensor(w)).sum()

    fn = ms.value_and_grad(loss, grad_position=(0, 1))
    value, (da, db) = _run(mode, ms.jit(fn) if mode == ms.GRAPH_MODE else fn, Tensor(a), Tensor(b))
    np.testing.assert_allclose(value.asnumpy(), (want * w).sum(), rtol=1e-5)
    # closed form in float64: d/da sum(w * a@b) = w @ b^T, summed to a's shape (vectors as 1-D)
    a2 = a[None] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    w2 = w.reshape(np.matmul(a2, b2).shape).astype(np.float64)
    ga = np.matmul(w2, np.swapaxes(b2, -1, -2).astype(np.float64))
    gb = np.matmul(np.swapaxes(a2, -1, -2).astype(np.float64), w2)
    ga = ga.reshape((-1,) + a2.shape).sum(0) if ga.ndim > a2.ndim else ga
    gb = gb.reshape((-1,) + b2.shape).sum(0) if gb.ndim > b2.ndim else gb
    for axis in range(ga.ndim):
        if a2.shape[axis] == 1 and ga.shape[axis] != 1:
            ga = ga.sum(axis, keepdims=True)
    for axis in range(gb.ndim):
        if b2.shape[axis] == 1 and gb.shape[axis] != 1:
            gb = gb.sum(axis, keepdims=True)
    np.testing.assert_allclose(da.asnumpy(), ga.reshape(a.shape), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(db.asnumpy(), gb.reshape(b.shape), rtol=1e-4, atol=1e-5)


def test_batch_matmul_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"inner dimensions differ: \(2, 3, 4\) @ \(2, 5, 6\)"):
        ops.BatchMatMul()(Tensor(np.zeros((2, 3, 4), np.float32)), Tensor(np.zeros((2, 5, 6), np.float32)))
    with pytest.raises(ValueError, match=r"batch axes \(2,\) and \(3,\) do not broadcast"):
        ops.BatchMatMul()(Tensor(np.zeros((2, 3, 4), np.float32)), Tensor(np.zeros((3, 4, 6), np.float32)))
