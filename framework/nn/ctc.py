"""``nn.CTCLoss``: connectionist temporal classification (Graves et al., 2006), the negative
log-likelihood of the targets summed over their alignments with the input frames.

The forward-backward recursions are their own algorithm, so the loss is a primitive here
(NumPy kernel, log space; graph mode calls it on the host) whose gradient is a second one
computing ``alpha * beta`` sums. The gradient with respect to ``log_probs`` is the one
MindSpore's (and PyTorch's) kernels give: ``exp(log_probs) - exp(log(sum alpha beta) + nll
- log_probs)``, the gradient of the logits through a log-softmax in front (measured against
MindSpore 2.10), zero past an input's length. Both primitives run on the host in graph
mode (no TVM lowering), so they stay out of ``Primitive.registry`` (``abstract=True``, as
the complex primitives): tests/mindspore_ref/test_ms_nn_cells.py checks them, against
MindSpore and against a sum over all alignments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..primitive import Primitive, Spec
from .loss import LossBase

NEG = -np.inf


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    stacked = np.stack(terms)
    top = stacked.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(stacked - safe).sum(axis=0))


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    ext = np.full(2 * len(target) + 1, blank, dtype=np.int64)
    ext[1::2] = target
    return ext


def _alpha_beta(lp: np.ndarray, ext: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Log forward and backward variables (T, S) of one sample and its log-likelihood."""
    steps, size = lp.shape[0], len(ext)
    skip = np.zeros(size, bool)  # s may come from s - 2: a label differing from two back
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    emit = lp[:, ext]  # T, S
    alpha = np.full((steps, size), NEG)
    alpha[0, 0] = emit[0, 0]
    if size > 1:
        alpha[0, 1] = emit[0, 1]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = np.concatenate([[NEG], prev[:-1]])
        two = np.where(skip, np.concatenate([[NEG, NEG], prev[:-2]]), NEG)
        alpha[t] = _logsumexp(prev, one, two) + emit[t]
    beta = np.full((steps, size), NEG)
    beta[-1, -1] = emit[-1, -1]
    if size > 1:
        beta[-1, -2] = emit[-1, -2]
    skip_back = np.zeros(size, bool)  # s may go to s + 2
    skip_back[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [NEG]])
        two = np.where(skip_back, np.concatenate([nxt[2:], [NEG, NEG]]), NEG)
        beta[t] = _logsumexp(nxt, one, two) + emit[t]
    ends = alpha[-1, -2:] if size > 1 else alpha[-1, -1:]
    return alpha, beta, float(_logsumexp(*ends))


def _samples(lp, targets, input_lengths, target_lengths):
    for n in range(lp.shape[1]):
        steps, length = int(input_lengths[n]), int(target_lengths[n])
        yield n, steps, np.asarray(targets[n, :length], np.int64)


class CTCLossPrim(Primitive, abstract=True):
    """``(log_probs (T, N, C), targets (N, S), input_lengths (N), target_lengths (N)) ->
    nll (N)``; ``zero_infinity``: an impossible alignment costs 0 instead of inf."""

    def __init__(self, blank: int = 0, zero_infinity: bool = False) -> None:
        super().__init__(blank=int(blank), zero_infinity=bool(zero_infinity))

    def infer(self, lp: Any, targets: Any, input_lengths: Any, target_lengths: Any) -> Spec:
        if len(lp.shape) != 3 or len(targets.shape) != 2:
            raise ValueError(f"CTCLoss: log_probs must be (T, N, C) and targets (N, S), got "
                             f"{tuple(lp.shape)} and {tuple(targets.shape)}")
        n = lp.shape[1]
        for name, value in (("targets", targets.shape[0]), ("input_lengths", input_lengths.shape[0]),
                            ("target_lengths", target_lengths.shape[0])):
            if value != n:
                raise ValueError(f"CTCLoss: {name} has {value} rows for a batch of {n}")
        return Spec((n,), np.dtype(lp.dtype))

    def kernel(self, lp, targets, input_lengths, target_lengths):
        out = np.zeros(lp.shape[1], np.float64)
        for n, steps, target in _samples(lp, targets, input_lengths, target_lengths):
            _, _, loglik = _alpha_beta(lp[:steps, n].astype(np.float64), _extended(target, self.blank),
                                       self.blank)
            out[n] = -loglik
        if self.zero_infinity:
            out[np.isinf(out)] = 0.0
        return out.astype(lp.dtype)

    def bprop(self, lp, targets, input_lengths, target_lengths, *, out, dout, needs):
        grad = CTCLossGradPrim(self.blank, self.zero_infinity)(lp, targets, input_lengths,
                                                                target_lengths)
        return ops.mul(grad, ops.reshape(dout, (1, -1, 1))), None, None, None


class CTCLossGradPrim(Primitive, abstract=True):
    """The gradient of each sample's loss with respect to ``log_probs`` (see the module
    docstring), (T, N, C)."""

    differentiable = False

    def __init__(self, blank: int = 0, zero_infinity: bool = False) -> None:
        super().__init__(blank=int(blank), zero_infinity=bool(zero_infinity))

    def infer(self, lp: Any, targets: Any, input_lengths: Any, target_lengths: Any) -> Spec:
        return Spec(tuple(lp.shape), np.dtype(lp.dtype))

    def kernel(self, lp, targets, input_lengths, target_lengths):
        grad = np.zeros(lp.shape, np.float64)
        for n, steps, target in _samples(lp, targets, input_lengths, target_lengths):
            x = lp[:steps, n].astype(np.float64)
            ext = _extended(target, self.blank)
            alpha, beta, loglik = _alpha_beta(x, ext, self.blank)
            if not np.isfinite(loglik):
                if self.zero_infinity:
                    continue
            both = alpha + beta  # T, S; summed per class below
            lcab = np.full(x.shape, NEG)
            for s, c in enumerate(ext):
                lcab[:, c] = _logsumexp(lcab[:, c], both[:, s])
            with np.errstate(over="ignore", invalid="ignore"):
                grad[:steps, n] = np.exp(x) - np.exp(lcab - loglik - x)
        return grad.astype(lp.dtype)


class CTCLoss(LossBase):
    """``CTCLoss(blank=0, reduction='mean', zero_infinity=False)(log_probs, targets,
    input_lengths, target_lengths)``: log_probs (T, N, C) (or (T, C) with 1-d targets: one
    sample), targets (N, S) padded, lengths per sample; 'mean' divides each loss by its
    target length (at least 1) before the batch mean."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"CTCLoss: blank must be an int >= 0, got {blank!r}")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"CTCLoss: zero_infinity must be a bool, got {zero_infinity!r}")
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        single = len(log_probs.shape) == 2
        if single:
            log_probs = ops.expand_dims(log_probs, 1)
            if len(targets.shape) == 1:
                targets = ops.expand_dims(targets, 0)
        loss = CTCLossPrim(self.blank, self.zero_infinity)(log_probs, targets, input_lengths,
                                                           target_lengths)
        if self.reduction == "sum":
            loss = ops.reduce_sum(loss)
        elif self.reduction == "mean":
            lengths = ops.maximum(ops.cast(target_lengths, loss.dtype), 1.0)
            loss = ops.reduce_mean(loss / lengths)
        return ops.squeeze(loss, 0) if single and self.reduction == "none" else loss
