"""Connectionist temporal classification: ``ctc_loss`` and ``ctc_greedy_decoder``.

``CTCLoss(blank, zero_infinity)(log_probs (T, N, C), targets (N, S), input_lengths (N,),
target_lengths (N,))`` gives each sequence's negative log-likelihood and the forward
variables ``log_alpha (N, T, 2S + 1)`` over the targets interleaved with blanks (``-inf``
where a state is unreachable). The kernel runs the forward (and, for the gradient, the
backward) recursion in log space, one vectorized step per frame. The gradient is
MindSpore's (PyTorch's) convention for log-probabilities that come from a log-softmax:
``exp(log_probs) - posterior`` on each sequence's frames, 0 past its length (and for an
infinite loss that ``zero_infinity`` zeroes).

``ctc_greedy_decoder`` takes the best class per frame, merges repeats (optionally) and drops
the blank (the last class): its output's size depends on the values, so it needs PyNative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..primitive import Primitive, Spec, shape_str
from ._utils import argument_error
from .elementwise import cast, div, maximum, mul
from .reduce import reduce_mean, reduce_sum
from .shape_ops import reshape
from .value_shaped import _values

NEG_INF = -np.inf


def _lse(*terms: np.ndarray) -> np.ndarray:
    stack = np.stack(terms)
    top = stack.max(0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(top), safe + np.log(np.exp(stack - safe).sum(0)), NEG_INF)


def _extended(targets: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels with blanks between (N, 2S + 1) and where a skip over a blank is allowed."""
    n, s = targets.shape
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros_like(ext, bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    return ext, skip


def _forward(lp: np.ndarray, ext: np.ndarray, skip: np.ndarray, il: np.ndarray, tl: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    t_max, n, _ = lp.shape
    states = ext.shape[1]
    emit = np.take_along_axis(lp.transpose(1, 0, 2), ext[:, None, :], 2).astype(np.float64)  # (N, T, S')
    valid = np.arange(states)[None, :] < (2 * tl[:, None] + 1)
    alpha = np.full((n, t_max, states), NEG_INF)
    alpha[:, 0, 0] = emit[:, 0, 0]
    alpha[:, 0, 1] = np.where(tl > 0, emit[:, 0, 1], NEG_INF)
    for t in range(1, t_max):
        prev = alpha[:, t - 1]
        one = np.concatenate([np.full((n, 1), NEG_INF), prev[:, :-1]], 1)
        two = np.concatenate([np.full((n, 2), NEG_INF), prev[:, :-2]], 1)
        alpha[:, t] = _lse(prev, one, np.where(skip, two, NEG_INF)) + emit[:, t]
    frames = np.arange(t_max)[None, :] < il[:, None]  # past a sequence's end: -inf, as MindSpore
    alpha = np.where(valid[:, None, :] & frames[:, :, None], alpha, NEG_INF)
    last = alpha[np.arange(n), il - 1]
    end = 2 * tl
    before_end = np.where(tl > 0, last[np.arange(n), np.maximum(end - 1, 0)], NEG_INF)
    loglik = _lse(last[np.arange(n), end], before_end)
    return alpha, -loglik


def _check(x: Any, targets: Any, il: Any, tl: Any) -> None:
    if len(x.shape) != 3:
        raise ValueError(f"CTCLoss: log_probs must be (T, N, C), got {shape_str(tuple(x.shape))}")
    n = x.shape[1]
    if len(targets.shape) != 2 or targets.shape[0] != n or tuple(il.shape) != (n,) or tuple(tl.shape) != (n,):
        raise ValueError(f"CTCLoss: targets must be (N={n}, S) and the lengths (N,), got "
                         f"{shape_str(tuple(targets.shape))}, {shape_str(tuple(il.shape))}, "
                         f"{shape_str(tuple(tl.shape))}")


class CTCLoss(Primitive):
    """``CTCLoss(blank, zero_infinity)(log_probs, targets, input_lengths, target_lengths)``
    -> ``(loss (N,), log_alpha)``: see the module docstring."""

    num_outputs = 2

    def __init__(self, blank: int = 0, zero_infinity: bool = False) -> None:
        super().__init__(blank=int(blank), zero_infinity=bool(zero_infinity))

    def infer(self, x, targets, il, tl):
        _check(x, targets, il, tl)
        t, n, _ = x.shape
        return Spec((n,), x.dtype), Spec((n, t, 2 * targets.shape[1] + 1), x.dtype)

    def _prepare(self, x, targets, il, tl):
        il, tl = il.astype(np.int64), tl.astype(np.int64)
        if (il < 1).any() or (il > x.shape[0]).any() or (tl < 0).any() or (tl > targets.shape[1]).any():
            raise ValueError(f"CTCLoss: input_lengths {il.tolist()} must lie in [1, {x.shape[0]}] and "
                             f"target_lengths {tl.tolist()} in [0, {targets.shape[1]}]")
        ext, skip = _extended(targets.astype(np.int64), self.blank)
        return ext, skip, il, tl

    def kernel(self, x, targets, il, tl):
        ext, skip, il, tl = self._prepare(x, targets, il, tl)
        alpha, loss = _forward(x, ext, skip, il, tl)
        if self.zero_infinity:
            loss = np.where(np.isinf(loss), 0.0, loss)
        return loss.astype(x.dtype), alpha.astype(x.dtype)

    def bprop(self, x, targets, il, tl, *, out, dout, needs):
        grad = CTCLossGrad(self.blank, self.zero_infinity)(x, targets, il, tl)
        return mul(grad, reshape(dout[0], (1, -1, 1))), None, None, None


class CTCLossGrad(CTCLoss):
    """The gradient of each sequence's ``CTCLoss`` with respect to ``log_probs``."""

    num_outputs = 1
    differentiable = False
    first_order_only = True
    bprop = Primitive.bprop  # not CTCLoss's: no gradient of the gradient

    def infer(self, x, targets, il, tl):
        _check(x, targets, il, tl)
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x, targets, il, tl):
        ext, skip, il, tl = self._prepare(x, targets, il, tl)
        alpha, loss = _forward(x, ext, skip, il, tl)
        # the backward variables are the forward ones of the time-reversed sequences
        t_max, n, c = x.shape
        steps = np.arange(t_max)[:, None]
        order = np.where(steps < il[None, :], il[None, :] - 1 - steps, steps)  # (T, N)
        reversed_lp = np.take_along_axis(x, order[:, :, None], 0)
        states = ext.shape[1]
        lengths = 2 * tl + 1
        flip = np.where(np.arange(states)[None, :] < lengths[:, None],
                        lengths[:, None] - 1 - np.arange(states)[None, :], np.arange(states)[None, :])
        ext_r = np.take_along_axis(ext, flip, 1)
        skip_r = np.zeros_like(skip)
        skip_r[:, 2:] = (ext_r[:, 2:] != ext_r[:, :-2]) & (ext_r[:, 2:] != self.blank)
        beta_r, _ = _forward(reversed_lp, ext_r, skip_r, il, tl)
        beta = np.take_along_axis(np.take_along_axis(beta_r, order.T[:, :, None], 1), flip[:, None, :], 2)
        emit = np.take_along_axis(x.transpose(1, 0, 2), ext[:, None, :], 2)
        with np.errstate(invalid="ignore"):  # an infeasible sequence: inf - inf, zeroed or nan below
            log_post = alpha + beta - emit + loss[:, None, None]  # (N, T, S'): log occupancy
        post = np.zeros((n, t_max, c))
        with np.errstate(over="ignore", invalid="ignore"):
            np.add.at(post, (np.arange(n)[:, None, None], np.arange(t_max)[None, :, None],
                             np.broadcast_to(ext[:, None, :], log_post.shape)), np.exp(log_post))
        grad = np.exp(x.transpose(1, 0, 2).astype(np.float64)) - post
        grad = np.where((np.arange(t_max)[None, :] < il[:, None])[:, :, None], grad, 0.0)
        if self.zero_infinity:
            grad = np.where(np.isinf(loss)[:, None, None], 0.0, grad)
        return grad.transpose(1, 0, 2).astype(x.dtype)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """MindSpore's ``ops.ctc_loss``: ``(loss, log_alpha)``; ``reduction`` 'none' (per
    sequence), 'sum', or 'mean' (each loss over its target length, then the batch mean)."""
    if reduction not in ("none", "mean", "sum"):
        raise argument_error("ctc_loss", ValueError(
            f"reduction must be 'none', 'mean' or 'sum', got {reduction!r}"))
    loss, log_alpha = CTCLoss(blank, zero_infinity)(log_probs, targets, input_lengths, target_lengths)
    if reduction == "sum":
        loss = reduce_sum(loss)
    elif reduction == "mean":
        loss = reduce_mean(div(loss, maximum(cast(target_lengths, loss.dtype), 1.0)))
    return loss, log_alpha


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """``(decoded_indices (K, 2), decoded_values (K,), decoded_shape (2,), log_probability
    (N, 1))``: per sequence the best class of each frame, repeats merged, the blank (last
    class) dropped, as a sparse matrix; the log-probability is minus the sum of the best
    scores. PyNative only (the output's size depends on the values)."""
    x = _values("ctc_greedy_decoder", inputs)
    lengths = _values("ctc_greedy_decoder", sequence_length).astype(np.int64)
    if x.ndim != 3 or lengths.shape != (x.shape[1],) or (lengths > x.shape[0]).any() or (lengths < 0).any():
        raise argument_error("ctc_greedy_decoder", ValueError(
            f"inputs must be (T, N, C) with sequence_length (N,) in [0, T], got {x.shape} and "
            f"{lengths.tolist()}"))
    blank = x.shape[2] - 1
    best, score = x.argmax(2), x.max(2)
    frames = np.arange(x.shape[0])[:, None] < lengths[None, :]
    log_prob = -np.where(frames, score, 0).sum(0, keepdims=True).T
    rows: list[np.ndarray] = []
    for b in range(x.shape[1]):  # one sparse row per sequence
        path = best[:lengths[b], b]
        if merge_repeated and path.size:
            path = path[np.concatenate(([True], path[1:] != path[:-1]))]
        rows.append(path[path != blank])
    indices = np.array([(b, i) for b, row in enumerate(rows) for i in range(row.size)], np.int64)
    indices = indices.reshape(-1, 2)
    values = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    shape = np.array([x.shape[1], max((r.size for r in rows), default=0)], np.int64)
    return Tensor(indices), Tensor(values), Tensor(shape), Tensor(log_prob.astype(x.dtype))
