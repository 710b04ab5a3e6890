"""Optimizers, written as pure updates ``(params, grads, state) -> (params, state)``."""

from .adam import Adam
from .adam_weight_decay import AdamWeightDecay
from .adaptive import Adadelta, Adagrad, AdaMax
from .asgd import ASGD
from .lamb import Lamb
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .rprop import Rprop
from .sgd import SGD

__all__ = ["ASGD", "SGD", "AdaMax", "Adadelta", "Adagrad", "Adam", "AdamWeightDecay", "Lamb", "Momentum",
           "Optimizer", "RMSProp", "Rprop"]
