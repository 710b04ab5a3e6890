"""Run an experiment described by an ExperimentConfig: ``run_experiment`` plans the run
(trainer/plan.py) and executes it (trainer/executor.py); ``evaluate`` scores a checkpoint,
``dump_ir`` writes the graph-mode train step's IR without training.

The CLI is a thin layer over ``run_experiment``, ``compare_modes`` and ``evaluate``.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import framework as ms
from framework._io import OptionalWriteWarning
from framework.compile_report import CompileReport
from framework.train.checkpoint import CheckpointRead

from .build import build_model_for
from .config import ExperimentConfig
from .distributed import Rank, join
from .executor import RunResult, execute, set_device_context
from .plan import RunOptions, plan_run
from .preflight import InputError
from .tasks import task_of

__all__ = ["RunResult", "dump_ir", "evaluate", "run_experiment"]


def run_experiment(config: ExperimentConfig, **options) -> RunResult:
    """Train and evaluate ``config`` in ``config.mode``; log the run to MLflow. ``options``
    are :class:`~trainer.plan.RunOptions` (``resume``, ``quiet``, ``source``, ...)."""
    rank = join(config.dist.timeout)  # one rank of a data-parallel job (mpirun, --nproc), or the only one
    if "callbacks" in options:
        options["callbacks"] = tuple(options["callbacks"])
    return execute(plan_run(config, rank, RunOptions(**options)))


def evaluate(config: ExperimentConfig, checkpoint: str | Path | CheckpointRead) -> dict[str, float]:
    """Validation metrics (a classification's test split, a language model's whole
    validation split) of the network in ``checkpoint`` (any mode's checkpoint, one already
    read; ``last`` or ``best``: this config's network's, trainer/run_folders.py)."""
    from framework.serialization import read_arrays

    from .run_folders import checkpoint_of

    if str(checkpoint) in ("last", "latest", "best"):
        checkpoint = checkpoint_of(config, checkpoint)
    # a bad checkpoint is reported before any data is read
    arrays = checkpoint.arrays if isinstance(checkpoint, CheckpointRead) else read_arrays(checkpoint)[0]
    set_device_context(config, None)
    task = task_of(config)
    data = task.data(config, Rank())
    model, net = build_model_for(config, data)
    ms.load_param_into_net(net, {k: v for k, v in arrays.items()}, strict_load=True)
    return task.evaluate(config, model, data)


def dump_ir(config: ExperimentConfig, out: str) -> CompileReport:
    """Trace and compile the graph-mode train step into ``out`` without training (a
    language model reads its text for the vocabulary)."""
    from framework.train.step import CompiledStep

    set_device_context(replace(config, mode="graph"), out)
    task = task_of(config)
    data = task.data(config, Rank()) if task.by_steps else None
    model, _ = build_model_for(config, data)
    x, y = task.example_batch(config, data)
    model.train_network.set_train(True)  # the flags a training run compiles with
    step = CompiledStep(model.train_network)
    with warnings.catch_warnings():  # the IR is what this command makes: not written is an error
        warnings.filterwarnings("error", "IR artifacts", OptionalWriteWarning)
        try:
            report = step.function.compile(ms.Tensor(x), ms.Tensor(y), load=False)
        except OptionalWriteWarning as error:
            raise InputError(f"the IR cannot be written: {error.place}: {error.reason}; free space "
                             "there or write it elsewhere (--out, TWINMODE_CACHE_DIR)") from None
        finally:
            ms.set_context(save_graphs=False)
    return report
