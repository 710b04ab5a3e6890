"""The optimizers and losses an experiment file names (``optimizer.name``, ``loss.name``):
one table each, name -> builder, instead of if/elif chains. A new optimizer or loss is one
entry here (and its name in the schema's ``Literal``, trainer/config.py).

Contract: an optimizer builder takes ``(params, OptimizerConfig, lr)`` (``params`` as
MindSpore's optimizers accept them: a list of Parameters or of group dicts; ``lr`` a number
or one per update, trainer/schedule.py) and returns an ``nn.Optimizer``; a loss builder
takes the ``LossConfig`` and returns a loss Cell of ``(logits, labels)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from framework import nn

from .config import momentum_of


def _moments(o: Any) -> dict[str, float]:
    """beta1, beta2 and (when set) eps of the Adam family."""
    return {"beta1": o.beta1, "beta2": o.beta2, **({"eps": o.eps} if o.eps is not None else {})}


def _adamw(params: Any, o: Any, lr: Any) -> nn.Optimizer:
    if not o.bias_correction:
        return nn.AdamWeightDecay(params, lr, weight_decay=o.weight_decay, **_moments(o))
    from framework.experimental.optim import AdamW

    groups = [g for g in params if not (isinstance(g, dict) and "order_params" in g)]
    return AdamW(groups, lr, betas=(o.beta1, o.beta2), eps=1e-8 if o.eps is None else o.eps,
                 weight_decay=o.weight_decay)


OPTIMIZERS: dict[str, Callable[[Any, Any, Any], nn.Optimizer]] = {
    "momentum": lambda p, o, lr: nn.Momentum(p, lr, momentum_of(o), weight_decay=o.weight_decay),
    "sgd": lambda p, o, lr: nn.SGD(p, lr, momentum=momentum_of(o), weight_decay=o.weight_decay),
    "adam": lambda p, o, lr: nn.Adam(p, lr, weight_decay=o.weight_decay, **_moments(o)),
    # decoupled weight decay: MindSpore's AdamWeightDecay, or PyTorch's AdamW (bias_correction)
    "adamw": lambda p, o, lr: _adamw(p, o, lr),
    "rmsprop": lambda p, o, lr: nn.RMSProp(p, lr, decay=o.decay, momentum=momentum_of(o),
                                       centered=o.centered, weight_decay=o.weight_decay),
    "lamb": lambda p, o, lr: nn.Lamb(p, lr, weight_decay=o.weight_decay, **_moments(o)),
}

LOSSES: dict[str, Callable[[Any], nn.Cell]] = {
    "softmax_cross_entropy": lambda c: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=c.reduction),
    "cross_entropy": lambda c: nn.CrossEntropyLoss(reduction=c.reduction,
                                                   label_smoothing=c.label_smoothing),
}


def build_optimizer(params: Any, config: Any, lr: float | list[float] | None = None) -> nn.Optimizer:
    """``lr``: the learning rate (default ``config.learning_rate``), or one per update."""
    return OPTIMIZERS[config.name](params, config, config.learning_rate if lr is None else lr)


def build_loss(config: Any) -> nn.Cell:
    # label smoothing is CrossEntropyLoss's (SoftmaxCrossEntropyWithLogits has none)
    return LOSSES["cross_entropy" if config.label_smoothing else config.name](config)
