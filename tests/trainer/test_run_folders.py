"""Checkpoints findable (trainer/run_folders.py): a folder per run, ``last`` meaning the newest
checkpoint of *this* config, a checkpoint of another config refused with the keys that
differ, ``train eval --checkpoint last|best``, the best score in the summary."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from trainer.cli import app
from trainer.run_folders import identity, new_run_folder

from .cli_env import SMOKE, needs_data

TINY = ["--mode", "pynative", "dataset.limit=96", "dataset.test_limit=64", "train.epochs=1",
        "checkpoint.save_steps=0", "mlflow.log_model=false", "mlflow.system_metrics=false"]


def train(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def folders(workdir: Path) -> list[Path]:
    return sorted(p for p in (workdir / "checkpoints" / "smoke").iterdir() if p.is_dir())


def test_identity_leaves_out_what_a_resume_may_change():
    config = {"train": {"epochs": 3, "log_every": 5, "batch": 1}, "mode": "graph", "seed": 0,
              "optimizer": {"learning_rate": 0.1}, "checkpoint": {"dir": "x"}, "mlflow": {"uri": "y"}}
    assert identity(config) == {"train.batch": 1, "seed": 0, "optimizer.learning_rate": 0.1}


def test_run_folders_are_named_by_time_and_mode_and_never_shared(tmp_path):
    first = new_run_folder(tmp_path, "graph", now=0.0)
    first.mkdir()
    second = new_run_folder(tmp_path, "graph", now=0.0)
    assert first.name.endswith("-graph") and second.name == first.name + "-2"


@needs_data
def test_each_run_has_its_folder_and_last_is_this_configs(workdir):
    assert train("run", SMOKE, *TINY, "optimizer.learning_rate=0.05").exit_code == 0
    (a,) = folders(workdir)
    assert [p.name for p in a.glob("*.ckpt")] == ["smoke-1_3.ckpt"]  # the run's own prefix, no smoke_1
    assert train("run", SMOKE, *TINY, "optimizer.learning_rate=0.01").exit_code == 0
    assert len(folders(workdir)) == 2
    # resuming the first config takes its run (not the newer one) and goes on in its folder
    done = train("run", SMOKE, *TINY, "optimizer.learning_rate=0.05", "train.epochs=2", "--resume", "last")
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in a.glob("*.ckpt")) == ["smoke-1_3.ckpt", "smoke-2_3.ckpt"]
    assert len(folders(workdir)) == 2
    # a config no run has: refused, naming the newest checkpoint and what differs
    refused = train("run", SMOKE, *TINY, "optimizer.learning_rate=0.2", "--resume", "last")
    assert refused.exit_code == 2
    assert "no checkpoint of this config" in refused.output
    assert "optimizer.learning_rate: 0.05 -> 0.2" in refused.output
    assert len(refused.output.strip().splitlines()) == 1


@needs_data
def test_eval_last_and_best(workdir):
    assert train("run", SMOKE, *TINY).exit_code == 0
    last = train("eval", SMOKE, *TINY[2:], "--checkpoint", "last")
    assert last.exit_code == 0 and last.output.startswith("eval/accuracy "), last.output
    best = train("eval", SMOKE, *TINY[2:], "--checkpoint", "best")
    assert best.exit_code == 2 and "kept no best checkpoint; set checkpoint.keep_best" in best.output
    kept = train("run", SMOKE, *TINY, "train.epochs=2", "checkpoint.keep_best=eval/accuracy")
    assert kept.exit_code == 0
    line = next(x for x in kept.output.splitlines() if x.startswith("  best:"))
    assert line.endswith(")") and "smoke-best.ckpt (eval/accuracy 0." in line and " at epoch " in line
    best = train("eval", SMOKE, *TINY[2:], "train.epochs=2", "checkpoint.keep_best=eval/accuracy",
                 "--checkpoint", "best")
    assert best.exit_code == 0 and best.output.startswith("eval/accuracy "), best.output


@needs_data
def test_export_takes_last(workdir):
    assert train("run", SMOKE, *TINY).exit_code == 0
    done = train("export", SMOKE, *TINY[2:], "--checkpoint", "last")
    assert done.exit_code == 0, done.output
    (folder,) = folders(workdir)
    assert (folder / "smoke-1_3.onnx").is_file()
    assert f"wrote {folder.relative_to(workdir) / 'smoke-1_3.onnx'}" in done.output
