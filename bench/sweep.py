"""Wall time of an 8-trial sweep of experiments/smoke.yaml with 1 and 2 workers, and where the
time goes: each trial's training (``run_experiment``'s fit + final evaluation) against the
sweep machinery around it (trial set-up, MLflow child run, study I/O between trials, and the
fixed start-up and summary of the sweep). Each sweep runs as `train sweep` in a fresh folder
(its own sweeps.db); the MLflow store (creating a fresh one costs seconds, once) and the
compiled-kernel cache are shared, both warmed by a first, tiny sweep.

    .venv/bin/python bench/sweep.py                 # graph mode, smoke.yaml as shipped
    .venv/bin/python bench/sweep.py --quick         # PyNative, 320 images, 1 epoch (~1 min)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRID = ["optimizer.learning_rate=0.01,0.02,0.05,0.1", "optimizer.momentum=0.8,0.9"]  # 8 trials
QUICK = ["mode=pynative", "dataset.limit=320", "dataset.test_limit=200", "train.epochs=1"]


def one_sweep(workers: int, extra: list[str], grid: list[str] = GRID) -> dict[str, float]:
    import optuna

    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        train = Path(sys.executable).with_name("train")
        start, started = time.perf_counter(), time.time()
        proc = subprocess.Popen([str(train), "sweep", str(ROOT / "experiments" / "smoke.yaml"), *grid,
                                 *extra, "checkpoint.save_steps=0", "--workers", str(workers)],
                                cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = [(time.time(), line) for line in proc.stdout]  # wall clock, as the study's timestamps
        wall = time.perf_counter() - start
        if proc.wait() != 0:
            sys.exit("sweep failed:\n" + "".join(line for _, line in lines))
        header = next(t for t, line in lines if line.startswith("sweep '"))  # workers start now
        last_trial = max(t for t, line in lines if line.startswith("trial "))
        storage = f"sqlite:///{folder}/sweeps.db"
        study = optuna.load_study(study_name=optuna.get_all_study_names(storage)[0], storage=storage)
        trials = study.trials
    spans = [(t.datetime_start.timestamp(), t.datetime_complete.timestamp()) for t in trials]
    trial_wall = [b - a for a, b in spans]
    train_s = [t.user_attrs["train_seconds"] for t in trials]
    gaps = []  # per worker: from one trial's end to the next one's start (ask, study I/O)
    by_proc: dict[str, list[tuple[float, float]]] = {}
    for t, span in zip(trials, spans):
        by_proc.setdefault(t.user_attrs["proc"], []).append(span)
    for items in by_proc.values():
        items.sort()
        gaps += [b[0] - a[1] for a, b in zip(items, items[1:])]
    busy = max(b for _, b in spans) - min(a for a, _ in spans)
    return {"wall": wall, "trials": len(trials), "train": statistics.median(train_s),
            "setup": header - started, "spawn": min(a for a, _ in spans) - header,
            "summary": started + wall - last_trial, "first": max(trial_wall),
            "trial": statistics.median(trial_wall),
            "in_trial": statistics.median(w - s for w, s in zip(trial_wall, train_s)),
            "between": statistics.median(gaps) if gaps else 0.0, "fixed": wall - busy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="PyNative, 320 images, 1 epoch")
    args = parser.parse_args()
    if not os.environ.get("TRAIN_DATA_DIR"):
        sys.exit("set TRAIN_DATA_DIR to the folder holding mnist-10k/ (e.g. ../shared/datasets)")
    extra = QUICK if args.quick else []
    shared = tempfile.mkdtemp(prefix="bench-sweep-")
    os.environ.setdefault("TWINMODE_CACHE_DIR", os.path.join(shared, "kernels"))
    os.environ["MLFLOW_TRACKING_URI"] = f"sqlite:///{shared}/mlflow.db"
    # create the MLflow store and compile once: both sweeps find them ready
    one_sweep(1, extra + ["dataset.limit=64", "train.epochs=1"], ["optimizer.learning_rate=0.01,0.02"])
    results = {w: one_sweep(w, extra) for w in (1, 2)}
    print(f"8-trial sweep of smoke.yaml{' (quick)' if args.quick else ''} on {os.cpu_count()} cores; "
          "medians per trial, seconds")
    print(f"{'workers':>7} {'wall':>6} {'setup':>6} {'spawn':>6} {'summary':>7} {'slowest':>7} {'trial':>6} "
          f"{'train':>6} {'in-trial':>8} {'between':>7} {'overhead/trial':>15}")
    for workers, r in results.items():
        overhead = r["in_trial"] + r["between"] + r["fixed"] * workers / r["trials"]
        print(f"{workers:>7} {r['wall']:>6.1f} {r['setup']:>6.1f} {r['spawn']:>6.1f} {r['summary']:>7.1f} "
              f"{r['first']:>7.1f} {r['trial']:>6.2f} {r['train']:>6.2f} {r['in_trial']:>8.2f} "
              f"{r['between']:>7.2f} {overhead:>8.2f} ({overhead / r['train']:.0%})")
    print(f"speed-up with 2 workers: {results[1]['wall'] / results[2]['wall']:.2f}x")
    print("setup: command start to workers started (imports, space check, study, MLflow parent run); "
          "spawn: to the first trial (worker imports); summary: last trial to exit (table, figures); "
          "slowest: the slowest trial (a worker's first: data, kernels from the cache); medians: trial "
          "(its time in the study), train (fit + final evaluation), in-trial = trial - train (config, "
          "data, model, MLflow child run), between (a worker's gap between trials: ask, study I/O); "
          "overhead/trial = in-trial + between + (wall - trials' span) shared over a worker's trials")


if __name__ == "__main__":
    main()
