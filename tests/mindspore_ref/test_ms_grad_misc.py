"""The backward primitives of ``ops.operations._grad_ops`` for layers, resizes and selections
(:mod:`tests.mindspore_ref.ms_grad_misc_programs`) in both modes: against MindSpore's recorded
answers (``ms_grad_misc_expected.json``, CI), our modes against each other, and MindSpore
itself where ``MINDSPORE_PYTHON`` names its venv.

MindSpore 2.10 cannot run ``G.SoftmaxGrad`` and ``G.UniqueGrad`` on CPU (the programs'
``UNTESTABLE``): ours are checked against finite differences of the forward ops instead. The
second-order ``G.LayerNormGradGrad`` and ``G.BatchNormGradGrad`` are also checked against
finite differences of our first-order gradients (``LayerNormGrad``/``G.BatchNormGrad`` in
float64, the statistics recomputed from ``x``), and ``G.IgammaGradA`` against SciPy's ``P(a, x)``
differentiated.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor
from framework.ops import operations as P
from framework.ops.layer_norm import LayerNormGrad
from framework.ops.operations import _grad_ops as G
from tests.mindspore_ref.ms_grad_misc_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_grad_misc_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 1e-5, "atol": 1e-5}}, slow_graph=True)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

_RNG = np.random.default_rng(11)


def _central(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d f(x) / dx by central differences (``f`` scalar, float64)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_grad_is_softmaxs_vjp():
    x = _RNG.standard_normal((3, 5))
    dy = _RNG.standard_normal((3, 5))
    want = _central(lambda v: float((_softmax(v) * dy).sum()), x)
    y = _softmax(x).astype(np.float32)
    for got in both_modes(lambda a, b: G.SoftmaxGrad()(a, b), y, dy.astype(np.float32)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_unique_grad_gathers_each_entrys_gradient():
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 5.0], np.float32)
    y, idx = (t.asnumpy() for t in P.Unique()(Tensor(x)))
    dy = _RNG.standard_normal(y.shape).astype(np.float32)
    for got in both_modes(lambda d, i, a, j: G.UniqueGrad()((d, i), (a, j)), dy, idx, y, idx):
        np.testing.assert_array_equal(got, dy[idx])
    # without repeats unique is differentiable: its VJP by finite differences of y
    x = np.array([0.5, -1.0, 2.0, 0.25], np.float64)
    y, idx = (t.asnumpy() for t in P.Unique()(Tensor(x.astype(np.float32))))
    dy = _RNG.standard_normal(y.shape)
    order = [int(np.flatnonzero(idx == j)[0]) for j in range(len(y))]
    want = _central(lambda v: float((v[order] * dy).sum()), x)
    got = G.UniqueGrad()((Tensor(dy.astype(np.float32)), Tensor(idx)), (Tensor(y), Tensor(idx))).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _layer_norm_grads(x, dy, gamma, axes, epsilon):
    """The float64 first-order gradients (dx, dgamma, dbeta) of ``G.LayerNormGrad``, the
    statistics recomputed from ``x`` (normalized over ``axes``)."""
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    norm_axis = min(axes)
    params_axis = x.ndim - gamma.ndim
    prim = LayerNormGrad(norm_axis, params_axis, epsilon)
    dx, dg, db = prim(*(Tensor(a) for a in (x, dy, var, mean, gamma)))
    return dx.asnumpy(), dg.asnumpy(), db.asnumpy()


@pytest.mark.slow  # compiles three graphs per case
@pytest.mark.parametrize("norm_axis, params_axis", [(1, 1), (2, 2), (1, 2)])
def test_layer_norm_grad_grad_is_the_first_order_grads_vjp(norm_axis, params_axis):
    x = _RNG.standard_normal((2, 3, 4))
    dy, u = _RNG.standard_normal((2, 2, 3, 4))
    gamma, v, w = _RNG.standard_normal((3,) + x.shape[params_axis:])
    axes = tuple(range(norm_axis, 3))

    def pairing(x_, dy_, gamma_):
        dx, dg, db = _layer_norm_grads(x_, dy_, gamma_, axes, 0.0)
        return float((dx * u).sum() + (dg * v).sum() + (db * w).sum())

    want = (_central(lambda a: pairing(a, dy, gamma), x), _central(lambda a: pairing(x, a, gamma), dy),
            _central(lambda a: pairing(x, dy, a), gamma))
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    args = [a.astype(np.float32) for a in (x, dy, var, mean, gamma, u, v, w)]
    op = G.LayerNormGradGrad(norm_axis, params_axis)
    for k, ref in enumerate(want):
        for got in both_modes(lambda *t, k=k: op(*t)[k], *args):
            np.testing.assert_allclose(got, ref, rtol=2e-4, atol=2e-4)


@pytest.mark.slow  # compiles three graphs per case
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad_grad_is_the_first_order_grads_vjp(training):
    x = _RNG.standard_normal((3, 2, 2, 2)) * 1.5 + 0.3
    dy, u = _RNG.standard_normal((2, 3, 2, 2, 2))
    scale, v, w = _RNG.standard_normal((3, 2))
    running = (np.array([0.2, -0.1]), np.array([0.7, 1.6]))
    eps = 1e-3

    def stats(x_):
        return (x_.mean((0, 2, 3)), x_.var((0, 2, 3))) if training else running

    def pairing(x_, dy_, scale_):
        mean, var = stats(x_)
        outs = G.BatchNormGrad(training, eps)(*(Tensor(a) for a in (dy_, x_, scale_, mean, var, mean)))
        return float(sum((o.asnumpy() * c).sum() for o, c in zip(outs, (u, v, w))))

    want = (_central(lambda a: pairing(a, dy, scale), x), _central(lambda a: pairing(x, a, scale), dy),
            _central(lambda a: pairing(x, dy, a), scale))
    args = [a.astype(np.float32) for a in (x, dy, scale, *stats(x), u, v, w)]
    for k, ref in enumerate(want):
        for got in both_modes(lambda *t, k=k: G.BatchNormGradGrad(training, eps)(*t)[k], *args):
            np.testing.assert_allclose(got, ref, rtol=2e-4, atol=2e-4)


def test_igamma_grad_a_is_the_derivative_of_p_in_a():
    special = pytest.importorskip("scipy.special")
    a = np.array([0.3, 1.0, 2.5, 7.0, 12.0])
    x = np.array([0.5, 1.0, 3.0, 6.0, 10.0])
    want = np.array([_central(lambda v, i=i: float(special.gammainc(v[0], x[i])), a[i:i + 1], 1e-5)[0]
                     for i in range(len(a))])
    for got in both_modes(lambda s, t: G.IgammaGradA()(s, t), a, x):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
