"""LeNet-5 on real MNIST digits (mnist-10k) with the MindSpore tutorial's settings.

Settings: ``transforms="lenet"``, batch 32, ``nn.Momentum(lr=0.01, momentum=0.9)``,
``SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")``, PyNative, seed 0.
Measured test accuracy (10,000 official test images), seeds 0 / 1 / 2:
after 1 epoch (312 steps) 90.6% / 86.3% / 90.3%; after 2 epochs 94.5% / 95.2% / 94.6%;
after 3 epochs 96.3% / 97.3% / 96.8%. One epoch of 10k images is too few steps at
lr 0.01 for 95% (the tutorial's single epoch is 1875 steps of the 60k set), so that test
asks for 95% after 3 epochs; the second test reaches 95% in one epoch with Adam.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import datasets
import framework as ms
from framework import nn
from framework.train import History, Model
from trainer.models import LeNet5

DATA_DIR = os.environ.get("TRAIN_DATA_DIR")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DATA_DIR or not (Path(DATA_DIR) / "mnist-10k").is_dir(),
                       reason="needs real MNIST: set TRAIN_DATA_DIR to a folder holding mnist-10k/ "
                              "(e.g. TRAIN_DATA_DIR=../shared/datasets)"),
]


def mnist_10k(batch_size: int) -> tuple[datasets.BatchIterator, datasets.BatchIterator]:
    """Seeded training batches and the whole official test set, LeNet preprocessing."""
    ms.set_seed(0)
    train = datasets.make_loader("mnist-10k", "train", batch_size=batch_size, seed=0,
                                 transforms="lenet", download=False)
    test = datasets.make_loader("mnist-10k", "test", batch_size=1000, shuffle=False,
                                drop_remainder=False, transforms="lenet", download=False)
    return train, test


def test_lenet_reaches_95_percent_on_mnist_10k() -> None:
    train, test = mnist_10k(32)
    net = LeNet5()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9),
                  metrics={"accuracy", "loss"}, mode="pynative")
    history = History()
    model.fit(3, train, test, callbacks=[history])
    accuracy = history.history["eval_accuracy"]
    print(f"LeNet-5 mnist-10k test accuracy per epoch: {[f'{a:.2%}' for a in accuracy]}")
    assert accuracy[0] >= 0.85, f"after 1 epoch: {accuracy[0]:.2%} (measured 90.6% with seed 0)"
    assert accuracy[2] >= 0.95, f"after 3 epochs: {accuracy[2]:.2%} (measured 96.3% with seed 0)"
    assert history.history["eval_loss"][2] < history.history["eval_loss"][0]


def test_lenet_reaches_95_percent_after_one_epoch_with_adam() -> None:
    """One epoch of mnist-10k does reach 95% with Adam (lr 0.002, batch 16: 625 steps).

    Measured (graph mode, full test set): seeds 0/1/2/3 give 95.7% / 95.2% / 95.4% / 95.2%.
    Runs in graph mode (the whole step compiled), so it also checks graph-mode training.
    """
    train, test = mnist_10k(16)
    net = LeNet5()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Adam(net.trainable_params(), learning_rate=0.002),
                  metrics={"accuracy"}, mode="graph")
    model.train(1, train)
    accuracy = model.eval(test)["accuracy"]
    assert accuracy >= 0.95, f"after 1 epoch: {accuracy:.2%} (measured 95.7% with seed 0)"
