"""Optimizers, written as pure updates ``(params, grads, state) -> (params, state)``."""

from .adam import Adam
from .adam_weight_decay import AdamWeightDecay
from .lamb import Lamb
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamWeightDecay", "Lamb", "Momentum", "Optimizer", "RMSProp"]
