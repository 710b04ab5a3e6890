"""Mixed precision on this CPU: step time of bf16/fp16 against float32, ours beside PyTorch's
autocast, and the accuracy of training with ``precision: bf16|fp16`` (amp O2, loss scaling).

    .venv/bin/python bench/amp.py time [--models lenet,gpt,lstm,resnet20] [--steps 20]
                                       [--precisions fp32,bf16] [--threads 1] [--no-torch]
    .venv/bin/python bench/amp.py accuracy [--experiment lenet_fashion] [--epochs 1] [--set KEY=VALUE]

``time`` trains each model on random batches in one process: ours in graph mode in float32
and each low precision (amp O2, float32 master weights), and PyTorch eager in float32 and
under ``torch.autocast("cpu", bfloat16)`` (where torch imports; never a dependency). The
engines' steps are interleaved (each repeat runs one step of each), so load from other
processes falls on all of them alike; medians of ``--steps``. Models: LeNet-5 (batch 32,
Momentum), the character GPT and the LSTM LM of bench/seq_engines.py (AdamW-style), the
CIFAR ResNet-20 (batch 32, Momentum). It says whether the CPU has native bf16 instructions
(``avx512_bf16``, ``amx_bf16``) and which our bf16 matmuls use (AMX tiles, else VDPBF16PS).
``accuracy`` runs an experiment file once per precision (``TRAIN_DATA_DIR`` for the data)
and prints each task's headline figure (test accuracy; a language model's validation loss)
and its gap to float32.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
if sys.argv[1:2] == ["time"] and "--threads" not in sys.argv:
    sys.argv += ["--threads", "1"]  # one thread by default, before any pool starts
import bench_env  # noqa: E402, F401  (first: --threads sizes the thread pools)
import numpy as np  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor, nn  # noqa: E402
from framework.train.step import make_step  # noqa: E402

PRECISIONS = {"fp32": None, "bf16": ms.bfloat16, "fp16": ms.float16}
Step = Callable[[np.ndarray, np.ndarray], object]


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


class _Tokens(nn.Cell):
    """A language model's logits as ``(batch * time, vocab)`` rows for the token loss."""

    def __init__(self, net: nn.Cell, vocab: int) -> None:
        super().__init__()
        self.net, self.vocab = net, vocab

    def construct(self, x):
        return self.net(x).reshape(-1, self.vocab)


def _model(name: str) -> tuple[nn.Cell, Callable, Callable]:
    """(our network, our optimizer for its parameters, PyTorch's module or None) with the
    same initial weights."""
    if name in ("gpt", "lstm"):
        import seq_engines as se

        net = se.framework_net(name)
        state = se.torch_state(net)  # before _Tokens prefixes the names

        def torch_module():
            module = se.torch_model(name)
            se.load_torch_state(module, state)
            return module

        def adamw(params):
            return nn.AdamWeightDecay(params, se.LR, *se.BETAS, eps=1e-8, weight_decay=se.WEIGHT_DECAY)

        return _Tokens(net, se.CONFIGS[name]["vocab"]), adamw, torch_module
    if name == "resnet20":
        import resnet_engines as re_

        net, params = re_.framework_net(20)
        return net, (lambda ps: nn.Momentum(ps, 0.01, 0.9)), (lambda: re_.torch_model(20, params, 1))
    ms.set_seed(0)
    return lenet(), (lambda ps: nn.Momentum(ps, 0.01, 0.9)), _torch_lenet


def _torch_lenet():
    from torch import nn as tnn

    return tnn.Sequential(tnn.Conv2d(1, 6, 5), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Conv2d(6, 16, 5),
                          tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(), tnn.Linear(400, 120), tnn.ReLU(),
                          tnn.Linear(120, 84), tnn.ReLU(), tnn.Linear(84, 10))


def _batches(name: str, count: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    if name in ("gpt", "lstm"):
        import seq_engines as se

        pairs = [se.batch_of(name, seed) for seed in range(count)]
        return [(x, y.reshape(-1)) for x, y in pairs]
    shape = (32, 3, 32, 32) if name == "resnet20" else (32, 1, 32, 32)
    return [(rng.normal(size=shape).astype(np.float32), rng.integers(0, 10, 32).astype(np.int32))
            for _ in range(count)]


def our_step(name: str, precision: str) -> Step:
    net, optimizer, _ = _model(name)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if PRECISIONS[precision] is None:
        cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), optimizer(net.trainable_params()))
    else:
        net = ms.amp.auto_mixed_precision(net, "O2", PRECISIONS[precision])
        manager = ms.amp.DynamicLossScaleManager(2 ** 12, 2, 2000)  # no skipped step to time
        cell = ms.amp.build_train_network(net, optimizer(net.trainable_params()), loss, "O0",
                                          loss_scale_manager=manager)
    cell.set_train()
    step = make_step(cell, ms.GRAPH_MODE)
    return lambda x, y: step(Tensor(x), Tensor(y))


def torch_step(name: str, bf16: bool) -> Step | None:
    try:
        import torch
    except ImportError:
        return None
    _, _, build = _model(name)
    module = build()
    module.train()
    optimizer = torch.optim.SGD(module.parameters(), lr=0.01, momentum=0.9) if name in ("lenet", "resnet20") \
        else torch.optim.AdamW(module.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x: np.ndarray, y: np.ndarray) -> float:
        optimizer.zero_grad(set_to_none=True)
        inputs, target = torch.from_numpy(x), torch.from_numpy(y).long()
        if name in ("gpt", "lstm"):
            inputs = inputs.long()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = module(inputs)
            loss = loss_fn(logits.reshape(target.shape[0], -1).float(), target)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def time_steps(args: argparse.Namespace) -> None:
    from framework.backend.tvm.compiler import make_target
    from framework.backend.tvm.lower import avx512_bf16
    from framework.backend.tvm.lower.amx_matmul import on_amx

    with make_target("CPU"):
        tiles, pairs = on_amx(), avx512_bf16.pays()
    kernel = "AMX tiles" if tiles else "AVX512-BF16 dot products" if pairs else "float32 between casts"
    print(f"CPU flags: {cpu_flags()}; bf16 matmuls on {kernel}; "
          f"threads: {args.threads} (TVM_NUM_THREADS, torch.set_num_threads)")
    if not args.no_torch:
        sys.path.append(args.torch_path)
        try:
            import torch

            torch.set_num_threads(args.threads)
        except ImportError:
            args.no_torch = True
    for name in args.models.split(","):
        engines: dict[str, Step] = {}
        for precision in args.precisions.split(","):
            engines[f"ours {precision}"] = our_step(name, precision)
        if not args.no_torch:
            engines["torch fp32"] = torch_step(name, False)
            engines["torch bf16"] = torch_step(name, True)
        batches = _batches(name)
        for step in engines.values():
            for x, y in batches[:3]:  # warm-up (graph mode: compile)
                step(x, y)
        seconds: dict[str, list[float]] = {key: [] for key in engines}
        cpu: dict[str, list[float]] = {key: [] for key in engines}  # this process's CPU time:
        # on a loaded machine the wall time also counts the waits for a core, this does not
        for i in range(args.steps):  # interleaved: one step of each engine per repeat
            x, y = batches[i % len(batches)]
            for key, step in engines.items():
                start, cpu_start = time.perf_counter(), time.process_time()
                out = step(x, y)
                while isinstance(out, tuple):  # ours: (loss or (loss, overflow, scale), timing)
                    out = out[0]
                if hasattr(out, "asnumpy"):  # the loss to the host, as a trainer's callbacks do
                    out.asnumpy()
                seconds[key].append(time.perf_counter() - start)
                cpu[key].append(time.process_time() - cpu_start)
        medians = {key: statistics.median(v) for key, v in seconds.items()}
        print(f"{name}: " + ", ".join(f"{key} {value * 1e3:.2f} ms" for key, value in medians.items()),
              flush=True)
        cpu_medians = {key: statistics.median(v) for key, v in cpu.items()}
        print(f"{name} CPU time: " + ", ".join(f"{key} {value * 1e3:.2f} ms"
                                              for key, value in cpu_medians.items()), flush=True)
        ratios = []
        for precision in args.precisions.split(","):
            if precision != "fp32" and "ours fp32" in medians:
                ratio = medians[f"ours {precision}"] / medians["ours fp32"]
                cpu_ratio = cpu_medians[f"ours {precision}"] / cpu_medians["ours fp32"]
                ratios.append(f"ours {precision}/fp32 {ratio:.2f}x (CPU time {cpu_ratio:.2f}x)")
        if "torch bf16" in medians and "ours bf16" in medians:
            ratios.append(f"ours bf16/torch bf16 {medians['ours bf16'] / medians['torch bf16']:.2f}x")
            ratios.append(f"torch bf16/fp32 {medians['torch bf16'] / medians['torch fp32']:.2f}x")
        print(f"{name}: " + ", ".join(ratios), flush=True)


def accuracy(args: argparse.Namespace) -> None:
    from trainer.compare_report import FINAL
    from trainer.config import load_config
    from trainer.experiment import run_experiment

    path = Path(__file__).resolve().parents[1] / "experiments" / f"{args.experiment}.yaml"
    results: dict[str, float] = {}
    for precision in args.precisions.split(","):
        with tempfile.TemporaryDirectory() as folder:
            overrides = [f"precision={precision}", f"checkpoint.dir={folder}", "ir.save=false",
                         f"mode={args.mode}"]
            if args.epochs:
                overrides.append(f"train.epochs={args.epochs}")
            overrides += args.set
            config = load_config(path, overrides)
            start = time.perf_counter()
            result = run_experiment(config, quiet=True, log=False)
            seconds = time.perf_counter() - start
        # each task's headline figure: test accuracy for classifiers, validation loss for LMs
        key = FINAL[config.task][0]
        results[precision] = result.metrics.get(key, float("nan"))
        step_ms = statistics.median(result.step_seconds) * 1e3 if result.step_seconds else float("nan")
        print(f"{args.experiment} {args.mode} {precision}: {key} {results[precision]:.4f}, "
              f"median step {step_ms:.2f} ms, {seconds:.0f} s in all", flush=True)
    if "fp32" in results:
        scale, unit = (100, "points") if key == "accuracy" else (1, "")
        for precision, value in results.items():
            if precision != "fp32":
                print(f"{precision} - fp32 {key}: {scale * (value - results['fp32']):+.4f} {unit}".rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time")
    t.add_argument("--models", default="lenet,gpt,lstm,resnet20")
    t.add_argument("--steps", type=int, default=20)
    t.add_argument("--precisions", default="fp32,bf16")
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--no-torch", action="store_true", help="ours only")
    t.add_argument("--torch-path", default="/tmp/torchlib",
                   help="a folder with torch (pip install torch --target DIR), added after TVM")
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
