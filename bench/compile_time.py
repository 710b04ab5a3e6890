"""Graph-mode compile time of LeNet, ResNet-20 and the character GPT: this checkout against
another one (``--old DIR``, e.g. ``git worktree add --detach /tmp/old <commit>``), side by side.

Each round runs ``train ir <experiment>`` in a fresh process for each checkout in turn, with
an empty kernel cache (``TWINMODE_CACHE_DIR`` in a temporary folder), and reads the compile
report (``summary.json``): trace, optimize, lower + build and total seconds. Rounds
interleave the two checkouts so that a machine's load falls on both alike; the medians and
their ratio (new / old) are printed at the end.

Run: ``python bench/compile_time.py --old /tmp/old [--rounds 3] [--experiments lenet,...]``
(``TRAIN_DATA_DIR`` as for ``train run``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ("lenet", "resnet20_synthetic", "gpt_shakespeare")
FIELDS = ("trace_seconds", "optimize_seconds", "compile_seconds", "total_seconds")


def compile_once(checkout: Path, experiment: str) -> dict[str, float]:
    """One ``train ir`` of ``experiment`` in ``checkout``, with an empty kernel cache."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(checkout), "TWINMODE_CACHE_DIR": str(Path(tmp) / "cache")}
        out = Path(tmp) / "ir"
        subprocess.run([sys.executable, "-m", "trainer.cli", "ir", f"experiments/{experiment}.yaml",
                        "--out", str(out)], cwd=checkout, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        summary = json.loads(next(out.glob("*/summary.json")).read_text())
    return {field: float(summary[field]) for field in FIELDS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--experiments", default=",".join(EXPERIMENTS))
    args = parser.parse_args()
    sides = {"old": args.old.resolve(), "new": ROOT}
    totals: dict[tuple[str, str], list[float]] = {}
    for round_ in range(1, args.rounds + 1):
        for experiment in args.experiments.split(","):
            for side, checkout in sides.items():
                figures = compile_once(checkout, experiment)
                totals.setdefault((experiment, side), []).append(figures["total_seconds"])
                print(f"round {round_} {experiment:20s} {side}: "
                      + "  ".join(f"{k.removesuffix('_seconds')} {v:6.2f} s" for k, v in figures.items()),
                      flush=True)
    print("\nmedian total seconds (new / old):")
    for experiment in args.experiments.split(","):
        old, new = (statistics.median(totals[(experiment, side)]) for side in ("old", "new"))
        print(f"  {experiment:20s} old {old:7.2f}  new {new:7.2f}  ratio {new / old:5.2f}")


if __name__ == "__main__":
    main()
