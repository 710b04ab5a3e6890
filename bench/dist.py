"""Data parallelism on this machine, and on paper for many machines.

    python bench/dist.py [--steps 30] [--mode graph|pynative] [--models lenet resnet20]

Needs the dist extra (mpi4py + mpich). Each figure comes from jobs this script starts
with the venv's ``mpiexec`` (1 thread per rank: OMP/OpenBLAS/TVM_NUM_THREADS=1):

1. steps/s of a training step (forward, backward, gradient all-reduce, Momentum) of
   LeNet-5 (batch 32 per rank, 1x32x32) and ResNet-20 (batch 64 per rank, 3x32x32)
   with 1 and 2 ranks, the samples/s summed over ranks, and the all-reduce share of the
   2-rank step (seconds inside MPI Allreduce / step time; it includes waiting for the
   slower rank);
2. the all-reduce itself between 2 ranks, sizes 4 B .. 16 MB: latency ``alpha`` (the
   4 B and 1 KB messages) and bandwidth ``1 / beta`` (the slope of ``t(n)`` from 256 KB on),
   each the best of 5 rounds (on a shared machine other jobs only add time);
3. a model of the step at p = 8, 64, 512 ranks: a ring all-reduce of n gradient bytes
   costs ``2 (p - 1) alpha + 2 (p - 1) / p * n * beta``; with the per-rank batch fixed the
   step is ``compute + allreduce(p)`` (no overlap), the efficiency ``compute / step``.
   alpha and beta are this machine's shared-memory figures, so the model says where the
   all-reduce starts to dominate for each model on links like these; over a network
   alpha is ~10x and beta ~10-100x larger.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODELS = {"lenet": ("lenet5", 1, 32), "resnet20": ("resnet20", 3, 64)}  # name, channels, batch/rank


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "TVM_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}


def _job(ranks: int, *args: str) -> dict:
    from trainer.dist_launch import find_mpiexec

    cmd = [find_mpiexec(), "-n", str(ranks), sys.executable, __file__, "--worker", *args]
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise SystemExit(f"job {' '.join(args)} on {ranks} rank(s) failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- workers (one per rank, under mpiexec) -------------------------------------------------
def worker_step(model: str, mode: str, steps: int) -> None:
    import framework as ms
    from framework import Tensor, nn
    from framework.communication import get_group_size, get_rank, init, management
    from trainer.models import build_model

    init()
    rank, size = get_rank(), get_group_size()
    if size > 1:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    name, channels, batch = MODELS[model]
    ms.set_seed(0)
    net = build_model(name, num_classes=10, num_channel=channels)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    rng = np.random.default_rng(rank)
    x = Tensor(rng.normal(size=(batch, channels, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
    start = time.perf_counter()
    for _ in range(3):  # compile (graph mode) and warm up
        step(x, y).asnumpy()
    warm = time.perf_counter() - start
    comm = management._state["comm"]
    times = []
    management.STATS.update(calls=0, bytes=0, seconds=0.0)
    for _ in range(steps):
        if comm is not None:
            comm.Barrier()  # every rank starts the step together
        t0 = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - t0)
    grad_bytes = sum(int(np.prod(p.shape)) * 4 for p in net.trainable_params())
    result = {"step_s": statistics.median(times), "mean_s": float(np.mean(times)), "warm_s": warm,
              "allreduce_s": management.STATS["seconds"] / steps, "calls": management.STATS["calls"] / steps,
              "grad_bytes": grad_bytes, "batch": batch}
    gathered = management.allgather_object(result)
    if rank == 0:
        print(json.dumps(gathered))


def worker_allreduce() -> None:
    from framework.communication import init, management

    init()
    comm = management._state["comm"]
    rows = []
    for n in [1, 256, 4096, 65536, 262144, 1 << 20, 1 << 22]:  # float32 elements
        a, out = np.ones(n, np.float32), np.empty(n, np.float32)
        repeat = 50 if n <= 65536 else 8
        for _ in range(5):
            management.allreduce_array(a, out)
        rounds = []
        for _ in range(5):  # the best round: the machine is shared, others' load only adds
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(repeat):
                management.allreduce_array(a, out)
            rounds.append((time.perf_counter() - t0) / repeat)
        rows.append((n * 4, min(rounds)))
    if comm.Get_rank() == 0:
        print(json.dumps(rows))


# -- report ---------------------------------------------------------------------------------
def ring(p: int, nbytes: float, alpha: float, beta: float) -> float:
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * nbytes * beta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--mode", choices=["graph", "pynative"], default="graph")
    parser.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    parser.add_argument("--worker", nargs="*")
    args = parser.parse_args()
    if args.worker is not None:
        if args.worker[0] == "allreduce":
            worker_allreduce()
        else:
            worker_step(args.worker[0], args.worker[1], int(args.worker[2]))
        return
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other jobs' load "
          "shows up as waiting inside the all-reduce)")
    rows = _job(2, "allreduce")
    sizes = np.array([r[0] for r in rows], float)
    secs = np.array([r[1] for r in rows])
    alpha = float(np.median(secs[:2]))  # latency: the smallest messages (4 B, 1 KB)
    beta = float(np.polyfit(sizes[3:], secs[3:], 1)[0])  # seconds per byte: messages >= 256 KB
    print("all-reduce between 2 ranks (float32 sum, one message):")
    for n, t in rows:
        print(f"  {n:>10,d} B  {t * 1e6:9.1f} us  {n / t / 1e9 if t else 0:6.2f} GB/s")
    print(f"  fit: latency alpha = {alpha * 1e6:.1f} us, bandwidth 1/beta = {1 / beta / 1e9:.2f} GB/s")
    print(f"\ntraining step, {args.mode} mode, 1 thread per rank, median of {args.steps} steps:")
    print(f"  {'model':9} {'batch/rank':>10} {'ranks':>5} {'steps/s':>8} {'samples/s':>10} "
          f"{'all-reduce':>11} {'share':>6} {'grad MB':>8}")
    measured = {}
    for model in args.models:
        for ranks in (1, 2):
            ranks_out = _job(ranks, model, args.mode, str(args.steps))
            step = max(r["step_s"] for r in ranks_out)
            ar = statistics.mean(r["allreduce_s"] for r in ranks_out)
            r0 = ranks_out[0]
            samples = ranks * r0["batch"] / step
            print(f"  {model:9} {r0['batch']:>10} {ranks:>5} {1 / step:8.1f} {samples:10.0f} "
                  f"{ar * 1e3:8.2f} ms {ar / step:6.1%} {r0['grad_bytes'] / 1e6:8.2f}")
            measured[(model, ranks)] = (step, ar, r0["grad_bytes"], r0["batch"])
    print("\nmodel: ring all-reduce of the gradients (no overlap), per-rank batch fixed "
          "(compute = the 1-rank step):")
    print(f"  {'model':9} {'ranks':>5} {'all-reduce':>11} {'step':>9} {'efficiency':>10} {'samples/s':>10}")
    for model in args.models:
        compute, _, nbytes, batch = measured[(model, 1)]
        for p in (2, 8, 64, 512):
            t_ar = ring(p, nbytes, alpha, beta)
            step = compute + t_ar
            print(f"  {model:9} {p:>5} {t_ar * 1e3:8.2f} ms {step * 1e3:6.1f} ms {compute / step:10.1%} "
                  f"{p * batch / step:10.0f}")
        half = next((p for p in range(2, 1 << 20) if ring(p, nbytes, alpha, beta) >= compute), None)
        print(f"  {model:9} efficiency falls to 50% (all-reduce = compute) at "
              f"{f'p = {half}' if half else 'no p (the all-reduce stays below the compute)'}")

if __name__ == "__main__":
    main()
