"""Graph mode with a symbolic batch axis against shape-specialised compiles: the train
step (Momentum) of LeNet or the zoo's ResNet-20, compile count and step time per batch
size, measured interleaved (the machine is shared: each round times one step of each,
alternately).

    PYTHONPATH=. nice python bench/symbolic_batch.py [--model lenet|resnet20]
        [--sizes 1,7,32,33,128,512] [--steps 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import framework as ms
from framework import Tensor, graph_mode, nn


def make_step(model: str) -> nn.Cell:
    ms.set_seed(0)
    if model == "resnet20":
        from trainer.models import CifarResNet

        net = CifarResNet(20)
    else:
        net = lenet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    return step


def lenet() -> nn.Cell:
    return nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Flatten(), nn.Dense(400, 120), nn.ReLU(), nn.Dense(120, 10))


def compiles() -> int:
    return graph_mode.cache_stats["compiles"] + graph_mode.cache_stats["disk_hits"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,7,32,33,128,512")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--model", choices=("lenet", "resnet20"), default="lenet")
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE)
    sizes = [int(s) for s in args.sizes.split(",")]
    image = (3, 32, 32) if args.model == "resnet20" else (1, 32, 32)
    dynamic = make_step(args.model)
    dynamic.set_inputs(Tensor(shape=[None, *image], dtype=ms.float32),
                       Tensor(shape=[None], dtype=ms.int32))
    rng = np.random.default_rng(0)
    symbolic_compiles = 0
    print(f"{'batch':>6} {'symbolic ms':>12} {'specialised ms':>15} {'ratio':>6}")
    for n in sizes:
        x = Tensor(rng.standard_normal((n, *image)).astype(np.float32))
        y = Tensor(rng.integers(0, 10, n).astype(np.int32))
        special = make_step(args.model)  # compiled for this size only
        before = compiles()
        dynamic(x, y)
        symbolic_compiles += compiles() - before
        special(x, y)
        times: dict[str, list[float]] = {"symbolic": [], "special": []}
        for _ in range(args.steps):  # interleaved
            for name, step in (("symbolic", dynamic), ("special", special)):
                start = time.perf_counter()
                step(x, y).asnumpy()
                times[name].append(time.perf_counter() - start)
        sym, spec = (1e3 * float(np.median(times[k])) for k in ("symbolic", "special"))
        print(f"{n:>6} {sym:>12.2f} {spec:>15.2f} {sym / spec:>6.2f}", flush=True)
    print(f"symbolic compiles for {len(sizes)} sizes: {symbolic_compiles}; report axes "
          f"{dynamic._graph_runner.last_report.symbolic_axes}, fallback "
          f"{dynamic._graph_runner.last_report.symbolic_fallback}")


if __name__ == "__main__":
    main()
