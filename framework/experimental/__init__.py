"""``mindspore.experimental``: ``optim`` (PyTorch-style optimizers)."""

from . import optim

__all__ = ["optim"]
