"""CTCLoss's gradient against finite differences, through a log-softmax.

Its bprop follows the log-softmax convention (``exp(log_probs) - posterior``, as MindSpore
and PyTorch): the derivative of the loss in the logits once composed with a log-softmax,
not in ``log_probs`` alone, so the harness's finite differences (on the primitive by
itself) do not apply; this composes the two.
"""

from __future__ import annotations

import numpy as np
import pytest

from framework import Tensor, ops
from framework.ops.ctc import CTCLoss

from .primitive_cases import CASES, Case

CTC_LOSS_CASES = [c for c in CASES if type(c.prim) is CTCLoss]


def _loss(prim: CTCLoss, logits: Tensor, rest: list[np.ndarray], weights: np.ndarray) -> Tensor:
    loss, _ = prim(ops.log_softmax(logits, -1), *(Tensor(a) for a in rest))
    return (loss * Tensor(weights)).sum()


@pytest.mark.parametrize("case", CTC_LOSS_CASES, ids=lambda c: c.id)
def test_ctc_loss_gradient_through_log_softmax(case: Case) -> None:
    rng = np.random.default_rng(6)
    log_probs, *rest = case.inputs(rng)
    logits = rng.standard_normal(log_probs.shape)
    prim = case.prim
    weights = rng.standard_normal(logits.shape[1])
    got = ops.grad(lambda x: _loss(prim, x, rest, weights))(Tensor(logits)).asnumpy()

    def objective(x: np.ndarray) -> float:
        return float(_loss(prim, Tensor(x), rest, weights).asnumpy())

    numeric = np.zeros_like(logits)
    for idx in np.ndindex(logits.shape):
        plus, minus = logits.copy(), logits.copy()
        plus[idx] += 1e-6
        minus[idx] -= 1e-6
        numeric[idx] = (objective(plus) - objective(minus)) / 2e-6
    assert np.abs(numeric).max() > 0.1  # the loss does depend on the logits
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)
