"""Data pipeline benchmark: load + LeNet preprocessing of Fashion-MNIST, and batching speed.

    TRAIN_DATA_DIR=../shared/datasets .venv/bin/python bench/data.py [--repeats 3]

Targets: load + preprocess the 60,000 training images to float32 1x32x32 in under 2 s; one
full batching pass at batch 32 well under 5% of a 15 s graph-mode epoch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import datasets  # noqa: E402

GRAPH_EPOCH_S = 15.0


def data_dir() -> Path:
    if env := os.environ.get("TRAIN_DATA_DIR"):
        return Path(env)
    default = REPO.parent / "shared" / "datasets"
    if default.is_dir():
        return default
    sys.exit("set TRAIN_DATA_DIR to the folder holding fashion-mnist/ (see README)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="fashion-mnist")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    root = data_dir() / args.dataset

    loads, preps, passes = [], [], []
    n = batches = 0
    for _ in range(args.repeats):
        start = time.perf_counter()
        images, labels = datasets.load(args.dataset, "train", root=root)
        loaded = time.perf_counter()
        it = datasets.BatchIterator(
            images, labels, batch_size=args.batch_size, shuffle=True, seed=0, transforms="lenet"
        )
        prepared = time.perf_counter()
        batches = sum(1 for _ in it)
        done = time.perf_counter()
        n = it.num_samples
        loads.append(loaded - start)
        preps.append(prepared - loaded)
        passes.append(done - prepared)
        del it, images, labels

    total = [a + b for a, b in zip(loads, preps, strict=True)]
    epoch = statistics.median(passes)
    print(f"dataset          {args.dataset} train, {n} images -> float32 1x32x32 (lenet)")
    print(f"load (IDX+gzip)  first {loads[0]:.3f} s, median {statistics.median(loads):.3f} s")
    print(f"preprocess       first {preps[0]:.3f} s, median {statistics.median(preps):.3f} s")
    print(
        f"load+preprocess  first {total[0]:.3f} s, median {statistics.median(total):.3f} s"
        f"  (target < 2 s)"
    )
    print(
        f"batching         {batches} batches of {args.batch_size} in {epoch * 1e3:.1f} ms"
        f" (median) = {batches / epoch:,.0f} batches/s, {n / epoch:,.0f} samples/s"
    )
    print(
        f"epoch overhead   {epoch / GRAPH_EPOCH_S:.3%} of a {GRAPH_EPOCH_S:.0f} s graph-mode"
        f" epoch (target well under 5%)"
    )


if __name__ == "__main__":
    main()
