"""Time CIFAR ResNet-8/20 training steps (Momentum, input 3x32x32) across engines.

    python bench/resnet.py [--depths 8 20] [--batches 64 128] [--rounds 3] [--quick]
                           [--threads N] [--torch-path /tmp/torchlib] [--warm-cache]
                           [--no-memory] [--no-predict] [--clock wall|cpu]
                           [--tuning 300s --warm-cache]

Per (depth, batch), in this process on the same batch and the same initial weights
(bench/resnet_engines.py; the zoo's model):
  graph     our graph mode: the whole step compiled with TVM; its first call is a cold
            compile (an empty temporary $TWINMODE_CACHE_DIR) unless --warm-cache
  pynative  our eager mode (NumPy kernels + tape)
  torch     PyTorch eager CPU, same thread count, from --torch-path
            (``pip install torch==2.13.0 --target /tmp/torchlib``; loaded after TVM,
            because tvm_ffi imports torch when it can see it), NCHW tensors
  torch-cl  the same in ``channels_last`` memory format (oneDNN's faster layout on CPU);
            the ratios are against the faster of the two PyTorch engines
The first three losses of each engine are checked against PyNative's (relative 1e-4),
then the engines run interleaved round by round after warm-up; figures are medians
(min, max) of the per-round means.

Peak memory: each engine runs alone in a child process (this script with ``--child``;
graph mode loads the step this process compiled from the disk cache). The child imports
its engine's libraries (TVM for graph, torch for torch) and notes its resident set, builds
the model, warms up, resets the kernel's high-water mark (``/proc/self/clear_refs`` = 5),
runs two steps and reads ``VmHWM``: "peak" is the resident set at its highest during
those steps, "engine" how far that is above the resident set after the imports (weights,
optimizer state, compiled code, allocator pools, activations: what the engine's step
costs), "transient" how far it rose above the resident set just before the steps (memory
taken and given back within a step; 0 where pools keep it between steps).

Also: a forward-only ResNet-20 at batch 256 (evaluation mode) in graph mode against
PyTorch under ``torch.no_grad()``. ``--quick``: ResNet-8 at batch 64 only, 3 rounds.

``--tuning``: graph mode's ``tuning`` context (trials per heavy kernel, or ``300s`` in
all); the first call then includes the tuning. With ``--warm-cache`` the database stays in
$TWINMODE_CACHE_DIR, and a second run of the same command reuses it (tuning time 0).

On a machine shared with other work, wall-clock figures of multi-threaded engines mostly
measure the contention (PyTorch's and OpenBLAS's spinning OpenMP threads suffer most):
``--threads 1 --clock cpu`` times each engine's own CPU time on one thread instead.
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
import resnet_engines as re_  # noqa: E402
from memory_probe import probe, status_kb  # noqa: E402
from timing import CLOCK, interleave, timed  # noqa: E402

import framework as ms  # noqa: E402

THREADS = int(os.environ.get("TVM_NUM_THREADS", os.cpu_count() or 1))


def batch_of(batch: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch, 3, 32, 32)).astype(np.float32),
            rng.integers(0, 10, batch).astype(np.int32))


def add_torch(path: str) -> None:
    if path and os.path.isdir(path) and path not in sys.path:
        import tvm  # noqa: F401  (first: tvm_ffi must not see torch)

        sys.path.append(path)


def build(engine: str, depth: int):
    if engine == "graph":
        return re_.framework_step(depth, ms.GRAPH_MODE)
    if engine == "pynative":
        return re_.framework_step(depth, ms.PYNATIVE_MODE)
    _, params = re_.framework_net(depth)
    return re_.torch_step(depth, params, THREADS, channels_last=engine == "torch-cl"), None


def child(spec: str, torch_path: str) -> None:
    """``engine:depth:batch``: import, build, warm up, reset the high-water mark, run steps,
    print the resident-set figures (KiB) as JSON."""
    engine, depth, batch = spec.split(":")
    if engine.startswith("torch"):
        sys.path.append(torch_path)  # this child never imports TVM
        import torch  # noqa: F401
    elif engine == "graph":
        import tvm  # noqa: F401
    imported = status_kb("VmRSS")
    step, _ = build(engine, int(depth))
    print(json.dumps(probe(step, batch_of(int(batch)), imported)))


def memory(engine: str, depth: int, batch: int, torch_path: str) -> dict | None:
    cmd = [sys.executable, __file__, "--child", f"{engine}:{depth}:{batch}",
           "--torch-path", torch_path, "--tuning", str(ms.get_context("tuning"))]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode:
        print(f"  memory child {engine} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def check(losses: dict[str, list[float]], rtol: float = 1e-4) -> None:
    ref = np.array(losses["pynative"])
    for name, values in losses.items():
        err = float(np.max(np.abs(np.array(values) - ref) / np.abs(ref)))
        print(f"  {name:<9} losses {' '.join(f'{v:.6f}' for v in values)}  max rel err {err:.1e}"
              f" {'ok' if err <= rtol else 'MISMATCH'}")


def bench_config(depth: int, batch: int, args) -> dict[str, float]:
    x, y = batch_of(batch)
    graph, compiled = build("graph", depth)
    start, cpu = time.perf_counter(), time.process_time()
    first = graph(x, y)
    cold, cpu = time.perf_counter() - start, time.process_time() - cpu
    s = compiled.last_report
    print(f"\nResNet-{depth}, batch {batch}: graph first call {cold:.1f} s, {cpu:.1f} s CPU "
          f"(trace {s.trace_seconds:.1f} s, compile {s.compile_seconds:.1f} s of which "
          f"tuning {s.tune_seconds:.1f} s, disk cache hit {s.cache_hit})")
    runners = {"graph": graph, "pynative": build("pynative", depth)[0]}
    for name in ("torch", "torch-cl"):
        torch = build(name, depth)[0]
        if torch is None:
            print("  torch: not importable (see --torch-path); skipped")
            break
        runners[name] = torch
    losses = {name: [fn(x, y) for _ in range(3 if name != "graph" else 2)]
              for name, fn in runners.items()}
    losses["graph"].insert(0, first)
    check(losses)
    times = interleave(runners, (x, y), args.rounds, args.steps, args.warmup, args.clock)
    result = {name: statistics.median(t) for name, t in times.items()}
    mem = {}
    if not args.no_memory:
        mem = {name: memory(name, depth, batch, args.torch_path) for name in runners}
    print(f"  {'engine':<9} {'ms/step':>8} {'min':>8} {'max':>8}  {'peak MiB':>8} {'engine':>8}"
          f" {'transient':>9}")
    for name, value in sorted(result.items(), key=lambda kv: kv[1]):
        m = mem.get(name)
        cols = (f"{m['peak'] / 1024:>8.0f} {(m['peak'] - m['imported']) / 1024:>8.0f} "
                f"{(m['peak'] - m['before']) / 1024:>9.0f}") if m else f"{'-':>8} {'-':>8} {'-':>9}"
        print(f"  {name:<9} {value:>8.1f} {min(times[name]):>8.1f} {max(times[name]):>8.1f}  {cols}")
    if "torch" in result:
        best = min(("torch", "torch-cl"), key=lambda name: result[name])
        print(f"  graph / {best} (the faster PyTorch) = {result['graph'] / result[best]:.2f} "
              f"(target <= 1.0); pynative / {best} = {result['pynative'] / result[best]:.2f}")
        if mem.get("graph") and mem.get(best):
            g, t = mem["graph"], mem[best]
            print(f"  engine memory graph / {best} = "
                  f"{(g['peak'] - g['imported']) / max(t['peak'] - t['imported'], 1):.2f}"
                  f" (target <= 1.5)")
    return result


def bench_predict(depth: int, batch: int, args) -> None:
    x, _ = batch_of(batch, seed=1)
    graph = re_.framework_predict(depth)
    start = time.perf_counter()
    out = graph(x)
    cold = time.perf_counter() - start
    _, params = re_.framework_net(depth)
    runners = {"graph": graph}
    for name in ("torch", "torch-cl"):
        torch = re_.torch_predict(depth, params, THREADS, channels_last=name == "torch-cl")
        if torch is None:
            print("  torch: not importable; skipped")
            return
        runners[name] = torch
    print(f"\nResNet-{depth} forward only (eval), batch {batch}: graph first call {cold:.1f} s")
    err = float(np.max(np.abs(runners["torch"](x) - out)) / np.max(np.abs(out)))
    print(f"  logits graph vs torch: max abs diff / max |logit| = {err:.1e}")
    for fn in runners.values():
        for _ in range(args.warmup):
            fn(x)
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.rounds):
        for name, fn in runners.items():
            times[name].append(timed(fn, (x,), args.steps, CLOCK[args.clock]))
    med = {name: statistics.median(t) for name, t in times.items()}
    best = min(("torch", "torch-cl"), key=med.get)
    print(f"  graph {med['graph']:.1f} ms, torch no_grad {med['torch']:.1f} ms, torch-cl no_grad "
          f"{med['torch-cl']:.1f} ms: graph / {best} = {med['graph'] / med[best]:.2f} "
          f"(target <= 1.0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[8, 20])
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=3, help="steps per round (pynative: 1)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="ResNet-8, batch 64, 3 rounds")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for TVM, NumPy's BLAS and torch (default: all cores)")
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--warm-cache", action="store_true", help="keep the disk cache")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--no-predict", action="store_true")
    parser.add_argument("--clock", choices=tuple(CLOCK), default="wall",
                        help="cpu: this process's CPU time per step (all its threads), for a "
                             "machine shared with other work; fair with --threads 1")
    parser.add_argument("--tuning", default="off",
                        help="graph-mode kernel tuning: off, trials per kernel, or e.g. 300s")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ms.set_context(tuning=int(args.tuning) if args.tuning.isdigit() else args.tuning)
    if args.child:
        return child(args.child, args.torch_path)
    if args.quick:
        args.depths, args.batches, args.rounds = [8], [64], 3
    if not args.warm_cache:
        cache = tempfile.mkdtemp(prefix="twinmode-resnet-cache-")
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
        os.environ["TWINMODE_CACHE_DIR"] = cache
    add_torch(args.torch_path)
    print(f"CIFAR ResNet train step, Momentum, float32; {os.cpu_count()} cores, {THREADS} threads;"
          f" load {' '.join(f'{v:.2f}' for v in os.getloadavg())}; tuning="
          f"{ms.get_context('tuning')}; median of {args.rounds} rounds x {args.steps} steps "
          f"(pynative 1), {args.clock} clock")
    print(bench_env.cpu_line())
    for depth in args.depths:
        for batch in args.batches:
            bench_config(depth, batch, args)
    if not args.no_predict and not args.quick:
        bench_predict(20, 256, args)
    print(f"\nload at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
