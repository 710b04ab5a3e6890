"""`make run` until the `train` CLI lands: LeNet-5 in PyNative mode on real MNIST.

    python -m trainer.quickstart [--steps 300] [--dataset mnist] [--batch-size 32]

Prints the falling loss and the test accuracy. Data is found as `datasets.load`
describes (``$TRAIN_DATA_DIR/<name>`` first).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import datasets
import framework as ms
from framework import Tensor, nn

from .models import LeNet5


def run(steps: int = 300, dataset: str = "mnist", batch_size: int = 32, seed: int = 0,
        lr: float = 0.01, log_every: int = 25, eval_samples: int = 2000, root: str | None = None,
        quiet: bool = False) -> dict[str, Any]:
    """Train for ``steps`` steps; return the per-step losses and the test accuracy."""
    ms.set_seed(seed)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    train = datasets.make_loader(dataset, split="train", root=root, batch_size=batch_size,
                                 seed=seed, transforms="lenet")
    test = datasets.make_loader(dataset, split="test", root=root, batch_size=256, shuffle=False,
                                drop_remainder=False, limit=eval_samples, transforms="lenet")
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
    step.set_train()

    losses: list[float] = []
    start = time.perf_counter()
    while len(losses) < steps:
        for x, y in train:
            losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
            n = len(losses)
            if not quiet and (n % log_every == 0 or n == 1):
                recent = np.mean(losses[-log_every:])
                print(f"step {n:4d}  loss {losses[-1]:.4f}  (mean of last {min(n, log_every)}: "
                      f"{recent:.4f})", flush=True)
            if n >= steps:
                break
    elapsed = time.perf_counter() - start

    net.set_train(False)
    correct = total = 0
    for x, y in test:
        predicted = net(Tensor(x)).asnumpy().argmax(axis=1)
        correct += int((predicted == y).sum())
        total += len(y)
    accuracy = correct / total
    if not quiet:
        print(f"{steps} steps in {elapsed:.1f} s ({elapsed / steps * 1000:.1f} ms/step); "
              f"test accuracy on {total} images: {accuracy:.2%}")
    return {"losses": losses, "accuracy": accuracy, "seconds": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--dataset", default="mnist")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--root", default=None)
    args = parser.parse_args()
    try:
        run(steps=args.steps, dataset=args.dataset, batch_size=args.batch_size, root=args.root)
    except datasets.DatasetError as error:
        raise SystemExit(f"error: {error}") from None


if __name__ == "__main__":
    main()
