"""LeNet-5 trains in PyNative mode: the loss falls and the test accuracy is real."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import datasets
import framework as ms
from framework import Tensor, nn
from trainer.models import LeNet5


def train_lenet(steps: int, dataset: str, root: str | None = None) -> tuple[list[float], float]:
    """Plain PyNative training loop (no trainer): per-step losses and test accuracy."""
    ms.set_seed(0)
    train = datasets.make_loader(dataset, root=root, batch_size=32, transforms="lenet")
    test = datasets.make_loader(dataset, "test", root=root, batch_size=256, shuffle=False,
                                drop_remainder=False, limit=2000, transforms="lenet")
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                               nn.Momentum(net.trainable_params(), 0.01, 0.9))
    losses: list[float] = []
    while len(losses) < steps:
        for x, y in train:
            losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
            if len(losses) == steps:
                break
    correct = sum(int((net(Tensor(x)).asnumpy().argmax(1) == y).sum()) for x, y in test)
    return losses, correct / test.num_samples


def _write_synthetic_mnist(root: Path, n_train: int = 640, n_test: int = 200) -> None:
    """Ten noisy class templates in MNIST's IDX layout (used when no real data is set)."""
    rng = np.random.default_rng(0)
    templates = np.kron(rng.integers(0, 2, (10, 7, 7)), np.ones((4, 4))) * 255.0
    for split, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = np.clip(templates[labels] * 0.8 + rng.uniform(0, 50, (n, 28, 28)), 0, 255)
        datasets.write_idx(root / f"{split}-images-idx3-ubyte.gz", images.astype(np.uint8))
        datasets.write_idx(root / f"{split}-labels-idx1-ubyte.gz", labels)


def test_lenet_loss_falls_and_predicts(tmp_path: Path) -> None:
    data_dir = os.environ.get("TRAIN_DATA_DIR")
    if data_dir and (Path(data_dir) / "mnist-10k").is_dir():
        losses, accuracy = train_lenet(300, "mnist-10k")
        min_accuracy = 0.80
    else:
        _write_synthetic_mnist(tmp_path)
        losses, accuracy = train_lenet(300, "mnist", root=str(tmp_path))
        min_accuracy = 0.90
    first, last = np.mean(losses[:25]), np.mean(losses[-25:])
    assert np.all(np.isfinite(losses))
    assert first > 2.0  # ten balanced classes start near ln(10)
    assert last < 0.5 * first, f"loss did not fall enough: {first:.3f} -> {last:.3f}"
    assert accuracy >= min_accuracy


@pytest.mark.parametrize("batch", [1, 3])
def test_lenet_handles_small_batches(batch: int) -> None:
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(),
                                                                     0.01, 0.9))
    x = Tensor(np.random.default_rng(0).standard_normal((batch, 1, 32, 32)).astype(np.float32))
    y = Tensor(np.arange(batch, dtype=np.int32))
    value = step(x, y)
    assert value.shape == () and value.dtype == ms.float32 and np.isfinite(value.asnumpy())
