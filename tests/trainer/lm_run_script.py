"""Run a language-model YAML in a subprocess for test_language_model.py's SIGKILL tests.

    python tests/trainer/lm_run_script.py LM.yaml FOLDER [--kill-at N] [--kill-before N]
                                          [--resume] [--run-folders] [--log] [KEY=VALUE ...]

Each step's ``<global step> <loss as float.hex>`` is appended to ``FOLDER/losses.txt``
(flushed, so a killed run's lines survive); ``--kill-at`` SIGKILLs the process at the end of
that step (before its checkpoint is written), ``--kill-before`` as that step begins (after
everything of the step before: its evaluation, its checkpoint). ``--resume`` continues from
the newest checkpoint (``last``, as ``train run --resume last``). Checkpoints go to FOLDER,
or with ``--run-folders`` to run folders under ``checkpoint.dir`` as the CLI's do. ``--log``
logs to MLflow (``mlflow.tracking_uri=...`` among the overrides). On a normal end the final
checkpoint's path is printed as ``checkpoint <path>``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from framework.train import Callback  # noqa: E402
from trainer.config import load_config  # noqa: E402
from trainer.experiment import run_experiment  # noqa: E402


class Probe(Callback):
    phase = "log"

    def __init__(self, log: Path, kill_at: int, kill_before: int) -> None:
        self.log, self.kill_at, self.kill_before = log.open("a"), kill_at, kill_before

    def on_train_step_begin(self, run_context) -> None:
        if run_context.global_step + 1 == self.kill_before:
            os.kill(os.getpid(), signal.SIGKILL)

    def on_train_step_end(self, run_context) -> None:
        self.log.write(f"{run_context.global_step} {float(run_context.loss).hex()}\n")
        self.log.flush()
        if run_context.global_step == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("checkpoint_dir")
    parser.add_argument("overrides", nargs="*")
    parser.add_argument("--kill-at", type=int, default=-1)
    parser.add_argument("--kill-before", type=int, default=-1)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--run-folders", action="store_true")
    parser.add_argument("--log", action="store_true")
    args = parser.parse_args()
    folder = Path(args.checkpoint_dir)
    folder.mkdir(parents=True, exist_ok=True)
    result = run_experiment(load_config(args.config, args.overrides), quiet=True, log=args.log,
                            checkpoint_dir=None if args.run_folders else str(folder),
                            resume="last" if args.resume else None,
                            callbacks=[Probe(folder / "losses.txt", args.kill_at, args.kill_before)])
    print(f"checkpoint {result.checkpoint}")


if __name__ == "__main__":
    main()
