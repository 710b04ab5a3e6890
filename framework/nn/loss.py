"""Loss functions."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..ops import nn_ops
from ..ops.loss_fns import binary_cross_entropy_with_logits, cross_entropy
from ..ops.loss_fns import check_classes as _check_classes
from ..ops.loss_fns import check_labels as _check_labels
from .cell import Cell

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of {_REDUCTIONS}, "
                             f"got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x: Any, weights: Any = 1.0) -> Any:
        """``x`` scaled by ``weights`` (a number or a tensor broadcast to it), then reduced."""
        if not (isinstance(weights, int | float) and weights == 1):
            x = ops.mul(x, ops.cast(weights, x.dtype) if hasattr(weights, "dtype") else weights)
        if self.reduction == "mean":
            return ops.reduce_mean(x)
        if self.reduction == "sum":
            return ops.reduce_sum(x)
        return x


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
            labels = nn_ops.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        per_sample = ops.neg(ops.reduce_sum(ops.mul(labels, ops.log_softmax(logits)), -1))
        return self.get_loss(per_sample)


class CrossEntropyLoss(LossBase):
    """Cross entropy with class-index or probability targets, optional class ``weight``,
    ``ignore_index`` and ``label_smoothing`` (PyTorch/MindSpore 2.x semantics): logits
    ``(N, C)`` or ``(N, C, d1, ...)``, see ``ops.cross_entropy``."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got "
                             f"{label_smoothing}")
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, logits, labels):
        return cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                             self.label_smoothing, who="CrossEntropyLoss")


class BCEWithLogitsLoss(LossBase):
    """MindSpore's ``nn.BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)``:
    sigmoid + binary cross entropy in one stable expression, targets of the logits' shape
    (``ops.binary_cross_entropy_with_logits``)."""

    def __init__(self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None) -> None:
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        return binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                self.reduction, who="BCEWithLogitsLoss")


class MSELoss(LossBase):
    def construct(self, logits, labels):
        diff = ops.sub(logits, labels)
        return self.get_loss(ops.mul(diff, diff))


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.abs(ops.sub(logits, labels)))
