"""A tiny classification problem and network shared by the trainer tests and train_script.py."""

from __future__ import annotations

from typing import Any

import numpy as np

import datasets
import framework as ms
from framework import Tensor, nn
from framework.train import Model

N_SAMPLES, BATCH, FEATURES, CLASSES = 96, 8, 16, 3
STEPS_PER_EPOCH = N_SAMPLES // BATCH


def data(n: int = N_SAMPLES, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` 1x4x4 float images; the label is the quadrant (of 3) holding the largest mean."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4, 4)).astype(np.float32)
    quadrants = np.stack([x[:, :2, :2].mean((1, 2)), x[:, :2, 2:].mean((1, 2)), x[:, 2:, :].mean((1, 2))], 1)
    return x, quadrants.argmax(1).astype(np.int32)


def loader(seed: int = 1, shuffle: bool = True, batch_size: int = BATCH, drop_remainder: bool = True,
           n: int = N_SAMPLES) -> datasets.BatchIterator:
    images, labels = data(n)
    return datasets.make_loader((images, labels), batch_size=batch_size, shuffle=shuffle, seed=seed,
                                drop_remainder=drop_remainder)


def network(dropout: bool = True) -> nn.Cell:
    layers: list[nn.Cell] = [nn.Flatten(), nn.Dense(FEATURES, 12), nn.ReLU()]
    if dropout:
        layers.append(nn.Dropout(p=0.25))  # makes the framework RNG part of the state
    layers.append(nn.Dense(12, CLASSES))
    return nn.SequentialCell(layers)


def loss_fn() -> nn.Cell:
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def model(seed: int = 0, mode: Any = None, optimizer: str = "momentum", lr: float = 0.1,
          dropout: bool = True, **kwargs: Any) -> Model:
    """A fresh Model; ``seed`` fixes the initial weights."""
    ms.set_seed(seed)
    net = network(dropout)
    if optimizer == "adam":
        opt = nn.Adam(net.trainable_params(), learning_rate=lr * 0.1)
    else:
        opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return Model(net, loss_fn(), opt, metrics=kwargs.pop("metrics", {"accuracy", "loss"}), mode=mode,
                 **kwargs)


def params(model: Model) -> dict[str, np.ndarray]:
    """Every Parameter of the train network (weights and optimizer state), copied."""
    return {p.name: np.array(p.asnumpy(), copy=True) for _, p in model.train_network.parameters_and_names()}


def manual_losses(seed: int, epochs: int, lr: float = 0.1) -> tuple[list[float], dict[str, np.ndarray]]:
    """The reference: the README's hand-written PyNative loop over the same batches."""
    ms.set_seed(seed)
    net = network()
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn()), opt)
    step.set_train()
    losses = []
    it = loader()
    for _ in range(epochs):
        for x, y in it:
            losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
    return losses, {p.name: p.asnumpy().copy() for _, p in step.parameters_and_names()}
