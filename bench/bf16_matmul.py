"""One graph-mode matmul in bf16 (AMX tiles where the CPU has them) against our float32 one
and PyTorch's, one thread, interleaved repeats in one process (medians):

    .venv/bin/python bench/bf16_matmul.py [--torch-path /tmp/torchlib] [--repeats 15]

Times include our per-call cost (inputs to the device, the result rounded to bf16 and
copied back), PyTorch's too; the machine may be loaded, so read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
if "--threads" not in sys.argv:
    sys.argv += ["--threads", "1"]
import bench_env  # noqa: E402, F401  (first: --threads sizes the thread pools)
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import framework as ms  # noqa: E402
from framework import Tensor, ops  # noqa: E402

SHAPES = [(256, 256, 256), (768, 128, 512), (768, 512, 128), (768, 128, 384), (1024, 1024, 1024)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--torch-path", default="/tmp/torchlib")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    sys.path.append(args.torch_path)
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(0)
    for m, k, n in SHAPES:
        a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        product = ms.jit(lambda x, y: ops.matmul(x, y))
        low = [Tensor(x.astype(ml_dtypes.bfloat16)) for x in (a, b)]
        runs = {"ours fp32": (product, (Tensor(a), Tensor(b))), "ours bf16": (product, tuple(low))}
        if torch is not None:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            runs["torch fp32"] = (torch.matmul, (ta, tb))
            runs["torch bf16"] = (torch.matmul, (ta.bfloat16(), tb.bfloat16()))
        for fn, inputs in runs.values():
            for _ in range(3):  # warm-up (graph mode: compile)
                fn(*inputs)
        calls = max(5, int(2e8 / (m * n * k)))
        seconds: dict[str, list[float]] = {key: [] for key in runs}
        for _ in range(args.repeats):
            for key, (fn, inputs) in runs.items():
                start = time.perf_counter()
                for _ in range(calls):
                    fn(*inputs)
                seconds[key].append((time.perf_counter() - start) / calls)
        med = {key: statistics.median(v) for key, v in seconds.items()}
        line = ", ".join(f"{key} {v * 1e3:.3f} ms ({2 * m * n * k / v / 1e9:.0f} GFLOP/s)"
                         for key, v in med.items())
        ratio = f"ours bf16/fp32 {med['ours bf16'] / med['ours fp32']:.2f}"
        if "torch bf16" in med:
            ratio += f", ours bf16/torch bf16 {med['ours bf16'] / med['torch bf16']:.2f}"
        print(f"{m}x{k} @ {k}x{n}: {line} | {ratio}", flush=True)


if __name__ == "__main__":
    main()
