"""The callbacks a run from YAML trains with, chosen from its plan: the step recorder,
checkpoints (and keep-best), early stopping, the task's own, the progress bar and loss
monitor (the LR schedule is the optimizer's own, trainer/schedule.py); each places itself
by its phase (framework.train.callbacks).
"""

from __future__ import annotations

from dataclasses import dataclass

from framework.train.callbacks import (
    BestCheckpoint,
    Callback,
    CheckpointConfig,
    EarlyStopping,
    LossMonitor,
    ModelCheckpoint,
    ProgressBar,
)
from framework.train.context import RunContext

from .checkpoint_info import EvaluationRecord
from .config_checks import monitor_key
from .distributed import DistStats
from .plan import RunPlan


class StepRecorder(Callback):
    """Per-step loss and wall-clock step time (``Timings.step_wall_seconds``), for
    summaries, tables and figures."""

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.seconds: list[float] = []
        self.samples = 0

    def on_train_step_end(self, ctx: RunContext) -> None:
        self.steps.append(ctx.global_step)
        self.losses.append(float(ctx.loss) if ctx.loss is not None else float("nan"))
        self.seconds.append(ctx.timings.step_wall_seconds)
        self.samples += ctx.batch_size


@dataclass
class RunCallbacks:
    callbacks: list[Callback]
    recorder: StepRecorder
    checkpoint: ModelCheckpoint  # (on ranks other than 0, not in ``callbacks``: never saves)
    best: BestCheckpoint | None = None


def terminal_callbacks(plan: RunPlan, valid: str = "eval", *, by_steps: bool = False,
                       unit: str = "samples", unit_per_sample: int = 1) -> list[Callback]:
    """What the terminal shows (trainer/terminal.py): the progress bar (``quiet``: none, or
    only a labelled one), the step and evaluation lines in MLflow's names (``valid``: the
    task's validation prefix); the NaN/Inf loss check runs whatever the verbosity.
    ``by_steps``: a run counted in steps (one bar over the run, lines with the learning
    rate and the speed in ``unit``)."""
    from .terminal import StepLines, metrics_view

    quiet, label = plan.options.quiet, plan.options.progress
    out: list[Callback] = []
    if not quiet or label:
        out.append(ProgressBar(label=label or "", whole_run=by_steps, unit=unit,
                               unit_per_sample=unit_per_sample, show_lr=by_steps, loss_name="train/loss",
                               metrics_view=metrics_view(valid)))
    out.append(LossMonitor(0))  # prints nothing: the NaN/Inf check
    if not quiet:
        out.append(StepLines(plan.config.train.log_every, valid, by_steps=by_steps, unit=unit,
                             unit_per_sample=unit_per_sample))
    return out


def callbacks_for(plan: RunPlan, task_callbacks: list[Callback], terminal: list[Callback], *,
                  by_steps: bool = False) -> RunCallbacks:
    """The run's callbacks, the task's (trainer/tasks/), what the terminal shows (the
    task's choice), then the caller's (``plan.options.callbacks``). ``by_steps``: a run
    counted in steps, its checkpoints named by step (``<name>-step-2000.ckpt``)."""
    config, leader, quiet = plan.config, plan.rank.leader, plan.options.quiet
    recorder = StepRecorder()
    c = config.checkpoint
    ckpt = ModelCheckpoint(plan.prefix, plan.checkpoint_dir, CheckpointConfig(
        save_checkpoint_steps=c.save_steps, save_checkpoint_seconds=c.save_seconds or 0,
        keep_checkpoint_max=c.keep_max), run_lock=plan.run_lock, name_by_step=by_steps)
    callbacks = [recorder, EvaluationRecord(), ckpt] if leader else [recorder]
    callbacks += list(plan.options.callbacks)
    if plan.rank.distributed:
        callbacks.append(DistStats(plan.rank))
    best = BestCheckpoint(ckpt, monitor_key(c.keep_best)) if c.keep_best and leader else None
    if best is not None:
        callbacks.append(best)
    stop = config.train.early_stopping
    if stop.monitor is not None:
        callbacks.append(EarlyStopping(monitor_key(stop.monitor), stop.patience, stop.min_delta,
                                       stop.mode, restore_best_weights=stop.restore_best_weights,
                                       verbose=not quiet))
    callbacks += task_callbacks
    callbacks += terminal
    return RunCallbacks(callbacks, recorder, ckpt, best)
