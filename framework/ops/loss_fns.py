"""Functional losses: ``ops.cross_entropy`` and ``ops.binary_cross_entropy_with_logits``
(MindSpore 2.x / PyTorch semantics).

A composition of existing primitives (LogSoftmax, OneHot, Mul, ReduceSum, ...), exact
and fusable in graph mode (elementwise products and one reduction over the classes):
no primitive of its own, so its gradient is the composition's.
"""

from __future__ import annotations

from typing import Any

from ..errors import LabelError
from .activations import softplus
from .elementwise import add, cast, div, mul, neg, not_equal, sub
from .nn_ops import log_softmax, one_hot
from .range_check import check_range
from .reduce import reduce_mean, reduce_sum
from .shape_ops import transpose

REDUCTIONS = ("mean", "sum", "none")


def check_labels(logits: Any, labels: Any, sparse: bool, who: str, class_axis: int = -1) -> None:
    """Class indices have the logits' shape without the class axis, probabilities the
    logits' shape."""
    shape = tuple(logits.shape)
    axis = class_axis % max(len(shape), 1)
    expected = shape[:axis] + shape[axis + 1:] if sparse else shape
    if tuple(labels.shape) != expected:
        kind = "class indices" if sparse else "one-hot/probability labels"
        raise ValueError(f"{who}: logits {tuple(logits.shape)} need {kind} of shape {expected}, "
                         f"got labels {tuple(labels.shape)}")


def check_classes(labels: Any, n_classes: int, who: str, ignore_index: int | None = None) -> None:
    """Class indices must lie in ``[0, n_classes)`` (one-hot of anything else is all zeros,
    which gives a silent loss of 0); in both modes (``range_check``: graph mode checks the
    labels in the compiled step, before it updates anything)."""
    def describe(bad: int) -> str:
        return (f"{who}: label {bad} is out of range for logits with {n_classes} classes "
                f"(labels must be in [0, {n_classes - 1}]); give the network as many "
                "outputs as the data has classes")

    check_range(labels, 0, n_classes, describe, LabelError, ignore_index)


def reduce_loss(x: Any, reduction: str) -> Any:
    if reduction == "mean":
        return reduce_mean(x)
    if reduction == "sum":
        return reduce_sum(x)
    return x


def _classes_last(x: Any) -> Any:
    """``(N, C, d1, ...)`` as ``(N, d1, ..., C)``."""
    rank = len(x.shape)
    return transpose(x, (0, *range(2, rank), 1))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0, who="cross_entropy"):
    """MindSpore's ``ops.cross_entropy``: ``input`` logits of shape ``(C,)``, ``(N, C)`` or
    ``(N, C, d1, ...)`` (classes on axis 1); ``target`` class indices (integers, the input's
    shape without the class axis; ``ignore_index`` entries count for nothing, not even in
    the mean's denominator) or class probabilities (floats, the input's shape). ``weight``
    rescales each class; with class indices the mean divides by the sum of the targets'
    weights, with probabilities by the number of samples (as PyTorch)."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{who}: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{who}: label_smoothing must be in [0, 1], got {label_smoothing}")
    sparse = target.dtype.np.kind in "iu"
    check_labels(input, target, sparse, who, 1 if len(input.shape) > 1 else 0)
    if len(input.shape) > 2:
        input = _classes_last(input)
        target = target if sparse else _classes_last(target)
    n_classes = input.shape[-1]
    if sparse:
        check_classes(target, n_classes, who, ignore_index)
    log_p = log_softmax(input)
    hot = one_hot(target, n_classes, dtype=input.dtype) if sparse else target
    smooth = hot
    if label_smoothing:
        smooth = hot * (1.0 - label_smoothing) + label_smoothing / n_classes
    weighted = smooth if weight is None else mul(smooth, weight)
    per_sample = neg(reduce_sum(mul(weighted, log_p), -1))
    if not sparse:
        return reduce_loss(per_sample, reduction)
    valid = cast(not_equal(target, ignore_index), input.dtype)
    per_sample = mul(per_sample, valid)
    if reduction != "mean":
        return reduce_loss(per_sample, reduction)
    if weight is None:
        denom = reduce_sum(valid)
    else:
        denom = reduce_sum(mul(reduce_sum(mul(hot, weight), -1), valid))
    return div(reduce_sum(per_sample), denom)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,  # noqa: A002
                                     reduction="mean", who="binary_cross_entropy_with_logits"):
    """MindSpore's ``ops.binary_cross_entropy_with_logits``: for logits ``x`` and targets
    ``y`` in [0, 1] of the same shape, ``-w [p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]``
    with ``w`` = ``weight`` and ``p`` = ``pos_weight`` (each broadcast against ``x``; 1 when
    None), computed as ``(1 - y) x + (1 + (p - 1) y) softplus(-x)``: no overflow for any
    ``x``, and the gradient ``(1 - y) - (1 + (p - 1) y) sigmoid(-x)`` exact at 0 too."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{who}: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"{who}: logits {tuple(input.shape)} need targets of the same shape, "
                         f"got {tuple(target.shape)}")
    target = cast(target, input.dtype)
    log_weight = softplus(neg(input))
    if pos_weight is not None:
        log_weight = mul(add(1.0, mul(sub(pos_weight, 1.0), target)), log_weight)
    loss = add(mul(sub(1.0, target), input), log_weight)
    if weight is not None:
        loss = mul(loss, weight)
    return reduce_loss(loss, reduction)
