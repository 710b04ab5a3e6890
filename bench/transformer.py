"""Time sequence-model training steps across engines: nanoGPT's character GPT and a
2-layer LSTM language model (bench/seq_engines.py).

    python bench/transformer.py [--models gpt lstm] [--rounds 5] [--steps 3] [--threads N]
                                [--torch-path /tmp/torchlib] [--warm-cache] [--no-memory]
                                [--clock wall|cpu]

Engines, in this process, on the same batch from the same initial weights:
  graph       our graph mode: the whole step (forward, backward, clip, AdamW) compiled with
              TVM; its first call is a cold compile (an empty $TWINMODE_CACHE_DIR) unless
              --warm-cache
  pynative    our eager mode (NumPy kernels + tape)
  torch       PyTorch eager CPU, same threads: fused AdamW, and for the GPT
              ``scaled_dot_product_attention``; ``torch-math``: the GPT with hand-written
              attention. Ratios are against the faster PyTorch engine.
Losses: the first step's loss of every engine is checked against PyNative's (relative
1e-4; later steps differ, MindSpore's AdamWeightDecay has no bias correction), graph mode's
first three against PyNative's. Figures are medians (min, max) of per-round means, the
engines interleaved round by round after warm-up.

The GPT's throughput is reported in GFLOP/s (nanoGPT's ``estimate_mfu`` count) against
this machine's sgemm peak, measured here as the best of NumPy's BLAS and PyTorch's on
1024^3 float32 products with the same threads. Peak memory: each engine alone in a child process, as
bench/resnet.py (bench/memory_probe.py).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_env  # noqa: E402  (first: --threads sizes the thread pools)
import numpy as np  # noqa: E402
import seq_engines as se  # noqa: E402
from memory_probe import probe, status_kb  # noqa: E402
from timing import CLOCK, interleave  # noqa: E402

import framework as ms  # noqa: E402

THREADS = int(os.environ.get("TVM_NUM_THREADS", os.cpu_count() or 1))
TARGETS = {"gpt": 0.9, "lstm": 1.0}


def build(engine: str, model: str):
    if engine in ("graph", "pynative"):
        step, _, _ = se.framework_step(model, ms.GRAPH_MODE if engine == "graph"
                                       else ms.PYNATIVE_MODE)
        return step
    net = se.framework_net(model)
    return se.torch_step(model, net, THREADS, "math" if engine == "torch-math" else "sdpa")


def child(spec: str, torch_path: str) -> None:
    engine, model = spec.split(":")
    if engine.startswith("torch"):
        sys.path.append(torch_path)  # this child never imports TVM
        import torch  # noqa: F401
    elif engine == "graph":
        import tvm  # noqa: F401
    imported = status_kb("VmRSS")
    print(json.dumps(probe(build(engine, model), se.batch_of(model), imported)))


def memory(engine: str, model: str, torch_path: str) -> dict | None:
    cmd = [sys.executable, __file__, "--child", f"{engine}:{model}", "--torch-path", torch_path]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode:
        print(f"  memory child {engine} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def sgemm_peak_gflops(n: int = 1024, tries: int = 10) -> float:
    """The best float32 n^3 product of NumPy's BLAS and, when importable, PyTorch's (its own
    kernels: NumPy's OpenBLAS may be pinned to older ones, e.g. OPENBLAS_CORETYPE=Haswell
    on an AVX-512 CPU, which halves its peak)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    products = [lambda: a @ a]
    try:
        import torch

        t = torch.from_numpy(a)
        products.append(lambda: torch.mm(t, t))
    except ImportError:
        pass
    best = float("inf")
    for product in products:
        for _ in range(tries):
            start = time.perf_counter()
            product()
            best = min(best, time.perf_counter() - start)
    return 2 * n ** 3 / best / 1e9


def check_losses(losses: dict[str, list[float]], rtol: float = 1e-4) -> None:
    ref = losses["pynative"]
    for name, values in losses.items():
        n = len(values) if name == "graph" else 1
        err = max(abs(v - r) / abs(r) for v, r in zip(values[:n], ref[:n]))
        print(f"  {name:<10} losses {' '.join(f'{v:.5f}' for v in values)}  "
              f"rel err (first {n}) {err:.1e} {'ok' if err <= rtol else 'MISMATCH'}")


def bench_model(model: str, args) -> None:
    x, y = se.batch_of(model)
    graph, compiled, net = se.framework_step(model, ms.GRAPH_MODE)
    start, cpu = time.perf_counter(), time.process_time()
    first = graph(x, y)
    cold, cpu = time.perf_counter() - start, time.process_time() - cpu
    s = compiled.last_report
    cfg = se.CONFIGS[model]
    print(f"\n{model}: {cfg}\n  graph first call {cold:.1f} s, {cpu:.1f} s CPU (trace "
          f"{s.trace_seconds:.1f} s, compile {s.compile_seconds:.1f} s, disk cache hit "
          f"{s.cache_hit}); target <= 20 s")
    runners = {"graph": graph, "pynative": build("pynative", model)}
    for name in ("torch", "torch-math") if model == "gpt" else ("torch",):
        step = build(name, model)
        if step is None:
            print("  torch: not importable (see --torch-path); skipped")
            break
        runners[name] = step
    losses = {name: [fn(x, y) for _ in range(3 if name in ("graph", "pynative") else 1)]
              for name, fn in runners.items() if name != "graph"}
    losses["graph"] = [first, graph(x, y), graph(x, y)]
    check_losses(losses)
    times = interleave(runners, (x, y), args.rounds, args.steps, args.warmup, args.clock)
    med = {name: statistics.median(t) for name, t in times.items()}
    mem = {} if args.no_memory else {n: memory(n, model, args.torch_path) for n in runners}
    print(f"  {'engine':<10} {'ms/step':>8} {'min':>8} {'max':>8}  {'peak MiB':>8} {'engine':>8}")
    for name, value in sorted(med.items(), key=lambda kv: kv[1]):
        m = mem.get(name)
        cols = (f"{m['peak'] / 1024:>8.0f} {(m['peak'] - m['imported']) / 1024:>8.0f}" if m
                else f"{'-':>8} {'-':>8}")
        print(f"  {name:<10} {value:>8.1f} {min(times[name]):>8.1f} {max(times[name]):>8.1f}  {cols}")
    if model == "gpt":
        flops = net.flops_per_step(cfg["batch"], cfg["block"])
        peak = sgemm_peak_gflops()
        print(f"  {flops / 1e9:.2f} GFLOP per step; sgemm peak here {peak:.0f} GFLOP/s "
              f"({THREADS} threads): " + ", ".join(
                  f"{n} {flops / med[n] / 1e6:.0f} GFLOP/s ({flops / med[n] / 1e6 / peak:.0%})"
                  for n in med))
    torches = [n for n in med if n.startswith("torch")]
    if torches:
        best = min(torches, key=med.get)
        print(f"  graph / {best} (the faster PyTorch) = {med['graph'] / med[best]:.2f} (target <= "
              f"{TARGETS[model]}); pynative / {best} = {med['pynative'] / med[best]:.2f} "
              f"(target <= 2.5)")
        if mem.get("graph") and mem.get(best):
            g, t = mem["graph"], mem[best]
            ratio = (g["peak"] - g["imported"]) / max(t["peak"] - t["imported"], 1)
            print(f"  engine memory graph / {best} = {ratio:.2f} (target <= 1.5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=tuple(se.CONFIGS), default=list(se.CONFIGS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3, help="steps per round (pynative: 1)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for TVM, NumPy's BLAS and torch (default: all cores)")
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--warm-cache", action="store_true", help="keep the disk cache")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--clock", choices=tuple(CLOCK), default="wall")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.torch_path)
    if not args.warm_cache:
        cache = tempfile.mkdtemp(prefix="twinmode-seq-cache-")
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
        os.environ["TWINMODE_CACHE_DIR"] = cache
    if os.path.isdir(args.torch_path):
        import tvm  # noqa: F401  (first: tvm_ffi must not see torch)

        sys.path.append(args.torch_path)
    print(f"Sequence-model train steps, float32; {os.cpu_count()} cores, {THREADS} threads; load "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; median of {args.rounds} rounds x "
          f"{args.steps} steps (pynative 1), {args.clock} clock")
    print(bench_env.cpu_line())
    for model in args.models:
        bench_model(model, args)
    print(f"\nload at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
