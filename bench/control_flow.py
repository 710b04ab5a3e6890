"""Time an RNN-style train step whose cell runs in ``while i < n`` over a tensor counter.

    python bench/control_flow.py [--steps 5] [--rounds 5] [--warmup 10] [--seq 32] [--batch 32]
                                 [--hidden 128] [--threads N] [--torch-path /tmp/torchlib]

The cell is ``h = tanh(xs[i] @ W_x + h @ W_h + b)`` over an input sequence ``xs`` read
by the 0-d int32 counter ``i``. Loss = mean(h_final ** 2), backward through the loop,
Momentum(0.01, 0.9); see bench/rnn_engines.py.

Engines, in this process on the same data and initial weights, checked to give the same
first losses (relative 1e-4), then interleaved round by round after warm-up; figures are
medians (min, max) of the per-round means:
  graph     our graph mode: the whole step (loop, its backward, update) in one TVM function
  pynative  the same cell, eager
  torch     PyTorch eager CPU (plain Python loop), same thread count, if importable
PyTorch is kept out of the main venv (tvm_ffi imports it at start-up); it is loaded from
``--torch-path`` (``pip install torch==2.13.0 --target /tmp/torchlib``) after TVM.
The graph step's compile is cold (a temporary $TWINMODE_CACHE_DIR) unless --warm-cache;
a second model with three nested control-flow levels (while > if > while, with its
gradient) is compiled cold too (target <= 10 s).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_env  # noqa: E402, F401  (first: --threads sizes the thread pools)
import numpy as np  # noqa: E402
import rnn_engines  # noqa: E402

import framework as ms  # noqa: E402


def time_per_step(fn, steps: int, clock=time.perf_counter) -> float:
    start = clock()
    for _ in range(steps):
        fn()
    return (clock() - start) / steps * 1000


def check_losses(engines: dict, n: int = 3, rtol: float = 1e-4) -> bool:
    losses = {name: [fn() for _ in range(n)] for name, fn in engines.items()}
    ref = np.array(losses["pynative"])
    ok = True
    print(f"numerics: first {n} losses (must agree to relative {rtol:g} with pynative)")
    for name, values in losses.items():
        err = float(np.max(np.abs(np.array(values) - ref) / np.abs(ref)))
        ok &= err <= rtol
        print(f"  {name:<9} {' '.join(f'{v:.7f}' for v in values)}   max rel err {err:.1e}"
              f"  {'ok' if err <= rtol else 'MISMATCH'}")
    return ok


def summary_line(label: str, report: Any, first_call: float) -> str:
    return (f"{label}: first call {first_call:.2f} s (TVM import "
            f"{report.backend_import_seconds:.2f} s, trace "
            f"{report.trace_seconds:.2f} s, compile {report.compile_seconds:.2f} s, "
            f"nodes {report.nodes_optimized}, disk cache hit {report.cache_hit})")


def compile_nested() -> None:
    from framework import Tensor
    from framework.graph_mode import JitFunction

    ms.set_context(mode=ms.PYNATIVE_MODE)
    step = rnn_engines.nested_net()
    compiled = JitFunction(step.construct, name="NestedTrainStep", cell=step)
    x = Tensor(np.random.default_rng(2).standard_normal((4, 16)).astype(np.float32))
    n = Tensor(np.array(4, np.int32))
    start = time.perf_counter()
    graph_loss = float(compiled(x, n).asnumpy())
    first_call = time.perf_counter() - start
    eager = rnn_engines.nested_net()
    eager_loss = float(eager(x, n).asnumpy())
    rel = abs(graph_loss - eager_loss) / abs(eager_loss)
    s = compiled.last_report
    print(summary_line("nested while>if>while step (with grad)", s, first_call))
    print(f"  trace + compile {s['trace_seconds'] + s['compile_seconds']:.2f} s (target <= 10 s);"
          f" loss graph {graph_loss:.6f} vs pynative {eager_loss:.6f} (rel {rel:.1e})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10, help="steps per engine before timing")
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--input", type=int, default=None, help="input size (default hidden)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for TVM, NumPy's BLAS and torch (default: all cores)")
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--warm-cache", action="store_true", help="keep the disk cache")
    parser.add_argument("--no-nested", action="store_true")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time per step, for a machine shared with "
                             "other work (fair with --threads 1, where every engine runs on "
                             "the calling thread)")
    args = parser.parse_args()
    if not args.warm_cache:
        cache = tempfile.mkdtemp(prefix="twinmode-cf-cache-")
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
        os.environ["TWINMODE_CACHE_DIR"] = cache
    threads = int(os.environ.get("TVM_NUM_THREADS", os.cpu_count() or 1))
    n_in = args.input or args.hidden
    print(f"RNN while-loop train step: batch {args.batch}, input {n_in}, hidden {args.hidden}, "
          f"seq {args.seq}; {os.cpu_count()} cores, {threads} threads; load "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}; median of {args.rounds} rounds "
          f"x {args.steps} steps, {args.clock} clock")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    rng = np.random.default_rng(1)
    x = rng.standard_normal((args.seq, args.batch, n_in)).astype(np.float32)
    h0 = (rng.standard_normal((args.batch, args.hidden)) * 0.1).astype(np.float32)
    params = rnn_engines.init_params(n_in, args.hidden)
    graph, compiled = rnn_engines.framework_step(ms.GRAPH_MODE, params, x, h0, args.seq)
    start = time.perf_counter()
    graph()  # trace + compile (cold unless --warm-cache); this is graph's first step
    first_call = time.perf_counter() - start
    print(summary_line("graph step", compiled.last_report, first_call))
    # the first graph step already ran: give the others a fresh graph engine for the check
    graph, _ = rnn_engines.framework_step(ms.GRAPH_MODE, params, x, h0, args.seq)
    pynative, _ = rnn_engines.framework_step(ms.PYNATIVE_MODE, params, x, h0, args.seq)
    if args.torch_path and os.path.isdir(args.torch_path):
        sys.path.append(args.torch_path)  # after TVM's import, so tvm_ffi never sees it
    torch = rnn_engines.torch_step(params, x, h0, args.seq, threads)
    runners = {"graph": graph, "pynative": pynative}
    if torch is None:
        print("torch: not importable (see --torch-path); skipped")
    else:
        runners["torch"] = torch
    if not check_losses(runners):
        print("numerics MISMATCH: timings below compare different computations")

    for fn in runners.values():  # warm-up: allocator pools and caches reach their steady state
        for _ in range(args.warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.rounds):
        for name, fn in runners.items():
            times[name].append(time_per_step(fn, args.steps, clock))
    result = {name: statistics.median(t) for name, t in times.items()}
    base = result["pynative"]
    print(f"\n  {'engine':<9} {'ms/step':>9} {'min':>9} {'max':>9}  {'x pynative':>10}")
    for name, ms_step in sorted(result.items(), key=lambda kv: kv[1]):
        print(f"  {name:<9} {ms_step:>9.2f} {min(times[name]):>9.2f} {max(times[name]):>9.2f}"
              f"  {base / ms_step:>9.2f}x")
    print(f"  graph / pynative speedup: {base / result['graph']:.2f}x (target >= 5x)")
    if "torch" in result:
        print(f"  graph vs torch: {result['torch'] / result['graph']:.2f}x "
              f"(>= 1 means graph is no slower; target >= 1)")
    if not args.no_nested:
        print()
        try:
            compile_nested()
        except Exception as exc:  # report, do not hide the table above
            print(f"nested while>if>while step FAILED: {type(exc).__name__}: "
                  f"{str(exc).splitlines()[0]}")


if __name__ == "__main__":
    main()
