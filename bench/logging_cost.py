"""Cost of MLflow logging per training step, against a graph-mode LeNet step.

    python bench/logging_cost.py [--steps 3000] [--log-every 1 50]

Drives MLflowLogger's per-step hook (buffered metrics, batched ``log_batch`` writes to a
fresh SQLite store, epoch-end flushes) with a fake run context, and prints the mean cost
per step; target: under 2% of a step (a graph-mode LeNet step is ~1.6 ms at batch 32).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from framework.train.context import RunContext  # noqa: E402
from trainer.mlflow_logger import MLflowLogger, MLflowRun  # noqa: E402


def cost_per_step(steps: int, log_every: int, steps_per_epoch: int = 1875) -> tuple[float, float]:
    """(ms per step on the training loop, ms per step including draining the writer)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = MLflowRun(f"sqlite:///{tmp}/mlflow.db", "bench", "logging")
        logger = MLflowLogger(run, log_every=log_every, batch_size=32)
        ctx = RunContext(phase="train", mode="graph", batch_size=32)
        start = time.perf_counter()
        for i in range(1, steps + 1):
            ctx.global_step, ctx.step, ctx.loss = i, i % steps_per_epoch, 2.0 / i
            logger.on_train_step_end(ctx)
            if i % steps_per_epoch == 0:
                ctx.epoch += 1
                logger.on_train_epoch_end(ctx)
        logger.on_train_end(ctx)
        on_loop = time.perf_counter() - start
        run.end()
        total = time.perf_counter() - start
    return on_loop / steps * 1000, total / steps * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3750)
    parser.add_argument("--log-every", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--step-ms", type=float, default=1.6, help="graph-mode step time to compare")
    args = parser.parse_args()
    for every in args.log_every:
        loop_ms, total_ms = cost_per_step(args.steps, every)
        print(f"log_every={every:>3}: on the loop {loop_ms * 1000:6.1f} us/step "
              f"({loop_ms / args.step_ms:6.2%} of a {args.step_ms} ms step); including the "
              f"background writes {total_ms * 1000:6.1f} us/step ({total_ms / args.step_ms:6.2%})")


if __name__ == "__main__":
    main()
