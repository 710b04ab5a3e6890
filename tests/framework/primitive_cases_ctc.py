"""Harness cases (see primitive_cases.py) of the CTC loss (ops/ctc.py): references from the
textbook forward-backward recursion (Graves et al., 2006), one sequence at a time, in
probability space (short sequences: no underflow).

``CTCLoss``'s gradient is the log-softmax convention (``exp(log_probs) - posterior``), not
the derivative in ``log_probs`` itself, and its ``log_alpha`` output holds ``-inf``: the
harness's finite differences do not apply (``diff=()``). test_ctc_gradient.py checks the
gradient through a log-softmax against finite differences instead.
"""

from __future__ import annotations

import numpy as np

from framework.ops.ctc import CTCLoss, CTCLossGrad

from .primitive_cases import Case


def _extended(labels: np.ndarray, blank: int) -> list[int]:
    ext = [blank]
    for label in labels:
        ext += [int(label), blank]
    return ext


def _can_skip(ext: list[int], s: int, blank: int) -> bool:
    """A path may jump from state s-2 to s: a label different from the previous label."""
    return s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]


def _alpha_beta(y: np.ndarray, ext: list[int], blank: int) -> tuple[np.ndarray, np.ndarray]:
    """Forward and backward variables (both including the emission at t) of one sequence;
    ``y`` (T, C) holds its probabilities over its own frames."""
    t_len, size = len(y), len(ext)
    alpha, beta = np.zeros((t_len, size)), np.zeros((t_len, size))
    alpha[0, 0] = y[0, ext[0]]
    if size > 1:
        alpha[0, 1] = y[0, ext[1]]
    for t in range(1, t_len):
        for s in range(size):
            total = alpha[t - 1, s] + (alpha[t - 1, s - 1] if s >= 1 else 0.0)
            if _can_skip(ext, s, blank):
                total += alpha[t - 1, s - 2]
            alpha[t, s] = total * y[t, ext[s]]
    beta[-1, -1] = y[-1, ext[-1]]
    if size > 1:
        beta[-1, -2] = y[-1, ext[-2]]
    for t in range(t_len - 2, -1, -1):
        for s in range(size):
            total = beta[t + 1, s] + (beta[t + 1, s + 1] if s + 1 < size else 0.0)
            if s + 2 < size and _can_skip(ext, s + 2, blank):
                total += beta[t + 1, s + 2]
            beta[t, s] = total * y[t, ext[s]]
    return alpha, beta


def _per_sequence(lp, targets, il, tl, blank):
    for n in range(lp.shape[1]):
        ext = _extended(targets[n, :tl[n]], blank)
        y = np.exp(lp[:il[n], n])
        alpha, beta = _alpha_beta(y, ext, blank)
        likelihood = alpha[-1, -1] + (alpha[-1, -2] if len(ext) > 1 else 0.0)
        yield n, ext, y, alpha, beta, likelihood


def _ctc_loss_ref(blank: int, zero_infinity: bool):
    def ref(lp, targets, il, tl):
        t_max, n_seq, _ = lp.shape
        loss = np.empty(n_seq)
        log_alpha = np.full((n_seq, t_max, 2 * targets.shape[1] + 1), -np.inf)
        with np.errstate(divide="ignore"):  # log(0): an unreachable state, an infeasible sequence
            for n, ext, _, alpha, _, likelihood in _per_sequence(lp, targets, il, tl, blank):
                log_alpha[n, :il[n], :len(ext)] = np.log(alpha)
                loss[n] = -np.log(likelihood)
        if zero_infinity:
            loss[np.isinf(loss)] = 0.0
        return loss, log_alpha
    return ref


def _ctc_grad_ref(blank: int, zero_infinity: bool):
    """exp(log_probs) minus the posterior of each class per frame, 0 past a sequence."""
    def ref(lp, targets, il, tl):
        grad = np.zeros_like(lp)
        for n, ext, y, alpha, beta, likelihood in _per_sequence(lp, targets, il, tl, blank):
            if likelihood == 0.0:
                if zero_infinity:
                    continue  # an infeasible sequence's gradient is zeroed too
                raise AssertionError("a case without zero_infinity must be feasible")
            post = np.zeros_like(y)
            for t in range(len(y)):
                for s, label in enumerate(ext):
                    post[t, label] += alpha[t, s] * beta[t, s] / y[t, label] / likelihood
            grad[:il[n], n] = y - post
        return grad
    return ref


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _feasible_inputs(r):
    # blank 0; a repeated label (needs a blank between), an empty target, shorter sequences
    lp = _log_softmax(r.standard_normal((6, 4, 4)))
    targets = np.array([[1, 2, 2], [3, 1, 0], [2, 3, 3], [1, 1, 1]])
    return [lp, targets, np.array([6, 5, 4, 3]), np.array([3, 2, 1, 0])]


def _infeasible_inputs(r):
    # blank 3 (the last class); [1, 1, 1] needs 5 frames and has 4: an infinite loss
    lp = _log_softmax(r.standard_normal((5, 3, 4)))
    targets = np.array([[1, 1, 1], [0, 2, 2], [2, 0, 1]])
    return [lp, targets, np.array([4, 5, 5]), np.array([3, 2, 3])]


CTC_CASES: list[Case] = [
    Case(CTCLoss(0, False), _feasible_inputs, _ctc_loss_ref(0, False), diff=()),
    Case(CTCLoss(3, True), _infeasible_inputs, _ctc_loss_ref(3, True), diff=()),
    Case(CTCLossGrad(0, False), _feasible_inputs, _ctc_grad_ref(0, False)),
    Case(CTCLossGrad(3, True), _infeasible_inputs, _ctc_grad_ref(3, True)),
]
