"""``mindspore.nn.optim``: the optimizers under MindSpore's module path
(``from mindspore.nn.optim import Momentum``); they live in :mod:`framework.optim`."""

from ..optim import SGD, Adam, AdamWeightDecay, Lamb, Momentum, Optimizer, RMSProp

__all__ = ["SGD", "Adam", "AdamWeightDecay", "Lamb", "Momentum", "Optimizer", "RMSProp"]
