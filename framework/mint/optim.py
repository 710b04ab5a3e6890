"""``mint.optim``: PyTorch-style optimizers (``params, lr, betas, eps, weight_decay, ...,
maximize``) with ``framework.experimental.optim``'s signatures. ``SGD`` and ``AdamW`` are
that module's classes; ``Adam`` is PyTorch's update, as MindSpore 2.10's ``mint.optim.Adam``
computes it (``eps`` added after the bias correction: ``p -= lr / (1 - b1^t) * m /
(sqrt(v) / sqrt(1 - b2^t) + eps)``, weight decay added to the gradient), unlike
``experimental.optim.Adam`` (``nn.Adam``'s, ``eps`` before the correction). ``FusedAdamW``
is ``AdamW`` (one fused kernel in MindSpore, the same update)."""

from __future__ import annotations

from ..experimental.optim import SGD, AdamW, _Adam


class Adam(_Adam):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
    amsgrad=False, *, maximize=False)``: PyTorch's update (see the module doc)."""


FusedAdamW = AdamW

__all__ = ["SGD", "Adam", "AdamW", "FusedAdamW"]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("mint.optim", __name__)
