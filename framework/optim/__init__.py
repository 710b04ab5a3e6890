"""Optimizers, written as pure updates ``(params, grads, state) -> (params, state)``."""

from .adam import Adam
from .adam_weight_decay import AdamWeightDecay
from .momentum import Momentum
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamWeightDecay", "Momentum", "Optimizer"]
