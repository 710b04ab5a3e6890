"""``ops.vmap`` of an MLP in graph mode: the batching transform against the per-example path.

    python bench/vmap_batching.py [--batch 64] [--runs 20]

The function ``softmax(relu(x @ W1 + b1) @ W2)`` per example (x: 64 features, hidden 128,
10 classes) is vmapped over the batch with unbatched weights and compiled with ``ms.jit``
twice: once with the batching transform (``framework.autograd.batching.ENABLED``), once
forced onto the per-example path (``ENABLED = False``, what vmap did before). Printed per
path: IR nodes traced and after the passes, trace+optimize and TVM compile seconds (cold:
a temporary $TWINMODE_CACHE_DIR), the median run time of the compiled call, and the largest
difference from a NumPy reference. TVM is imported before the first measurement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CACHE = tempfile.mkdtemp(prefix="vmap_bench_cache_")
os.environ["TWINMODE_CACHE_DIR"] = _CACHE

import numpy as np  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor, ops  # noqa: E402
from framework.autograd import batching  # noqa: E402


def mlp(x, w1, b1, w2):
    return ops.softmax(ops.matmul(ops.relu(ops.matmul(x, w1) + b1), w2), -1)


def reference(x, w1, b1, w2):
    logits = np.maximum(x @ w1 + b1, 0) @ w2
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def measure(enabled: bool, arrays: list[np.ndarray], runs: int) -> dict:
    batching.ENABLED = enabled
    fn = ms.jit(lambda x, w1, b1, w2: ops.vmap(mlp, in_axes=(0, None, None, None))(x, w1, b1, w2))
    tensors = [Tensor(a) for a in arrays]
    out = fn(*tensors)
    report = fn.last_report
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(*tensors)
        times.append(time.perf_counter() - start)
    return {"path": batching.OUTCOME["path"], "nodes_traced": report.nodes_traced,
            "nodes_optimized": report.nodes_optimized,
            "trace_s": report.trace_seconds + report.optimize_seconds,
            "compile_s": report.compile_seconds, "cache_hit": report.cache_hit,
            "run_ms": 1e3 * statistics.median(times),
            "max_err": float(np.abs(out.asnumpy() - reference(*arrays)).max())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    from framework import staging

    staging.load_backend()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) * 0.1
              for s in ((args.batch, 64), (64, 128), (128,), (128, 10))]
    try:
        rows = {"per-example (before)": measure(False, arrays, args.runs),
                "batched (after)": measure(True, arrays, args.runs)}
    finally:
        batching.ENABLED = True
        shutil.rmtree(_CACHE, ignore_errors=True)
    print(f"vmapped MLP, batch {args.batch}, graph mode (ms.jit), CPU")
    print(f"{'':22s} {'path':12s} {'nodes':>6s} {'opt':>6s} {'trace s':>8s} {'compile s':>10s} "
          f"{'run ms':>8s} {'max err':>9s}")
    for name, r in rows.items():
        print(f"{name:22s} {r['path']:12s} {r['nodes_traced']:6d} {r['nodes_optimized']:6d} "
              f"{r['trace_s']:8.3f} {r['compile_s']:10.2f} {r['run_ms']:8.3f} {r['max_err']:9.2e}"
              f"{'  (cache hit)' if r['cache_hit'] else ''}")


if __name__ == "__main__":
    main()
