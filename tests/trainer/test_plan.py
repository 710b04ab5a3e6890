"""A run as a plan and an executor (trainer/plan.py, trainer/executor.py): the plan reads
the resume point once and decides everything before the executor starts; the mode travels
as a value (the global context's mode is never touched by a run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework.train.checkpoint import CheckpointRead, read_train_state
from trainer.config import load_config
from trainer.distributed import Rank
from trainer.executor import execute
from trainer.plan import RunOptions, plan_run

from .test_recipes import MODEL

YAML = """\
name: plan
model: {class: tiny_model.py:Tiny}
dataset: {name: npz, root: data.npz, batch_size: 16, shuffle: false, resize: null, normalize: null}
train: {epochs: 1}
checkpoint: {save_steps: 0}
"""


@pytest.fixture
def experiment(workdir):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (96, 8, 8)).astype(np.uint8)
    y = (x[:, :4].mean((1, 2)) > x[:, 4:].mean((1, 2))).astype(np.int64)
    np.savez(workdir / "data.npz", x_train=x[:64], y_train=y[:64], x_test=x[64:], y_test=y[64:])
    (workdir / "tiny_model.py").write_text(MODEL)
    (workdir / "exp.yaml").write_text(YAML)
    return workdir / "exp.yaml"


def _options(**kw):
    return RunOptions(quiet=True, log=False, **kw)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_a_run_leaves_the_global_mode_alone(experiment, mode):
    other = ms.PYNATIVE_MODE if mode == "graph" else ms.GRAPH_MODE
    ms.set_context(mode=other)
    try:
        result = execute(plan_run(load_config(experiment, [f"mode={mode}"]), Rank(), _options()))
        after = ms.get_context("mode")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert after == other
    assert result.mode == mode and len(result.losses) == 4
    # the run's own mode decided: graph compiled, PyNative did not
    assert (result.compile_seconds is not None) == (mode == "graph")


def test_the_plan_reads_the_resume_point_once_and_the_run_uses_what_it_read(experiment):
    config = load_config(experiment, ["mode=pynative"])
    first = execute(plan_run(config, Rank(), _options()))
    more = load_config(experiment, ["mode=pynative", "train.epochs=2"])
    plan = plan_run(more, Rank(), _options(resume="last"))
    assert isinstance(plan.resume, CheckpointRead) and str(plan.resume.path) == first.checkpoint
    assert plan.resume.state.global_step == 4 and plan.nothing_to_train is None
    saved = read_train_state(first.checkpoint)
    plan.resume.path.unlink()  # the file is gone: the run resumes from what the plan read
    resumed = execute(plan)
    assert resumed.steps == [5, 6, 7, 8]
    fresh = execute(plan_run(more, Rank(), _options(checkpoint_dir="other")))
    np.testing.assert_allclose(resumed.losses, fresh.losses[4:], rtol=1e-6)  # exact continuation
    assert saved[1].global_step == 4


def test_a_plan_with_nothing_left_says_why_and_the_executor_trains_nothing(experiment):
    config = load_config(experiment, ["mode=pynative"])
    done = execute(plan_run(config, Rank(), _options()))
    plan = plan_run(config, Rank(), _options(resume=done.checkpoint))
    assert plan.nothing_to_train.startswith(f"nothing to train: {done.checkpoint} is already at epoch 1")
    result = execute(plan)
    assert result.steps == [] and result.nothing_to_train == plan.nothing_to_train


def test_resume_last_with_no_checkpoint_plans_a_fresh_start(experiment):
    plan = plan_run(load_config(experiment, []), Rank(), _options(resume="last"))
    assert plan.resume == "last" and plan.nothing_to_train is None


def test_ranks_other_than_0_run_quiet_and_unlogged(experiment):
    plan = plan_run(load_config(experiment, []), Rank(rank=1, size=2), RunOptions(quiet=False, log=True))
    assert plan.options.quiet and not plan.options.log and plan.ir_dir is None


def test_a_runs_start_removes_killed_writers_temporaries_in_every_run_folder(experiment):
    """A run killed mid-save and never resumed keeps its folder; the next run of the
    experiment (in a folder of its own) removes that folder's temporary of a dead writer,
    and leaves a live writer's and one it cannot judge (no writer named)."""
    import os
    import socket
    import subprocess
    import sys

    config = load_config(experiment, ["mode=pynative"])
    old = experiment.parent / config.checkpoint_dir / "20260101-000000-pynative"
    old.mkdir(parents=True)
    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True).stdout)
    host = socket.gethostname().replace(".", "-")
    dead = old / f".plan-1_2.ckpt.w{dead_pid}@{host}.k3j2h1x9.tmp"
    live = old / f".plan-1_4.ckpt.w{os.getppid()}@{host}.a8f7d6z0.tmp"
    unnamed = old / ".plan-1_3.ckpt.b9c8d7e6.tmp"
    for path in (dead, live, unnamed):
        path.write_bytes(b"half written")
    result = execute(plan_run(config, Rank(), _options()))
    assert result.checkpoint and old not in Path(result.checkpoint).parents
    assert not dead.exists() and live.exists() and unnamed.exists()
