"""Time one LeNet-5 training step (Momentum, input 1x32x32) across engines.

    python bench/step.py [--batches 32 128] [--steps 30] [--rounds 5] [--epoch] [--threads N]
                         [--clock wall|cpu] [--torch-path /tmp/torchlib]

Engines, all in this process on the same batch and the same initial weights,
interleaved round by round after warm-up (the first NumPy steps in a process run ~2x
slower); figures are medians of the per-round means:
  graph     our graph mode: the whole step compiled with TVM (compile/tune seconds shown)
  pynative  our eager mode
  numpy     a plain NumPy implementation written as fast as NumPy allows
            (bench/numpy_lenet.py: NHWC im2col by as_strided + one GEMM per conv)
  torch     PyTorch eager CPU, if importable (also from --torch-path, appended to sys.path
            after TVM's import: tvm_ffi imports torch when it can see it);
  jax       JAX jit, if installed
``--epoch`` also times one full Fashion-MNIST epoch (60,000 images, batch 32) in graph
mode with the real data pipeline ($TRAIN_DATA_DIR). ``--threads N`` sets TVM's, OpenBLAS's
and OpenMP's thread counts (on a loaded machine OpenBLAS's spinning threads can slow the
NumPy-based engines several-fold; ``--threads 1`` shows the kernels' own cost).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_env  # noqa: E402  (first: --threads sizes the thread pools)
import engines  # noqa: E402
import numpy as np  # noqa: E402

import framework as ms  # noqa: E402

CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}


def time_per_step(fn, x, y, steps: int, clock=time.perf_counter) -> float:
    start = clock()
    for _ in range(steps):
        fn(x, y)
    return (clock() - start) / steps * 1000


def bench_batch(batch: int, steps: int, rounds: int,
                clock=time.perf_counter) -> tuple[dict[str, float], dict]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    pynative, _, params = engines.framework_step(ms.PYNATIVE_MODE)
    start = time.perf_counter()
    graph, compiled, _ = engines.framework_step(ms.GRAPH_MODE)
    graph(x, y)  # trace + compile (or load from the disk cache)
    first_call = time.perf_counter() - start
    summary = dict(compiled.last_report.as_dict(), first_call_seconds=first_call)
    candidates = {"graph": graph, "pynative": pynative, "numpy": engines.numpy_step(params),
                  "torch": engines.torch_step(params), "jax": engines.jax_step(params)}
    runners = {name: fn for name, fn in candidates.items() if fn is not None}
    for fn in runners.values():  # warm-up
        for _ in range(10):
            fn(x, y)
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, fn in runners.items():
            times[name].append(time_per_step(fn, x, y, steps, clock))
    return {name: statistics.median(t) for name, t in times.items()}, summary


def bench_epoch() -> None:
    import datasets

    graph, _, _ = engines.framework_step(ms.GRAPH_MODE)  # compiled whatever the context
    loader = datasets.make_loader("fashion-mnist", batch_size=32, transforms="lenet")
    x, y = next(iter(loader))
    graph(x, y)  # compile outside the timing
    start = time.perf_counter()
    n = 0
    for x, y in loader:
        graph(x, y)
        n += 1
    seconds = time.perf_counter() - start
    print(f"\nfull Fashion-MNIST epoch in graph mode: {n} steps in {seconds:.1f} s "
          f"({seconds / n * 1000:.2f} ms/step incl. data)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epoch", action="store_true")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for TVM, NumPy's BLAS (default: all cores)")
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--clock", choices=tuple(CLOCK), default="wall",
                        help="cpu: this process's CPU time per step, for a shared machine "
                             "(fair with --threads 1)")
    args = parser.parse_args()
    if args.torch_path and os.path.isdir(args.torch_path):
        import tvm  # noqa: F401  (first: tvm_ffi must not see torch)

        sys.path.append(args.torch_path)
    print(f"LeNet-5 train step, Momentum, float32; {os.cpu_count()} cores, threads "
          f"{os.environ.get('TVM_NUM_THREADS', 'all')}; load "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; tuning="
          f"{ms.get_context('tuning')}; median of {args.rounds} rounds x {args.steps} steps, "
          f"{args.clock} clock")
    print(bench_env.cpu_line())
    for batch in args.batches:
        result, summary = bench_batch(batch, args.steps, args.rounds, CLOCK[args.clock])
        base = result["pynative"]
        print(f"\nbatch {batch}: graph first call {summary['first_call_seconds']:.2f} s (TVM import "
              f"{summary['backend_import_seconds']:.2f} s, trace {summary['trace_seconds']:.2f} s, "
              f"compile {summary['compile_seconds']:.2f} s, tune {summary['tune_seconds']:.2f} s, "
              f"disk cache hit {summary['cache_hit']})")
        print(f"  {'engine':<9} {'ms/step':>8}  {'x pynative':>10}")
        for name, ms_step in sorted(result.items(), key=lambda kv: kv[1]):
            print(f"  {name:<9} {ms_step:>8.2f}  {base / ms_step:>9.2f}x", flush=True)
        if "torch" in result:
            print(f"  graph vs torch: {result['torch'] / result['graph']:.2f}x")
        print(f"  pynative / numpy = {base / result['numpy']:.2f} (target <= 1.3)")
    if args.epoch:
        bench_epoch()


if __name__ == "__main__":
    main()
