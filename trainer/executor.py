"""The executor: carries out a :class:`~trainer.plan.RunPlan` and records it — the one way
a run from YAML trains, shared by ``train run``, ``train compare``'s rounds and sweep
trials. In order, each once: check the places the run writes to, set the device context,
build (data, checks, model, callbacks), open the MLflow record, ``Model.fit`` (from the
plan's resume point, read once), the final evaluation, close the record, log the model.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import framework as ms
from framework.train.checkpoint import CheckpointRead
from framework.train.loop import TrainingInterrupted
from framework.train.model import Model

from .build import build_model_for
from .config import ExperimentConfig
from .distributed import check_shapes
from .export import export_weights
from .plan import RunPlan, output_places
from .preflight import check_accumulation, check_outputs
from .run_callbacks import RunCallbacks, callbacks_for, terminal_callbacks
from .run_folders import remove_stale_temps_under
from .tasks import Task, TaskData, task_of


class UnsavedRun(RuntimeError):
    """The run trained, but its final state could not be written anywhere (every save and
    the rescue folder refused it): a run whose result is lost fails (the CLI: exit 1)."""


@dataclass
class RunResult:
    """What a run did. Speeds are wall-clock over the steps this process ran (compilation
    excluded, data loading included): the same figures as the MLflow ``perf/*`` metrics."""

    mode: str
    steps: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    step_seconds: list[float] = field(default_factory=list)  # wall clock per step
    compile_seconds: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)  # the test set's, after training
    seconds: float = 0.0
    batch_size: int = 0
    run_id: str | None = None
    checkpoint: str | None = None
    offline_log: str | None = None  # where the run was logged when the store was unreachable
    nothing_to_train: str | None = None  # why a resumed run had no step left (no MLflow run made)
    samples: int = 0
    ir_dir: str | None = None
    run_url: str | None = None
    runs_url: str | None = None  # the experiment's runs table in the twinmode view (trainer/tracking.py)
    model_uri: str | None = None
    best_checkpoint: str | None = None  # checkpoint.keep_best: the best epoch's file
    best_score: str | None = None  # its figure: "eval/accuracy 0.9812 at epoch 3"
    weights: str | None = None  # checkpoint.format mindspore|safetensors: the weights in it
    profile: str | None = None  # --profile: the train step's hot-lines table (trainer/profile_report.py)

    @property
    def ms_per_step(self) -> float:
        total = sum(self.step_seconds)
        return total / len(self.step_seconds) * 1000 if self.step_seconds else float("nan")

    @property
    def samples_per_second(self) -> float:
        total = sum(self.step_seconds)
        return (self.samples or self.batch_size * len(self.step_seconds)) / total if total else float("nan")


def set_device_context(config: ExperimentConfig, ir_dir: str | None) -> None:
    """Device, kernel tuning and IR dumps (the mode is not global: ``Model(mode=...)``)."""
    if config.device == "cuda" and config.mode == "pynative":
        import warnings

        warnings.warn("device cuda applies to graph mode; PyNative runs its NumPy kernels on the CPU",
                      stacklevel=2)
    ms.set_context(device_target="GPU" if config.device == "cuda" else "CPU",
                   tuning=config.graph.tuning, save_graphs=bool(ir_dir),
                   save_graphs_path=ir_dir or os.path.join(config.ir_dir, config.mode))


@dataclass
class Built:
    """What a plan trains: the task, its data, the model, callbacks."""

    task: Task
    data: TaskData
    model: Model
    run: RunCallbacks = field(repr=False)

    @property
    def train(self) -> Any:
        return self.data.train

    @property
    def test(self) -> Any:
        return self.data.valid


def build(plan: RunPlan) -> Built:
    """The task's data, the checks that data and model fit, the model and the callbacks."""
    config, rank, task = plan.config, plan.rank, task_of(plan.config)
    data = task.data(config, rank)
    check_accumulation(config.train.accumulate_grad_batches, task.epochs(config), data.steps_per_epoch)
    model, net = build_model_for(config, data)
    if rank.distributed:
        check_shapes(net)
    task.check_fit(config, net, data)
    run = callbacks_for(plan, task.callbacks(plan, model, data),
                        terminal_callbacks(plan, **task.terminal_options(plan)), by_steps=task.by_steps)
    return Built(task, data, model, run)


def execute(plan: RunPlan) -> RunResult:
    """Train and evaluate the plan's config; record it in MLflow (rank 0, ``options.log``)."""
    try:
        plan.rank.check("the config hash", plan.config.hash())
        check_outputs(output_places(plan))
        if plan.rank.leader:
            remove_stale_temps_under(plan.config.checkpoint_dir)
        if plan.nothing_to_train:
            return RunResult(plan.mode, nothing_to_train=plan.nothing_to_train)
        set_device_context(plan.config, plan.ir_dir)
        from . import profile_report

        if plan.options.profile:
            profile_report.start()
        try:
            return _execute(plan)
        finally:
            if plan.options.profile:
                profile_report.stop()
    except BaseException:
        _drop_if_empty(plan)
        raise
    finally:
        if plan.run_lock is not None:  # the resumed run's (its ModelCheckpoint may have let it go)
            plan.run_lock.release()


def _drop_if_empty(plan: RunPlan) -> None:
    """A new run's folder (made when it was planned) that failed before it wrote anything:
    removed, so that ``checkpoints/<name>/`` lists runs, not attempts; with the default
    ``checkpoint.dir``, so are ``checkpoints/<name>`` and ``checkpoints`` when left empty."""
    if plan.options.checkpoint_dir or isinstance(plan.resume, CheckpointRead) or not plan.rank.leader:
        return
    folder = Path(plan.checkpoint_dir)
    last = Path("checkpoints") if plan.config.checkpoint.dir is None else folder
    while True:
        try:
            folder.rmdir()  # only when empty
        except OSError:
            return
        if folder == last or folder.parent == folder:
            return
        folder = folder.parent


def _execute(plan: RunPlan) -> RunResult:
    from . import profile_report

    built = build(plan)
    built.model.resume_hint = plan.options.resume_command
    record = _open_record(plan, built) if plan.options.log else None
    _announce(plan, built, record)
    status, result = "FAILED", None
    try:
        result = _fit(plan, built, record)
        if plan.options.profile:
            result.profile = profile_report.finish(built.model, record)
        status = "FINISHED"
    except BaseException as error:
        if isinstance(error, (KeyboardInterrupt, TrainingInterrupted)):
            status = "KILLED"  # Ctrl-C: a checkpoint was saved, the run stopped on purpose
        _close_bars(built)  # the error's line then starts a line of its own, not the bar's
        raise
    finally:
        if record is not None:
            _close_record(plan, built, record, status, result)
    return result


def _announce(plan: RunPlan, built: Built, record: Any) -> None:
    """Before the first step: the precision when not float32 (and why it may be slow), the
    model summary (also logged as ``model_summary.txt``) and the run's MLflow page, so it
    can be watched while it trains."""
    from .model_summary import model_summary
    from .precision import announce

    config = plan.config
    if plan.rank.leader:
        announce(config.precision, plan.mode, config.device, built.model, plan.options.quiet)
    x = built.task.summary_input(plan.config, built.data)
    text = model_summary(built.model.network, x) if x is not None else None
    if text and record is not None:
        record.log_text(text + "\n", "model_summary.txt")
    if plan.options.quiet:
        return
    if isinstance(plan.resume, CheckpointRead):
        from .checkpoint_info import describe

        print(f"resuming from {describe(plan.resume, built.task.metric_prefix)}", flush=True)
    if text:
        print(text, flush=True)
    if record is not None and record.url:
        print(f"MLflow: {record.url}", flush=True)


def _close_bars(built: Built) -> None:
    from framework.train.callbacks import ProgressBar

    for callback in built.run.callbacks:
        if isinstance(callback, ProgressBar):
            callback.on_train_end(None)


def _fit(plan: RunPlan, built: Built, record: Any) -> RunResult:
    from .tracking import view_url

    config, model, recorder = plan.config, built.model, built.run.recorder
    start = time.perf_counter()
    every = config.train.eval_every if not built.task.by_steps else 1  # by steps: each interval
    ctx = model.fit(built.task.epochs(config), built.train, built.test, valid_frequency=every,
                    callbacks=built.run.callbacks, resume_from=plan.resume)
    if plan.rank.leader:
        _check_saved(ctx, built.run.checkpoint)
    metrics = _final_metrics(built, ctx, record)
    best = built.run.best
    weights = export_weights(config, model.network, ctx.latest_checkpoint) if plan.rank.leader else None
    return RunResult(plan.mode, recorder.steps, recorder.losses, recorder.seconds,
                     ctx.timings.first_compile_seconds, dict(metrics), time.perf_counter() - start,
                     config.dataset.batch_size, record.run_id if record and record.online else None,
                     ctx.latest_checkpoint,
                     None if record is None or record.online else str(record.offline_path),
                     samples=recorder.samples, ir_dir=plan.ir_dir,
                     run_url=record.url if record is not None else None,
                     runs_url=view_url(record) if record is not None else None,
                     best_checkpoint=str(best.path) if best is not None and best.path else None,
                     best_score=_best_score(plan, built.task, best),
                     weights=str(weights) if weights else None)


def _check_saved(ctx: Any, saver: Any) -> None:
    """:class:`UnsavedRun` when the final step's state is in no file (rank 0 saves)."""
    if ctx.global_step == 0 or ctx.latest_checkpoint_step == ctx.global_step:
        return
    earlier = (f"the newest checkpoint is {ctx.latest_checkpoint} (step {ctx.latest_checkpoint_step})"
               if ctx.latest_checkpoint else "no checkpoint of this run was written")
    raise UnsavedRun(f"the run's final state (step {ctx.global_step}) could not be written: "
                     f"{saver.failure or 'no checkpoint was saved'}; {earlier}")


def _final_metrics(built: Built, ctx: Any, record: Any) -> dict[str, float]:
    """The last epoch's validation results; when it was not validated, an evaluation now
    (logged under the task's validation prefix)."""
    metrics = {k[5:]: v for k, v in ctx.metrics.items() if k.startswith("eval_")}
    if not metrics:
        metrics = built.model.eval(built.test)
        if record is not None:
            for key, value in metrics.items():
                record.log_metric(f"{built.task.metric_prefix}/{key}", value, ctx.global_step)
    return metrics


def _best_score(plan: RunPlan, task: Any, best: Any) -> str | None:
    """The kept checkpoint's figure in MLflow's name, and where in the run it was reached."""
    if best is None or best.path is None or best.best is None:
        return None
    from .mlflow_logger import metric_name
    from .terminal import value_text

    name = metric_name(best.monitor, task.metric_prefix) or best.monitor
    when = (f"step {best.best_epoch * plan.config.train.eval_every_steps}" if task.by_steps
            else f"epoch {best.best_epoch}")
    return f"{name} {value_text(name, best.best)} at {when}"


def _open_record(plan: RunPlan, built: Built) -> Any:
    """The MLflow run (continued for a resume), its inputs, and its logger callback."""
    from .mlflow_logger import MLflowLogger, git_commit
    from .tracking import open_run, record_inputs

    config, options = plan.config, plan.options
    resume = plan.resume if not isinstance(plan.resume, str) else None
    run = open_run(config, plan.tracking_uri, plan.run_name, options.parent_run_id, resume,
                   unique=plan.unique_name)
    resolved = _resolved(plan)
    model = config.model.class_.rsplit(":", 1)[-1] if config.model.class_ else config.model.name
    # the dataset read (the param's: mnist-10k when mnist fell back to it), or the user's class
    dataset = (config.dataset.class_.rsplit(":", 1)[-1] if config.dataset.class_
               else resolved["dataset"]["name"])
    tags = {"mode": plan.mode, "device": config.device, "precision": config.precision,
            "experiment": config.name, "task": config.task, "model": model, "dataset": dataset,
            "checkpoint_folder": str(Path(plan.checkpoint_dir).resolve()),
            "config_hash": config.hash(), "world_size": str(plan.rank.size), **options.tags}
    resumed = {"resumed_from": options.resume, "resumed_checkpoint": str(resume.path)} if resume else {}
    record_inputs(run, config, resolved, built.task, built.data, options.source, git_commit(),
                  tags, resumed)
    built.run.callbacks.append(MLflowLogger(run, config.train.log_every, built.task.metric_prefix,
                                            by_steps=built.task.by_steps))
    if config.precision != "fp32":
        from .precision import AmpMetrics

        built.run.callbacks.append(AmpMetrics(run, config.train.log_every))
    return run


def _resolved(plan: RunPlan) -> dict[str, Any]:
    from .mlflow_record import resolved_config

    return resolved_config(plan.config, mode=plan.mode, tracking_uri=plan.tracking_uri,
                           run_name=plan.run_name)


def _close_record(plan: RunPlan, built: Built, run: Any, status: str, result: RunResult | None) -> None:
    """This run's checkpoint files and IR; the logged model (a finished run's); the run ends."""
    from .tracking import finish_run

    try:
        finish_run(run, built.run.checkpoint, plan.ir_dir)
        if result is not None and result.weights:
            run.log_artifact(result.weights, "checkpoints")
        if status == "FINISHED" and plan.config.mlflow.log_model and plan.options.log_model \
                and result.checkpoint:
            result.model_uri = built.task.log_model(run, plan.config, _resolved(plan), result.checkpoint,
                                                    built.data)
    finally:
        run.end(status)
