"""Time one LeNet-5 training step (Momentum, input 1x32x32): PyNative vs plain NumPy.

    python bench/step.py [--batches 32 128] [--steps 30] [--rounds 5]

Both run in this process on the same batch, interleaved round by round after warm-up
(the first NumPy steps in a process run ~2x slower); figures are medians of the
per-round means. Ratio = PyNative / NumPy (target <= 1.3).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy_lenet  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor, nn  # noqa: E402
from trainer.models import LeNet5  # noqa: E402


def time_per_step(fn, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - start) / steps * 1000


def bench_batch(batch: int, steps: int, rounds: int) -> dict[str, float]:
    ms.set_seed(0)
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    params = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    moments = {name: np.zeros_like(v) for name, v in params.items()}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    tx, ty = Tensor(x), Tensor(y)

    def pynative():
        train_step(tx, ty)

    def plain():
        numpy_lenet.momentum_step(params, moments, x, y)

    for _ in range(10):  # warm-up both
        pynative()
        plain()
    results: dict[str, list[float]] = {"pynative": [], "numpy": []}
    for _ in range(rounds):
        results["pynative"].append(time_per_step(pynative, steps))
        results["numpy"].append(time_per_step(plain, steps))
    return {k: statistics.median(v) for k, v in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"LeNet-5 train step, Momentum, float32; {os.cpu_count()} cores, "
          f"OPENBLAS_NUM_THREADS={threads}; median of {args.rounds} rounds x {args.steps} steps")
    print(f"{'batch':>5}  {'pynative ms':>11}  {'numpy ms':>9}  {'ratio':>6}")
    for batch in args.batches:
        r = bench_batch(batch, args.steps, args.rounds)
        print(f"{batch:>5}  {r['pynative']:>11.2f}  {r['numpy']:>9.2f}  "
              f"{r['pynative'] / r['numpy']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
