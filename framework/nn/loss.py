"""Loss functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..graph_mode import is_tracing
from .cell import Cell

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of {_REDUCTIONS}, "
                             f"got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x: Any) -> Any:
        if self.reduction == "mean":
            return ops.reduce_mean(x)
        if self.reduction == "sum":
            return ops.reduce_sum(x)
        return x


def _check_labels(logits: Any, labels: Any, sparse: bool, who: str) -> None:
    expected = tuple(logits.shape[:-1]) if sparse else tuple(logits.shape)
    if tuple(labels.shape) != expected:
        kind = "class indices" if sparse else "one-hot/probability labels"
        raise ValueError(f"{who}: logits {tuple(logits.shape)} need {kind} of shape {expected}, "
                         f"got labels {tuple(labels.shape)}")


def _check_classes(labels: Any, n_classes: int, who: str, ignore_index: int | None = None) -> None:
    """Class indices must lie in ``[0, n_classes)`` (one-hot of anything else is all zeros,
    which gives a silent loss of 0). Checked where values exist: PyNative, not tracing."""
    if is_tracing():
        return
    values = np.asarray(labels.asnumpy())
    if ignore_index is not None:
        values = values[values != ignore_index]
    if values.size and (values.min() < 0 or values.max() >= n_classes):
        bad = int(values.max()) if values.max() >= n_classes else int(values.min())
        raise ValueError(f"{who}: label {bad} is out of range for logits with {n_classes} classes "
                         f"(labels must be in [0, {n_classes - 1}]); give the network as many "
                         "outputs as the data has classes")


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross entropy of softmax(logits); ``sparse=True`` takes class indices.

    MindSpore's defaults: ``sparse=False, reduction='none'``.
    """

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits, labels):
        _check_labels(logits, labels, self.sparse, "SoftmaxCrossEntropyWithLogits")
        if self.sparse:
            _check_classes(labels, logits.shape[-1], "SoftmaxCrossEntropyWithLogits")
            labels = ops.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        per_sample = ops.neg(ops.reduce_sum(ops.mul(labels, ops.log_softmax(logits)), -1))
        return self.get_loss(per_sample)


class CrossEntropyLoss(LossBase):
    """Cross entropy with class-index or probability targets, optional class ``weight``,
    ``ignore_index`` and ``label_smoothing`` (PyTorch/MindSpore 2.x semantics)."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got "
                             f"{label_smoothing}")
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, logits, labels):
        n_classes = logits.shape[-1]
        sparse = labels.dtype.name.startswith(("int", "uint"))
        _check_labels(logits, labels, sparse, "CrossEntropyLoss")
        if sparse:
            _check_classes(labels, n_classes, "CrossEntropyLoss", self.ignore_index)
        log_p = ops.log_softmax(logits)
        target = ops.one_hot(labels, n_classes, dtype=logits.dtype) if sparse else labels
        if self.label_smoothing:
            target = target * (1.0 - self.label_smoothing) + self.label_smoothing / n_classes
        weighted = target if self.weight is None else ops.mul(target, self.weight)
        per_sample = ops.neg(ops.reduce_sum(ops.mul(weighted, log_p), -1))
        if not sparse:
            return self.get_loss(per_sample)
        valid = ops.cast(ops.not_equal(labels, self.ignore_index), logits.dtype)
        per_sample = ops.mul(per_sample, valid)
        if self.reduction != "mean":
            return self.get_loss(per_sample)
        if self.weight is None:
            denom = ops.reduce_sum(valid)
        else:
            class_w = ops.reduce_sum(ops.mul(ops.one_hot(labels, n_classes, dtype=logits.dtype),
                                             self.weight), -1)
            denom = ops.reduce_sum(ops.mul(class_w, valid))
        return ops.div(ops.reduce_sum(per_sample), denom)


class MSELoss(LossBase):
    def construct(self, logits, labels):
        diff = ops.sub(logits, labels)
        return self.get_loss(ops.mul(diff, diff))


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.abs(ops.sub(logits, labels)))
