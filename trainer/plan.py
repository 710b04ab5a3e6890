"""A run as a plan: :func:`plan_run` resolves, without side effects, everything a run
needs to know before it starts — its mode, where it writes (checkpoints, IR, the MLflow
store), what this rank does (rank 0 alone writes), the run's name, and the resume point,
read once into a :class:`~framework.train.checkpoint.CheckpointRead` that ``Model.fit``
and the MLflow record both use. The executor (trainer/executor.py) carries a plan out.

Contract: a :class:`RunPlan` is a frozen value; ``nothing_to_train`` says why a resumed
run has no step left (the executor then trains nothing and opens no MLflow run). A resume
holds its run's lock from planning on (``run_lock``, released when the run ends): a second
resume of a run being trained stops with one line (``ConfigError``) instead of forking it. Its
``checkpoint_dir`` is the run's own folder (trainer/run_folders.py): a new one under the
config's ``checkpoint.dir`` (the one thing planning makes: an empty folder, so that runs
started together never share one), the resumed checkpoint's, or the caller's
``RunOptions.checkpoint_dir`` as given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from framework.train.checkpoint import CheckpointRead, read_checkpoint
from framework.train.run_lock import RunBusy, RunLock, hold_run

from .config import ExperimentConfig
from .distributed import Rank
from .preflight import sqlite_folder
from .run_folders import ResumeMismatch, find_last, new_run_folder
from .run_names import default_run_name
from .tasks import task_of


@dataclass(frozen=True)
class RunOptions:
    """How the caller wants the run: ``run`` from the CLI, a ``compare`` round, a sweep trial.

    ``quiet`` drops the progress bar and loss lines; ``progress`` (a label) keeps only a
    labelled bar. ``source`` is the command line recorded as ``mlflow.source.name``;
    ``tags`` are added to the run's; ``callbacks`` run with the run's own (a sweep's
    pruning reporter). ``resume``: ``"last"`` or a checkpoint path. ``checkpoint_dir``:
    the folder to write into as is (else a run folder of its own, trainer/run_folders.py).
    ``log_model=False``: no LoggedModel (``train compare``'s runs, which only time the modes).
    """

    resume: str | None = None
    quiet: bool = False
    checkpoint_dir: str | None = None
    parent_run_id: str | None = None
    run_name: str | None = None
    log: bool = True
    progress: str | None = None
    source: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    callbacks: tuple[Any, ...] = ()
    log_model: bool = True  # the trained model as an MLflow LoggedModel (mlflow.log_model on too)
    profile: bool = False  # time the graph-mode step's kernels by source line (trainer/profile_report.py)
    resume_command: str | None = None  # how the user continues after a Ctrl-C (the CLI's command line)


@dataclass(frozen=True)
class RunPlan:
    config: ExperimentConfig
    rank: Rank
    options: RunOptions  # as this rank runs it (ranks other than 0: quiet, no MLflow)
    checkpoint_dir: str  # this run's folder (module docstring)
    ir_dir: str | None  # graph mode's IR artifacts (ir.save), rank 0 only
    tracking_uri: str
    run_name: str
    # the checkpoint read, or "last" when none was found (Model.fit warns and starts over)
    resume: CheckpointRead | str | None = None
    nothing_to_train: str | None = None
    # rank 0 of a resume: the lock of the resumed run, held from planning to the run's end
    # (framework/train/run_lock.py), so two resumes of one run never both train it
    run_lock: RunLock | None = None
    # a default name (trainer/run_names.py): MLflow's run gets its id's first characters too
    unique_name: bool = False

    @property
    def mode(self) -> str:
        return self.config.mode

    @property
    def prefix(self) -> str:
        """The checkpoint file prefix of this experiment (``name`` with ``/`` as ``_``)."""
        return self.config.name.replace("/", "_")


def plan_run(config: ExperimentConfig, rank: Rank, options: RunOptions = RunOptions()) -> RunPlan:
    """The plan of ``config`` on this ``rank`` (``ConfigError`` for a setting this launch
    cannot run). Reads the newest checkpoint for a resume; makes a new run's folder."""
    plan = _base_plan(config, rank, options)
    if options.resume is not None:
        plan = _resumed(plan, options.resume)
    settled = plan.options.checkpoint_dir or plan.nothing_to_train or isinstance(plan.resume, CheckpointRead)
    if settled:
        return plan
    # a new run: rank 0 makes its folder (now, so that runs started together never share
    # one) and every rank knows it
    fresh = str(new_run_folder(config.checkpoint_dir, config.mode, create=True)) if rank.leader else None
    return replace(plan, checkpoint_dir=rank.agree(fresh))


def _base_plan(config: ExperimentConfig, rank: Rank, options: RunOptions) -> RunPlan:
    from .config import ConfigError
    from .mlflow_logger import tracking_uri

    mode = config.mode
    if rank.distributed and config.device == "cuda" and mode == "graph":
        raise ConfigError("device: cuda with several ranks is not supported yet (graph mode's "
                          "all-reduce reads host memory); use device: cpu")
    if not rank.leader:  # rank 0 alone writes checkpoints, IR and the MLflow run
        options = replace(options, quiet=True, log=False, progress=None)
    ir_dir = os.path.join(config.ir_dir, mode) if config.ir.save and mode == "graph" else None
    named = options.run_name or config.mlflow.run_name
    name = named or (default_run_name(config, options.source) if options.log else f"{config.name}-{mode}")
    return RunPlan(config, rank, options, options.checkpoint_dir or config.checkpoint_dir,
                   ir_dir if rank.leader else None, tracking_uri(config.mlflow.tracking_uri), name,
                   unique_name=not named)


def _resumed(plan: RunPlan, asked: str) -> RunPlan:
    """The plan with its resume point; a resumed run goes on in its checkpoint's folder."""
    from .config import ConfigError

    try:
        plan = _with_resume(plan, asked)
    except (ResumeMismatch, RunBusy) as error:
        raise ConfigError(f"--resume {error}") from None
    if isinstance(plan.resume, CheckpointRead) and not plan.options.checkpoint_dir:
        plan = replace(plan, checkpoint_dir=str(plan.resume.path.parent))
    return plan


def _with_resume(plan: RunPlan, asked: str) -> RunPlan:
    """The resume point, chosen by rank 0 (``last``: the newest of this experiment's runs)
    and agreed by all ranks; each rank reads the file once."""
    rank = plan.rank
    chosen = _find(plan, asked) if rank.leader else None
    lock, busy = _hold(chosen) if rank.leader else (None, None)
    path, finished, busy = rank.agree((*_describe(plan, chosen, asked), busy) if rank.leader else None)
    if busy:
        raise RunBusy(busy)
    if finished:
        if lock is not None:
            lock.release()
        return replace(plan, nothing_to_train=finished)
    if path in ("last", "latest"):
        return replace(plan, resume=path)
    read = chosen if chosen is not None else read_checkpoint(path)
    return replace(plan, resume=read, run_lock=lock)


def _hold(chosen: CheckpointRead | None) -> tuple[RunLock | None, str | None]:
    """(the lock of the run ``chosen`` belongs to, None) or (None, why it is busy)."""
    if chosen is None:
        return None, None
    try:
        return hold_run(chosen.path), None
    except RunBusy as error:
        return None, str(error)


def _find(plan: RunPlan, asked: str) -> CheckpointRead | None:
    """``last``: the newest checkpoint of this config (trainer/run_folders.py), in the
    caller's folder or under the config's ``checkpoint.dir``."""
    if asked in ("last", "latest"):
        config = plan.config
        base = plan.options.checkpoint_dir or config.checkpoint_dir
        return find_last(base, plan.prefix, config.to_dict(), type(config)().to_dict())
    return read_checkpoint(asked)


def _describe(plan: RunPlan, chosen: CheckpointRead | None, asked: str) -> tuple[str, str | None]:
    """``(path or "last", why nothing is left to train or None)``: what the ranks agree on.
    The task says how long the run is (epochs, or a language model's step budget)."""
    if chosen is None:
        return asked, None
    task = task_of(plan.config)
    if chosen.state.next_position()[0] >= task.epochs(plan.config):
        return str(chosen.path), f"nothing to train: {chosen.path} {task.finished(plan.config, chosen.state)}"
    return str(chosen.path), None


def output_places(plan: RunPlan) -> list[tuple[str | None, str, str]]:
    """Every folder a run writes to, with how to change it (checked before the first step)."""
    places: list[tuple[str | None, str, str]] = [
        (plan.checkpoint_dir, "checkpoint folder", "set checkpoint.dir to a writable folder")]
    if plan.ir_dir:
        places.append((plan.ir_dir, "IR folder", "set ir.dir to a writable folder or ir.save: false"))
    if plan.mode == "graph":
        from framework.backend.tvm.runtime.cache import cache_dir

        places.append((str(cache_dir()), "compiled-kernel cache",
                       "set TWINMODE_CACHE_DIR to a writable folder"))
    if plan.options.log:
        uri = plan.tracking_uri
        folder = sqlite_folder(uri)
        places.append((str(folder) if folder else None, f"MLflow store folder (of {uri})",
                       "set mlflow.tracking_uri or MLFLOW_TRACKING_URI to a writable place"))
    return places
