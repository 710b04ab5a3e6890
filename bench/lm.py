"""Language-model figures (issue 24), measured side by side on this machine:

1. ``whole run``: ``train run experiments/gpt_shakespeare.yaml`` (2000 steps, evaluations
   every 250 on 20 batches, compile, checkpoints and MLflow included) in a fresh process,
   against nanoGPT's training loop for the same configuration in PyTorch eager
   (bench/nanogpt_loop.py: nanoGPT's data split and vocabulary, initialisation, AdamW groups,
   ``get_lr``, ``get_batch``, ``estimate_loss`` and loop order) in a fresh process; wall
   time from process start to exit for both, and each one's validation loss at step 2000:
   the run's 20-batch estimate (what nanoGPT prints) and the whole validation split's loss
   with the same weights (``train eval`` of ours, the same windows in PyTorch), which
   holds no sampling noise of its own; with several seeds, a table of both engines side by
   side, the means' gaps and how much one 20-batch estimate moves by its windows alone.
2. ``sampling``: tokens per second generating 500 tokens after a one-character prompt,
   ours (trainer/tasks/sampling.py: one window, one compiled function) against nanoGPT's
   ``generate`` in PyTorch (crop to block_size, forward the whole context for each token),
   same network sizes.

Threads: ``--threads N`` for both engines (TVM/OpenMP pools and ``torch.set_num_threads``).
Run: ``python bench/lm.py --torch-path /tmp/torchlib --threads 1 [--only run|sample]``;
``--seeds 1337,1,2,3 --jobs 2`` gives the validation losses' spread over seeds (timings
measured with one job at a time only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "experiments" / "gpt_shakespeare.yaml"

TORCH_SAMPLE = r"""
import json, sys, time
import torch
from torch.nn import functional as F
sys.path.insert(0, sys.argv[1])
from bench import seq_engines as se
cfg = json.loads(sys.argv[2])
torch.set_num_threads(cfg["threads"]); torch.manual_seed(0)
model = se.torch_model("gpt", "sdpa", {**se.CONFIGS["gpt"], "vocab": 65}).eval()
@torch.no_grad()
def generate(idx, n, temperature=0.8, top_k=200):  # nanoGPT's model.generate
    for _ in range(n):
        cond = idx if idx.size(1) <= 64 else idx[:, -64:]
        logits = model(cond)[:, -1, :] / temperature
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        logits[logits < v[:, [-1]]] = -float("inf")
        idx = torch.cat((idx, torch.multinomial(F.softmax(logits, dim=-1), 1)), dim=1)
    return idx
generate(torch.zeros((1, 1), dtype=torch.long), 20)  # warm-up
start = time.perf_counter()
generate(torch.zeros((1, 1), dtype=torch.long), cfg["tokens"])
print(json.dumps({"tokens_per_second": cfg["tokens"] / (time.perf_counter() - start)}))
"""


def _env(threads: int, torch_path: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("TVM_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    if torch_path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [torch_path, env.get("PYTHONPATH")]))
    return env


def our_run(threads: int, mode: str, seed: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as work:
        return _our_run(threads, mode, seed, Path(work))


def _our_run(threads: int, mode: str, seed: int, work: Path, whole: bool = True) -> dict[str, float]:
    start = time.perf_counter()
    args = [str(EXPERIMENT), "--mode", mode, "mlflow.system_metrics=false", f"seed={seed}"]
    train = str(Path(sys.executable).with_name("train"))
    done = subprocess.run([train, "run", *args[:3], "--quiet", *args[3:]], cwd=work, env=_env(threads),
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"train run failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    line = next(x for x in done.stdout.splitlines() if "val/loss " in x)  # the summary's first line
    out = {"seconds": seconds, "val_loss": float(line.split("val/loss ")[1].split(",")[0]), "line": line}
    if whole:  # the whole validation split with the last checkpoint (step 2000)
        done = subprocess.run([train, "eval", *args], cwd=work, env=_env(threads), capture_output=True,
                              text=True)
        if done.returncode:
            raise SystemExit(f"train eval failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        line = next(x for x in done.stdout.splitlines() if x.startswith("val/loss "))
        out["whole_val_loss"] = float(line.split("val/loss ")[1].split(",")[0])
        out["eval_line"] = " ".join(done.stdout.split())
    return out


def torch_run(threads: int, torch_path: str, text: str, seed: int) -> dict[str, float]:
    cfg = json.dumps({"threads": threads, "text": text, "seed": seed})
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "nanogpt_loop.py"), cfg],
                          env=_env(threads, torch_path), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"PyTorch run failed:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["seconds"] = time.perf_counter() - start  # process start to exit, as ours
    return out


def our_sampling(tokens: int) -> dict[str, float]:
    import framework as ms
    from datasets.tokenizer import CharTokenizer
    from trainer.models import GPT
    from trainer.tasks.sampling import Sampler

    ms.set_seed(0)
    tok = CharTokenizer("".join(chr(32 + i) for i in range(65)))
    sampler = Sampler(GPT(65, 64, 4, 4, 128), tok, 64, "graph")
    start = time.perf_counter()
    sampler.text(" ", 100, temperature=0.8, top_k=200)  # warm-up (compiles the step and the prefill)
    warm = time.perf_counter() - start
    start = time.perf_counter()
    sampler.text(" ", tokens, temperature=0.8, top_k=200)
    return {"tokens_per_second": tokens / (time.perf_counter() - start), "warm_up_seconds": warm,
            "compiled_functions": sampler.compiled_functions}


def torch_sampling(threads: int, torch_path: str, tokens: int) -> dict[str, float]:
    cfg = json.dumps({"threads": threads, "tokens": tokens})
    done = subprocess.run([sys.executable, "-c", TORCH_SAMPLE, str(ROOT), cfg],
                          env=_env(threads, torch_path), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"PyTorch sampling failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--torch-path", default=os.environ.get("TORCH_PATH"))
    parser.add_argument("--only", choices=("run", "sample"))
    parser.add_argument("--modes", default="graph", help="our modes for the whole run (graph,pynative)")
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--seeds", default="1337", help="comma-separated seeds of the whole runs")
    parser.add_argument("--jobs", type=int, default=1, help="whole runs at a time (>1: losses only)")
    args = parser.parse_args()
    if not args.torch_path:
        raise SystemExit("give --torch-path (a folder with torch, kept out of the venv) or TORCH_PATH")
    for var in ("TVM_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    from datasets.text import find_shakespeare

    text = str(find_shakespeare(download=False))
    print(f"threads {args.threads}; text {text}")
    if args.only in (None, "sample"):
        ours, theirs = our_sampling(args.tokens), torch_sampling(args.threads, args.torch_path, args.tokens)
        print(f"sampling {args.tokens} tokens: ours (graph, {ours['compiled_functions']} compiled functions, "
              f"100 warm-up tokens incl. compile {ours['warm_up_seconds']:.1f} s) "
              f"{ours['tokens_per_second']:.0f} tokens/s, PyTorch generate {theirs['tokens_per_second']:.0f} "
              f"tokens/s: {ours['tokens_per_second'] / theirs['tokens_per_second']:.2f}x")
    if args.only in (None, "run"):
        whole_runs(args, text)


def whole_runs(args: argparse.Namespace, text: str) -> None:
    """One PyTorch run and one run per mode for each seed (``--jobs`` of them at a time:
    with more than one, the validation losses hold but the timings are not comparable)."""
    seeds = [int(s) for s in args.seeds.split(",")]
    modes = args.modes.split(",")
    jobs = [(engine, seed) for seed in seeds for engine in ["pytorch", *modes]]  # a seed's together

    def one(job: tuple[str, int]) -> dict[str, float]:
        engine, seed = job
        if engine == "pytorch":
            return torch_run(args.threads, args.torch_path, text, seed)
        return our_run(args.threads, engine, seed)

    results = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(one, job): job for job in jobs}
        for future in as_completed(futures):  # each as it ends: a long bench shows its progress
            results[futures[future]] = out = future.result()
            print(f"  done: {futures[future][0]} seed {futures[future][1]}: val loss {out['val_loss']:.4f}, "
                  f"whole split {out.get('whole_val_loss') or float('nan'):.4f}", flush=True)
    for seed in seeds:
        theirs = results[("pytorch", seed)]
        print(f"seed {seed}: nanoGPT's loop (PyTorch eager), 2000 iterations + 9 evaluations: "
              f"{theirs['seconds']:.1f} s, val loss {theirs['val_loss']:.4f}")
        for mode in modes:
            ours = results[(mode, seed)]
            print(f"seed {seed}: train run gpt_shakespeare.yaml --mode {mode}: {ours['seconds']:.1f} s "
                  f"({theirs['seconds'] / ours['seconds']:.2f}x PyTorch's speed), "
                  f"val loss {ours['val_loss']:.4f}\n  {ours['line']}")
    table(seeds, ["pytorch", *modes], results)


def table(seeds: list[int], engines: list[str], results: dict) -> None:
    """Per seed and engine: nanoGPT's 20-batch estimate at step 2000 and the whole validation
    split's loss with the same weights; then each column's mean and sd, and the means' gaps."""
    names = {"pytorch": "nanoGPT"}
    print(f"\nval loss at step 2000: estimate (20 random batches) | whole val split\n{'seed':>6}  "
          + "  ".join(f"{names.get(e, e):>17}" for e in engines))
    for seed in seeds:
        cells = [results[(e, seed)] for e in engines]
        print(f"{seed:>6}  " + "  ".join(
            f"{r['val_loss']:8.4f} | {r.get('whole_val_loss') or float('nan'):6.4f}" for r in cells))
    if len(seeds) < 2:
        return
    means = {}
    for engine in engines:
        for key in ("val_loss", "whole_val_loss"):
            losses = np.array([results[(engine, seed)].get(key) or np.nan for seed in seeds], float)
            means[(engine, key)] = losses.mean()
            print(f"{names.get(engine, engine)} {key}: mean {losses.mean():.4f}, "
                  f"sd {losses.std(ddof=1):.4f}, min {losses.min():.4f}, max {losses.max():.4f}")
    spread = [results[("pytorch", seed)].get("estimate_sd") for seed in seeds]
    if all(spread):
        sd = float(np.mean(spread))
        print(f"one 20-batch estimate moves by its random windows alone with sd {sd:.4f} (nanoGPT's "
              f"weights at step 2000): the mean of {len(seeds)} by {sd / len(seeds) ** 0.5:.4f}")
    for engine in engines[1:]:
        print(f"{engine} - nanoGPT over {len(seeds)} seeds: estimate "
              f"{means[(engine, 'val_loss')] - means[('pytorch', 'val_loss')]:+.4f}, whole split "
              f"{means[(engine, 'whole_val_loss')] - means[('pytorch', 'whole_val_loss')]:+.4f}")


if __name__ == "__main__":
    main()
