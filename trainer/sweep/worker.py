"""A sweep worker: asks the study for trials and trains them, one at a time, in this process.

Run as ``python -m trainer.sweep.worker '<json of WorkerJob>'`` (:mod:`trainer.sweep.pool`
starts it so, through a small bootstrap that holds a Ctrl-C until the imports are done).
Each trial is ``run_experiment`` of the trial's config as a nested MLflow run under the
sweep's parent run, with a :class:`PruningReporter` that reports the metric per evaluation
epoch and stops the trial when the pruner says so. Outcomes (the study's rules are in
:mod:`trainer.sweep.study`):

- finished: ``COMPLETE`` with the metric's value;
- pruned: ``PRUNED`` (its run stays in MLflow, with metric ``sweep/pruned`` = 1);
- an exception: ``FAIL`` with user attr ``error`` (counted; the sweep goes on);
- Ctrl-C: ``FAIL`` marked ``interrupted``; the worker stops (exit 130) and a later
  sweep retries those params.

While a trial trains, its user attr ``progress`` says where it is (``epoch``, ``epochs``,
``step``, ``steps``, ``done``: epochs finished), written when training begins, at most every
:data:`PROGRESS_EVERY_S` seconds between steps and at each epoch's end, after the epoch's
metric is reported: the sweep's parent reads it, with the reported values, for its live
view (:mod:`trainer.sweep.progress`). The worker prints nothing about its trials; the
parent tells them from the study. Exit status: 0 done, 130 interrupted, 2 bad input.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from framework.train.callbacks.base import Callback
from framework.train.context import RunContext

from .metric import Metric, resolve
from .spec import SweepSpec, build_spec
from .study import HEARTBEAT_S, SweepStudy, make_sampler, parse_pruner

PROGRESS_EVERY_S = 2.0  # between steps: a write to the study's database at most this often


@dataclasses.dataclass
class WorkerJob:
    """Everything a worker needs (JSON on its command line)."""

    file: str
    overrides: list[str]
    storage: str
    study: str
    metric: str
    direction: str
    sampler: str
    pruner: str
    trials: int
    epochs: int
    parent_run_id: str | None
    seed: int | None = None
    index: int = 0
    workers: int = 1
    prefix: str = "eval"  # the task's validation-metric prefix (sweep/metric.py)


class PruningReporter(Callback):
    """Reports the metric at each evaluation epoch; requests a stop when the trial should be
    pruned; records the trial's ``progress`` for the sweep's live view."""

    phase = "monitor"  # after the epoch's metrics are filled in, before they are logged

    def __init__(self, trial: Any, metric: Metric) -> None:
        self.trial, self.metric = trial, metric
        self.last: float | None = None
        self.pruned_at: int | None = None
        self._written = 0.0

    def _progress(self, ctx: RunContext, done: int) -> None:
        self._written = time.monotonic()
        try:
            self.trial.set_user_attr("progress", {
                "epoch": max(ctx.epoch, 1), "epochs": ctx.epoch_num, "step": ctx.step,
                "steps": ctx.steps_per_epoch, "done": done})
        except Exception:  # noqa: BLE001 - only the live view reads it: a missed write is no error
            pass

    def on_train_begin(self, ctx: RunContext) -> None:
        self._progress(ctx, max(ctx.epoch - 1, 0))

    def on_train_step_end(self, ctx: RunContext) -> None:
        if time.monotonic() - self._written >= PROGRESS_EVERY_S:
            self._progress(ctx, ctx.epoch - 1)

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        value = ctx.metrics.get(self.metric.epoch_key, ctx.metrics.get(self.metric.name))
        if value is not None:
            self.last = float(value)
            self.trial.report(self.last, ctx.epoch)
        self._progress(ctx, ctx.epoch)
        if value is not None and ctx.epoch < ctx.epoch_num and self.trial.should_prune():
            self.pruned_at = ctx.epoch
            ctx.metrics["sweep/pruned"] = 1.0
            ctx.request_stop()


class Heartbeat:
    """Records the trial's heartbeat in the storage while it runs (stale trials fail elsewhere)."""

    def __init__(self, storage: Any, trial_id: int) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(storage, trial_id), daemon=True)

    def _beat(self, storage: Any, trial_id: int) -> None:
        while True:
            try:
                storage.record_heartbeat(trial_id)
            except Exception:  # noqa: BLE001 - a missed beat is retried; the grace period is long
                pass
            if self._stop.wait(HEARTBEAT_S):
                return

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def run_trial(job: WorkerJob, spec: SweepSpec, study: SweepStudy, trial: Any, metric: Metric) -> str:
    """Train one trial and tell the study its outcome; returns its state name."""
    from optuna.trial import TrialState

    from framework.train.loop import TrainingInterrupted

    from ..experiment import run_experiment

    params = dict(trial.params)
    try:
        config = spec.config_for(params)
        from ..config_checks import safe_component  # --study ../x stays below the checkpoint folder

        folder = f"sweep-{safe_component(job.study, 200)}"
        ckpt_dir = Path(config.checkpoint_dir) / folder / f"trial-{trial.number}"
        reporter = PruningReporter(trial, metric)
        with Heartbeat(study.storage, trial._trial_id):
            result = run_experiment(
                config, quiet=True, checkpoint_dir=str(ckpt_dir), parent_run_id=job.parent_run_id,
                run_name=f"{config.name}-trial-{trial.number}", callbacks=[reporter],
                source=str(Path(job.file).resolve()),
                tags={"sweep.study": job.study, "sweep.trial": str(trial.number),
                      "sweep.params": json.dumps(params)})
        if result.run_id:
            trial.set_user_attr("mlflow_run_id", result.run_id)
        trial.set_user_attr("train_seconds", round(result.seconds, 3))
        if reporter.pruned_at is not None:
            study.study.tell(trial, state=TrialState.PRUNED)
            return "PRUNED"
        value = result.metrics.get(metric.final_key) if metric.final_key else reporter.last
        if value is None:
            raise RuntimeError(f"the run gave no {metric.name} (is train.eval_every > train.epochs?)")
        study.study.tell(trial, float(value))
        return "COMPLETE"
    except (KeyboardInterrupt, TrainingInterrupted):
        trial.set_user_attr("interrupted", "Ctrl-C")
        study.study.tell(trial, state=TrialState.FAIL)
        raise
    except Exception as error:  # noqa: BLE001 - a crashed trial fails alone; the sweep goes on
        first = str(error).splitlines()[0] if str(error) else ""
        message = f"{type(error).__name__}: {first}"
        trial.set_user_attr("error", message[:2000])
        study.study.tell(trial, state=TrialState.FAIL)
        return "FAIL"


def work(job: WorkerJob) -> int:
    """Run trials until the study has ``job.trials`` counted; returns how many this worker ran."""
    spec = build_spec(job.file, job.overrides)
    metric = resolve(job.metric, job.direction, job.prefix)
    seed = None if job.seed is None else job.seed + job.index
    study = SweepStudy(job.storage, job.study, metric.direction,
                       make_sampler(job.sampler, spec, seed, job.workers > 1),
                       parse_pruner(job.pruner, job.epochs))
    ran = 0
    while (trial := study.ask(job.trials, spec)) is not None:
        run_trial(job, spec, study, trial, metric)
        ran += 1
    return ran


def main(argv: list[str]) -> int:
    from framework.train.loop import TrainingInterrupted

    from ..config import ConfigError
    from .study import StudyError

    job = WorkerJob(**json.loads(argv[0]))
    try:
        work(job)
    except (KeyboardInterrupt, TrainingInterrupted):
        return 130
    except (ConfigError, StudyError) as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
