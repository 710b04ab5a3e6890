"""``nn.BCEWithLogitsLoss`` / ``ops.binary_cross_entropy_with_logits`` (MindSpore 2.x, as in
its sentiment-classification tutorial) against the published formula in float64 NumPy,
``-w [p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]``, in both modes; the gradient against
its closed form, at logits of 0 and +-40 too."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

rng = np.random.default_rng(7)
X = np.concatenate([[0.0, 40.0, -40.0, 1e-3], rng.standard_normal(20) * 3]).astype(np.float32).reshape(6, 4)
Y = np.concatenate([[1.0, 0.0, 1.0, 0.5], rng.uniform(0, 1, 20)]).astype(np.float32).reshape(6, 4)
Y[2:4] = (Y[2:4] > 0.5)  # some hard labels
W = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
P = np.array([3.0, 1.0, 0.25, 2.0], np.float32)


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _want(x, y, w, p, reduction):
    x, y = x.astype(np.float64), y.astype(np.float64)
    w = 1.0 if w is None else w.astype(np.float64)
    p = 1.0 if p is None else p.astype(np.float64)
    loss = -w * (p * y * _log_sigmoid(x) + (1 - y) * _log_sigmoid(-x))
    return {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]


def _grad_want(x, y, w, p):
    """d sum(loss) / dx = w ((1 - y) - (1 + (p - 1) y) sigmoid(-x))."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    w = 1.0 if w is None else w.astype(np.float64)
    p = 1.0 if p is None else p.astype(np.float64)
    return w * ((1 - y) - (1 + (p - 1) * y) / (1 + np.exp(x)))


CASES = [(None, None), (W, None), (None, P), (W, P)]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("w, p", CASES)
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_value_matches_the_formula_in_both_modes(reduction, w, p, mode):
    loss = nn.BCEWithLogitsLoss(reduction, None if w is None else Tensor(w), None if p is None else Tensor(p))
    run = ms.jit(loss.construct) if mode == ms.GRAPH_MODE else loss
    got = run(Tensor(X), Tensor(Y)).asnumpy()
    np.testing.assert_allclose(got, _want(X, Y, w, p, reduction), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("w, p", CASES)
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_matches_its_closed_form(w, p, mode):
    def f(x, y):
        return ops.binary_cross_entropy_with_logits(x, y, None if w is None else Tensor(w),
                                                    None if p is None else Tensor(p), "sum")

    grad = ms.grad(f, 0)
    run = ms.jit(grad) if mode == ms.GRAPH_MODE else grad
    got = run(Tensor(X), Tensor(Y)).asnumpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, _grad_want(X, Y, w, p), rtol=1e-5, atol=1e-6)


def test_targets_of_another_shape_are_refused():
    with pytest.raises(ValueError, match=r"BCEWithLogitsLoss: logits \(2, 3\) need targets of the same"):
        nn.BCEWithLogitsLoss()(Tensor(np.zeros((2, 3), np.float32)), Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(ValueError, match="reduction"):
        nn.BCEWithLogitsLoss("average")
