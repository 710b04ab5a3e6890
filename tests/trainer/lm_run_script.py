"""Run a language-model YAML in a subprocess for test_language_model.py's SIGKILL test.

    python tests/trainer/lm_run_script.py LM.yaml CHECKPOINT_DIR [--kill-at N] [--resume]

Each step's ``<global step> <loss as float.hex>`` is appended to ``CHECKPOINT_DIR/losses.txt``
(flushed, so a killed run's lines survive); ``--kill-at`` SIGKILLs the process at the end of
that step; ``--resume`` continues from the newest checkpoint of the folder (``last``).
On a normal end the final checkpoint's path is printed as ``checkpoint <path>``.
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

    def __init__(self, log: Path, kill_at: int) -> None:
        self.log, self.kill_at = log.open("a"), kill_at

    def on_train_step_end(self, run_context) -> None:
        self.log.write(f"{run_context.global_step} {float(run_context.loss).hex()}\n")
        self.log.flush()
        if run_context.global_step == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("checkpoint_dir")
    parser.add_argument("--kill-at", type=int, default=-1)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    folder = Path(args.checkpoint_dir)
    folder.mkdir(parents=True, exist_ok=True)
    result = run_experiment(load_config(args.config), quiet=True, log=False, checkpoint_dir=str(folder),
                            resume="last" if args.resume else None,
                            callbacks=[Probe(folder / "losses.txt", args.kill_at)])
    print(f"checkpoint {result.checkpoint}")


if __name__ == "__main__":
    main()
