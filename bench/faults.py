"""SIGKILL training runs at random moments and check that nothing is lost.

    TRAIN_DATA_DIR=../shared/datasets .venv/bin/python bench/faults.py [--kills 20] [--seed 0]

Each trial starts ``train run`` on a small MNIST experiment in a subprocess and kills it
with SIGKILL, at one of three kinds of moment:

- ``random``: a random moment of a PyNative run: 0 to 300 ms after its checkpoints reach
  a random step (step 0: during start-up), so kills land in steps, saves and start-up
  alike whatever the machine's speed;
- ``ckpt-write``: while a checkpoint (or the ``latest`` pointer) is being written: from a
  random step on, the checkpoint folder is polled and the run killed as soon as a
  temporary file appears;
- ``cache-write``: while a compiled kernel library is being written (graph mode, fresh
  kernel cache): the cache folder is polled the same way.

Then the run is resumed with ``--resume last`` (PyNative trials in PyNative, cache trials
in graph mode on the damaged cache) until it ends, and the bench reports: trials whose
kill landed mid-write (the temporary was still there), runs resumed from a checkpoint,
runs that finished, checkpoints that load (every ``.ckpt`` left by the killed run),
PyNative runs whose final parameters are bit-identical to an uninterrupted run, and
native crashes (a resumed run ended by a signal: must be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from framework.serialization import CheckpointError, read_arrays  # noqa: E402
from framework.train.checkpoint import latest_valid, read_train_state  # noqa: E402

EXPERIMENT = """\
name: faults
seed: 3
mode: pynative
dataset:
  name: mnist-10k
  batch_size: 16
  limit: 480
  test_limit: 64
train:
  epochs: 2
  log_every: 5
checkpoint:
  save_steps: 2
  keep_max: 3
mlflow:
  experiment: faults
"""


TOTAL_STEPS = 2 * 480 // 16  # epochs * limit / batch_size of EXPERIMENT


@dataclass
class Tally:
    trials: int = 0
    mid_write: int = 0
    resumed: int = 0
    finished: int = 0
    checkpoints: int = 0
    checkpoints_loading: int = 0
    pynative: int = 0
    identical: int = 0
    native_crashes: int = 0
    notes: list[str] = field(default_factory=list)


def _env(work: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "TWINMODE_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1",
            "MLFLOW_TRACKING_URI": f"sqlite:///{work.parent / 'mlflow.db'}",
            "PYTHONPATH": str(ROOT)}


def _command(work: Path, mode: str, resume: bool) -> list[str]:
    cmd = [sys.executable, "-m", "trainer.cli", "run", str(work / "exp.yaml"), "--mode", mode, "--quiet"]
    return cmd + (["--resume", "last"] if resume else [])


def _run(work: Path, cache: Path, mode: str, resume: bool) -> subprocess.CompletedProcess:
    return subprocess.run(_command(work, mode, resume), cwd=work, env=_env(work, cache),
                          capture_output=True, text=True, timeout=600)


def _temporaries(folder: Path) -> list[str]:
    try:
        return [e.name for e in os.scandir(folder) if e.name.startswith(".") and ".tmp" in e.name]
    except FileNotFoundError:
        return []


def _global_step(folder: Path) -> int:
    """The step of the newest checkpoint (from the ``latest`` pointer), 0 before the first."""
    try:
        return int(json.loads((folder / "latest").read_text())["global_step"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def _kill(work: Path, cache: Path, mode: str, kind: str, step: int, delay: float) -> tuple[bool, int]:
    """Start a run and SIGKILL it once its checkpoints reach ``step``: ``delay`` seconds later
    (``random``), or at the next temporary file of a checkpoint or cache write. Returns
    (killed mid-write, return code)."""
    folder = work / "checkpoints" / "faults"
    watch = {"ckpt-write": folder, "cache-write": cache}.get(kind)
    child = subprocess.Popen(_command(work, mode, False), cwd=work, env=_env(work, cache),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    armed_at = None
    while child.poll() is None:
        if armed_at is None and _global_step(folder) >= step:
            armed_at = time.perf_counter()
        if armed_at is not None and watch is not None and _temporaries(watch):
            child.send_signal(signal.SIGKILL)
            child.wait()
            return bool(_temporaries(watch)), child.returncode  # still there: the write was cut
        if armed_at is not None and watch is None and time.perf_counter() - armed_at >= delay:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.0002 if armed_at is not None else 0.002)
    return False, child.wait()


def _final_params(work: Path) -> dict[str, np.ndarray] | None:
    found = latest_valid(work / "checkpoints" / "faults", "faults", runs=True)
    return None if found is None else found[1]


def _check_checkpoints(work: Path, tally: Tally) -> None:
    for path in (work / "checkpoints" / "faults").glob("*.ckpt"):
        tally.checkpoints += 1
        try:
            read_train_state(path)
            read_arrays(path)
            tally.checkpoints_loading += 1
        except (CheckpointError, OSError) as error:
            tally.notes.append(f"unreadable checkpoint {path.name}: {error}")


def trial(base: Path, index: int, kind: str, step: int, delay: float,
          reference: dict[str, np.ndarray], tally: Tally) -> str:
    work = base / f"trial{index:02d}"
    work.mkdir()
    (work / "exp.yaml").write_text(EXPERIMENT)
    cache = work / "compiled" if kind == "cache-write" else base / "compiled"
    mode = "graph" if kind == "cache-write" else "pynative"
    mid_write, rc = _kill(work, cache, mode, kind, step, delay)
    tally.trials += rc == -signal.SIGKILL
    if rc != -signal.SIGKILL:
        tally.notes.append(f"trial {index}: the run ended (rc {rc}) before the kill")
    tally.mid_write += mid_write
    _check_checkpoints(work, tally)
    done = _run(work, cache, mode, resume=True)
    if done.returncode < 0 or done.returncode >= 128:
        tally.native_crashes += 1
        tally.notes.append(f"trial {index}: resumed run ended by signal (rc {done.returncode})")
    resumed = "starting from the beginning" not in done.stderr
    tally.resumed += resumed and done.returncode == 0
    tally.finished += done.returncode == 0
    if done.returncode != 0:
        tally.notes.append(f"trial {index}: resume rc {done.returncode}: {done.stderr.strip()[-300:]}")
    same = None
    if mode == "pynative" and done.returncode == 0:
        tally.pynative += 1
        final = _final_params(work)
        same = final is not None and final.keys() == reference.keys() and all(
            final[k].tobytes() == reference[k].tobytes() for k in reference)
        tally.identical += bool(same)
    if kind == "random":
        where = f"step {step} + {delay * 1000:.0f} ms"
    else:
        where = f"{'mid-write' if mid_write else 'write missed'} from step {step}"
    return (f"trial {index:2d} {kind:11s} {where:22s} killed rc {rc:4d}; resume rc {done.returncode} "
            f"({'from a checkpoint' if resumed else 'from the start'})"
            + ("" if same is None else f"; parameters {'bit-identical' if same else 'DIFFER'}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    if not os.environ.get("TRAIN_DATA_DIR"):
        sys.exit("set TRAIN_DATA_DIR to the folder holding mnist-10k/ (e.g. ../shared/datasets)")
    rng = random.Random(args.seed)
    base = Path(tempfile.mkdtemp(prefix="twinmode-faults-"))
    try:
        ref = base / "reference"
        ref.mkdir()
        (ref / "exp.yaml").write_text(EXPERIMENT)
        results = []
        for _attempt in range(2):  # the first also creates the MLflow store; the second is timed
            shutil.rmtree(ref / "checkpoints", ignore_errors=True)
            start = time.perf_counter()
            done = _run(ref, base / "compiled", "pynative", resume=False)
            duration = time.perf_counter() - start
            if done.returncode != 0:
                sys.exit(f"the uninterrupted reference run failed: {done.stderr[-1000:]}")
            results.append(_final_params(ref))
        reference = results[1]
        repeatable = all(results[0][k].tobytes() == reference[k].tobytes() for k in reference)
        print(f"reference: uninterrupted PyNative run, {duration:.1f} s; a second run "
              f"{'gives the same bits' if repeatable else 'DIFFERS'}")
        kinds = ["random", "ckpt-write", "ckpt-write", "random", "cache-write"]
        tally = Tally()
        for i in range(args.kills):
            kind = kinds[i % len(kinds)]
            step = 0 if kind == "cache-write" else rng.randrange(0, TOTAL_STEPS - 2)
            print(trial(base, i, kind, step, rng.uniform(0.0, 0.3), reference, tally), flush=True)
        print(f"\nkills: {tally.trials} of {args.kills} trials ({tally.mid_write} mid-write of a "
              "checkpoint or cache entry)")
        print(f"runs resumed from a checkpoint: {tally.resumed}; finished after the kill: "
              f"{tally.finished}/{args.kills}")
        print(f"checkpoints left by killed runs that load: {tally.checkpoints_loading}/{tally.checkpoints}")
        print(f"PyNative runs with parameters bit-identical to the uninterrupted run: "
              f"{tally.identical}/{tally.pynative}")
        print(f"native crashes: {tally.native_crashes}")
        for note in tally.notes:
            print("  " + note)
    finally:
        if args.keep:
            print(f"work folder kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
