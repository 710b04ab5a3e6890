"""Loss cells over :mod:`framework.ops.losses`'s functions (MindSpore's
names, arguments and defaults: ``SmoothL1Loss`` reduces 'none' by default, the others
'mean'); ``RMSELoss`` is ``sqrt(mean((x - y)^2))``, ``MAELoss`` ``|x - y|`` reduced."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..ops import losses as F
from .loss import LossBase


class SmoothL1Loss(LossBase):
    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        return F.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return F.huber_loss(logits, labels, self.reduction, self.delta)


class MAELoss(LossBase):
    def construct(self, logits, label):
        return self.get_loss(ops.abs(logits - label))


class RMSELoss(LossBase):
    def __init__(self) -> None:
        super().__init__("mean")

    def construct(self, logits, label):
        return ops.sqrt(F.mse_loss(logits, label, "mean"))


class BCELoss(LossBase):
    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return F.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class NLLLoss(LossBase):
    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits, labels):
        return F.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class KLDivLoss(LossBase):
    """``reduction`` also 'batchmean' (the sum divided by the batch size)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return F.kl_div(logits, labels, self.reduction)


class CosineEmbeddingLoss(LossBase):
    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        return F.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    def __init__(self, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits, labels):
        return F.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class MultiMarginLoss(LossBase):
    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight: Any = None) -> None:
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x, target, weight=None):
        w = self.weight if weight is None else weight
        return F.multi_margin_loss(x, target, self.p, self.margin, w, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return F.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class GaussianNLLLoss(LossBase):
    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return F.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


__all__ = ["SmoothL1Loss", "HuberLoss", "MAELoss", "RMSELoss", "BCELoss", "NLLLoss", "KLDivLoss",
           "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "MultiMarginLoss",
           "MultiLabelSoftMarginLoss", "GaussianNLLLoss"]
