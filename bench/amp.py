"""Mixed precision on this CPU (issue 26): step time of bf16/fp16 against float32, and the
accuracy of training with ``precision: bf16|fp16`` (amp O2, dynamic loss scaling).

    .venv/bin/python bench/amp.py time [--mode graph|pynative] [--batch 32] [--steps 40]
    .venv/bin/python bench/amp.py accuracy [--experiment lenet_fashion] [--epochs 1] [--set KEY=VALUE]

``time`` trains LeNet-5 on random 32x32 batches, one process, float32 and each low precision
in turn (medians of ``--steps`` steps after warm-up; the machine is noisy, so compare within
one run), and says whether the CPU has native bf16 instructions (``avx512_bf16``,
``amx_bf16`` in /proc/cpuinfo). ``accuracy`` runs an experiment file once per precision
(``TRAIN_DATA_DIR`` for the data) and prints the test accuracies and their gaps to float32.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import framework as ms  # noqa: E402
from framework import Tensor, nn  # noqa: E402
from framework.train.step import make_step  # noqa: E402

PRECISIONS = {"fp32": None, "bf16": ms.bfloat16, "fp16": ms.float16}


def cpu_flags() -> dict[str, bool]:
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        flags = set()
    return {name: name in flags for name in ("avx512_bf16", "amx_bf16", "avx512_fp16", "f16c")}


def lenet() -> nn.Cell:
    return nn.SequentialCell(
        nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
        nn.Dense(400, 120), nn.ReLU(), nn.Dense(120, 84), nn.ReLU(), nn.Dense(84, 10))


def train_step(precision: str) -> nn.Cell:
    ms.set_seed(0)
    net = lenet()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if PRECISIONS[precision] is None:
        return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    net = ms.amp.auto_mixed_precision(net, "O2", PRECISIONS[precision])
    manager = ms.amp.DynamicLossScaleManager(2 ** 12, 2, 2000)  # no skipped step to time
    return ms.amp.build_train_network(net, opt, loss, "O0", loss_scale_manager=manager)


def time_steps(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(0)
    batches = [(rng.normal(size=(args.batch, 1, 32, 32)).astype(np.float32),
                rng.integers(0, 10, args.batch).astype(np.int32)) for _ in range(8)]
    print(f"CPU flags: {cpu_flags()}  (native bf16 arithmetic: avx512_bf16 has dot products "
          "and conversions only; NumPy/ml_dtypes and TVM's LLVM code compute bf16 in float32)")
    medians = {}
    for precision in args.precisions.split(","):
        step = make_step(train_step(precision), args.mode)
        for x, y in batches[:3]:  # warm-up (graph mode: compile)
            step(Tensor(x), Tensor(y))
        seconds = []
        for i in range(args.steps):
            x, y = batches[i % len(batches)]
            _, timing = step(Tensor(x), Tensor(y))
            seconds.append(timing.seconds)
        medians[precision] = statistics.median(seconds)
        print(f"{args.mode:8s} {precision}: median step {medians[precision] * 1e3:7.2f} ms "
              f"(batch {args.batch}, {args.steps} steps)")
    base = medians.get("fp32")
    if base:
        for precision, value in medians.items():
            if precision != "fp32":
                print(f"{precision} / fp32 step time: {value / base:.2f}x")


def accuracy(args: argparse.Namespace) -> None:
    from trainer.config import load_config
    from trainer.experiment import run_experiment

    path = Path(__file__).resolve().parents[1] / "experiments" / f"{args.experiment}.yaml"
    results = {}
    for precision in args.precisions.split(","):
        with tempfile.TemporaryDirectory() as folder:
            overrides = [f"precision={precision}", f"checkpoint.dir={folder}", "ir.save=false",
                         f"mode={args.mode}"]
            if args.epochs:
                overrides.append(f"train.epochs={args.epochs}")
            overrides += args.set
            start = time.perf_counter()
            result = run_experiment(load_config(path, overrides), quiet=True, log=False)
            seconds = time.perf_counter() - start
        results[precision] = result.metrics.get("accuracy")
        step_ms = statistics.median(result.step_seconds) * 1e3 if result.step_seconds else float("nan")
        print(f"{args.experiment} {args.mode} {precision}: test accuracy {results[precision]:.4f}, "
              f"median step {step_ms:.2f} ms, {seconds:.0f} s in all", flush=True)
    if "fp32" in results:
        for precision, value in results.items():
            if precision != "fp32":
                print(f"{precision} - fp32: {100 * (value - results['fp32']):+.2f} points")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time")
    t.add_argument("--mode", default="graph", choices=["graph", "pynative"])
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--steps", type=int, default=40)
    t.add_argument("--precisions", default="fp32,bf16,fp16")
    a = sub.add_parser("accuracy")
    a.add_argument("--experiment", default="lenet_fashion")
    a.add_argument("--mode", default="graph", choices=["graph", "pynative"])
    a.add_argument("--epochs", type=int, default=None)
    a.add_argument("--precisions", default="fp32,bf16,fp16")
    a.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="an override of the experiment (e.g. dataset.args.train_size=4096)")
    args = parser.parse_args()
    time_steps(args) if args.command == "time" else accuracy(args)


if __name__ == "__main__":
    main()
