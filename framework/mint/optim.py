"""``mint.optim``: PyTorch-style optimizers (``params, lr, betas, eps, weight_decay, ...,
maximize``), the same classes as ``framework.experimental.optim`` (MindSpore's
``mint.optim`` and ``experimental.optim`` share these signatures); ``FusedAdamW`` is
``AdamW`` (one fused kernel in MindSpore, the same update)."""

from __future__ import annotations

from ..experimental.optim import SGD, Adam, AdamW

FusedAdamW = AdamW

__all__ = ["SGD", "Adam", "AdamW", "FusedAdamW"]
