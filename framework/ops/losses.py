"""More of MindSpore's functional losses: compositions of existing primitives,
so both modes and the gradients come from those primitives' rules.

Contracts (``reduction`` is 'mean', 'sum' or 'none' unless said; ``d = input - target``):

- ``l1_loss``: ``|d|``; ``mse_loss``: ``d^2``;
- ``smooth_l1_loss(input, target, beta=1.0, reduction='none')``: ``0.5 d^2 / beta`` where
  ``|d| < beta``, else ``|d| - 0.5 beta``;
- ``huber_loss(input, target, reduction='mean', delta=1.0)``: ``0.5 d^2`` where
  ``|d| < delta``, else ``delta (|d| - 0.5 delta)``;
- ``binary_cross_entropy(logits, labels, weight=None)``: probabilities in, ``-w (y log x +
  (1 - y) log(1 - x))``, each log clamped at -100 (no inf at 0 or 1);
- ``nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean',
  label_smoothing=0.0)``: log-probabilities ``(N, C)`` or ``(N, C, d1, ...)``, class
  indices; ``-w[t] x[n, t]``, ignored entries count for nothing and the mean divides by
  the sum of the counted targets' weights;
- ``kl_div(logits, labels, reduction='mean')``: ``y (log y - x)`` (0 where ``y == 0``);
  reduction also 'batchmean' (the sum over the first axis' length); as MindSpore's, no
  gradient reaches ``labels``;
- ``cosine_embedding_loss(input1, input2, target, margin=0.0)``: cosine along axis 1
  (``eps`` 1e-12 under each squared norm); ``1 - cos`` where ``target == 1``, else
  ``max(0, cos - margin)``;
- ``margin_ranking_loss(input1, input2, target, margin=0.0)``:
  ``max(0, -target (input1 - input2) + margin)``;
- ``hinge_embedding_loss(inputs, targets, margin=1.0)``: ``x`` where ``target == 1``,
  ``max(0, margin - x)`` where ``target == -1``;
- ``multi_margin_loss(input, target, p=1, margin=1, weight=None)``: per row
  ``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C``;
- ``multilabel_soft_margin_loss(input, target, weight=None)``: per row the mean over
  classes of ``-w (y log sigmoid(x) + (1 - y) log sigmoid(-x))``;
- ``gaussian_nll_loss(x, target, var, full=False, eps=1e-6)``:
  ``0.5 (log v + (x - target)^2 / v)`` with ``v = max(var, eps)``, plus ``0.5 log(2 pi)``
  when ``full``.
"""

from __future__ import annotations

import math
from typing import Any

from .activations import softplus
from .elementwise import abs as _abs
from .elementwise import cast, equal, less, log, maximum, mul, not_equal, relu, sqrt, sub
from .loss_fns import REDUCTIONS, check_classes, reduce_loss
from .masking import where
from .math_composite import clamp, xlogy
from .nn_ops import one_hot
from .reduce import reduce_mean, reduce_sum
from .shape_ops import stop_gradient, transpose


def _reduction(who: str, reduction: str, extra: tuple[str, ...] = ()) -> None:
    if reduction not in REDUCTIONS + extra:
        raise ValueError(f"{who}: reduction must be one of {REDUCTIONS + extra}, got {reduction!r}")


def _same_shape(who: str, a: Any, b: Any, what: str = "target") -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{who}: input {tuple(a.shape)} and {what} {tuple(b.shape)} must have "
                         "the same shape")


def l1_loss(input, target, reduction="mean"):  # noqa: A002  (MindSpore's parameter names)
    _reduction("l1_loss", reduction)
    return reduce_loss(_abs(sub(input, target)), reduction)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    _reduction("mse_loss", reduction)
    d = sub(input, target)
    return reduce_loss(mul(d, d), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    _reduction("smooth_l1_loss", reduction)
    if beta <= 0:
        raise ValueError(f"smooth_l1_loss: beta must be > 0, got {beta}")
    d = _abs(sub(input, target))
    loss = where(less(d, beta), mul(d, d) * (0.5 / beta), d - 0.5 * beta)
    return reduce_loss(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    _reduction("huber_loss", reduction)
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    d = _abs(sub(input, target))
    loss = where(less(d, delta), mul(d, d) * 0.5, (d - 0.5 * delta) * delta)
    return reduce_loss(loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    _reduction("binary_cross_entropy", reduction)
    _same_shape("binary_cross_entropy", logits, labels, "labels")
    log_p = maximum(log(logits), -100.0)
    log_q = maximum(log(1.0 - logits), -100.0)
    loss = -(labels * log_p + (1.0 - labels) * log_q)
    if weight is not None:
        loss = mul(loss, weight)
    return reduce_loss(loss, reduction)


def _classes_last(x: Any) -> Any:
    rank = len(x.shape)
    return transpose(x, (0, *range(2, rank), 1)) if rank > 2 else x


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """See the module docstring."""
    who = "nll_loss"
    _reduction(who, reduction)
    if len(inputs.shape) < 2 or tuple(target.shape) != (inputs.shape[0], *inputs.shape[2:]):
        raise ValueError(f"{who}: inputs (N, C, ...) {tuple(inputs.shape)} need class indices "
                         f"of shape (N, ...), got {tuple(target.shape)}")
    n_classes = inputs.shape[1]
    check_classes(target, n_classes, who, ignore_index)
    x = _classes_last(inputs)
    hot = one_hot(target, n_classes, dtype=inputs.dtype)
    w_hot = hot if weight is None else mul(hot, weight)
    valid = cast(not_equal(target, ignore_index), inputs.dtype)
    loss = -reduce_sum(mul(w_hot, x), -1) * valid
    if label_smoothing:
        per_class = x if weight is None else mul(x, weight)
        smooth = -reduce_sum(per_class, -1) * valid
        loss = loss * (1.0 - label_smoothing) + smooth * (label_smoothing / n_classes)
    if reduction != "mean":
        return reduce_loss(loss, reduction)
    return reduce_sum(loss) / reduce_sum(reduce_sum(w_hot, -1) * valid)


def kl_div(logits, labels, reduction="mean"):
    _reduction("kl_div", reduction, ("batchmean",))
    labels = stop_gradient(labels)
    loss = xlogy(labels, labels) - labels * logits
    if reduction == "batchmean":
        return reduce_sum(loss) / float(logits.shape[0] if logits.shape else 1)
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    _reduction("cosine_embedding_loss", reduction)
    _same_shape("cosine_embedding_loss", input1, input2, "input2")
    dot = reduce_sum(input1 * input2, 1)
    norms = (reduce_sum(input1 * input1, 1) + 1e-12) * (reduce_sum(input2 * input2, 1) + 1e-12)
    cos = dot / sqrt(norms)
    loss = where(equal(target, 1), 1.0 - cos, relu(cos - margin))
    return reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    _reduction("margin_ranking_loss", reduction)
    return reduce_loss(relu(-target * (input1 - input2) + margin), reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    _reduction("hinge_embedding_loss", reduction)
    hinge = relu(margin - inputs)
    loss = where(equal(targets, 1), inputs, 0.0) + where(equal(targets, -1), hinge, 0.0)
    return reduce_loss(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    who = "multi_margin_loss"
    _reduction(who, reduction)
    if p not in (1, 2):
        raise ValueError(f"{who}: p must be 1 or 2, got {p}")
    if len(input.shape) != 2 or tuple(target.shape) != (input.shape[0],):
        raise ValueError(f"{who}: input (N, C) {tuple(input.shape)} needs target (N,), got "
                         f"{tuple(target.shape)}")
    n_classes = input.shape[1]
    check_classes(target, n_classes, who)
    hot = one_hot(target, n_classes, dtype=input.dtype)
    picked = reduce_sum(input * hot, 1, keep_dims=True)
    margins = relu(margin - picked + input) * (1.0 - hot)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * reduce_sum(hot * weight, 1, keep_dims=True)
    return reduce_loss(reduce_sum(margins, 1) / float(n_classes), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    _reduction("multilabel_soft_margin_loss", reduction)
    _same_shape("multilabel_soft_margin_loss", input, target)
    loss = target * softplus(-input) + (1.0 - target) * softplus(input)
    if weight is not None:
        loss = loss * weight
    return reduce_loss(reduce_mean(loss, -1), reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    _reduction("gaussian_nll_loss", reduction)
    v = clamp(var, min=eps)
    d = x - target
    loss = 0.5 * (log(v) + d * d / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)
