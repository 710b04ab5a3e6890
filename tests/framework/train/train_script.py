"""Train the tiny model with checkpoints; used by test_kill_resume.py in subprocesses.

    python tests/framework/train/train_script.py --dir D --epochs 3 --save-steps 5 [--kill-at 17]
        [--sigint-at 9] [--sleep 0.05] [--resume] [--mode graph] --out final.npz

Each step appends ``<global step> <loss as float.hex>`` to ``<dir>/losses.txt`` (flushed,
so the lines of a killed run survive) and prints ``step <n>``. ``--kill-at`` SIGKILLs
the process at the end of that step (before that step's checkpoint, if any);
``--sigint-at`` sends it SIGINT there. On a normal end the final Parameters are saved
to ``--out`` (.npz).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from framework.train import Callback, CheckpointConfig, ModelCheckpoint, RunContext  # noqa: E402
from tests.framework.train import tiny  # noqa: E402


class Probe(Callback):
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.log = open(Path(args.dir) / "losses.txt", "a")  # noqa: SIM115

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.log.write(f"{run_context.global_step} {float(run_context.loss).hex()}\n")
        self.log.flush()
        print(f"step {run_context.global_step}", flush=True)
        if self.args.sleep:
            time.sleep(self.args.sleep)
        if run_context.global_step == self.args.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if run_context.global_step == self.args.sigint_at:
            os.kill(os.getpid(), signal.SIGINT)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mode", default="pynative")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--save-steps", type=int, default=5)
    parser.add_argument("--kill-at", type=int, default=-1)
    parser.add_argument("--sigint-at", type=int, default=-1)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    model = tiny.model(seed=0, mode=args.mode)
    ckpt = ModelCheckpoint("tiny", Path(args.dir) / "ckpt",
                           CheckpointConfig(save_checkpoint_steps=args.save_steps, keep_checkpoint_max=3))
    model.train(args.epochs, tiny.loader(), callbacks=[Probe(args), ckpt],
                resume_from="last" if args.resume else None)
    if args.out:
        np.savez(args.out, **tiny.params(model))
    print("done", flush=True)


if __name__ == "__main__":
    main()
