"""`train init`: the written experiment.yaml + model.py pair runs as written (two commands),
in both modes; existing files are kept unless --force."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import load_config

from .cli_env import needs_data


def cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_init_writes_a_pair_that_loads(workdir):
    code, output = cli("init", "mynet")
    assert code == 0 and "next: train run mynet/experiment.yaml" in output
    config = load_config(workdir / "mynet" / "experiment.yaml")
    assert config.name == "mynet" and config.model.class_.endswith("mynet/model.py:MyNet")
    assert config.model.args == {"num_classes": 10, "channels": 16, "image_size": 32}
    path = workdir / "mynet" / "experiment.yaml"  # the commented recipe lines are valid too
    text = path.read_text()
    for key in ("schedule", "clip_grad_norm", "early_stopping", "keep_best"):
        text = text.replace(f"  # {key}:", f"  {key}:")
    path.write_text(text)
    config = load_config(path)
    assert config.optimizer.schedule.name == "cosine" and config.checkpoint.keep_best
    assert config.train.early_stopping.monitor == "eval_accuracy"


@needs_data
def test_written_pair_runs_as_written(workdir):
    assert cli("init", "mynet")[0] == 0
    code, output = cli("run", "mynet/experiment.yaml", "dataset.name=mnist-10k", "dataset.limit=96",
                       "dataset.test_limit=64", "train.epochs=1", "mlflow.log_model=false", "--quiet")
    assert code == 0, output
    assert "mynet [graph]: eval/accuracy" in output


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_written_model_trains_on_own_arrays_in_both_modes(workdir, mode):
    assert cli("init", ".")[0] == 0
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (80, 28, 28)).astype(np.uint8)
    y = (x[:, :14].mean((1, 2)) > x[:, 14:].mean((1, 2))).astype(np.int64)
    np.savez(workdir / "data.npz", x_train=x[:64], y_train=y[:64], x_test=x[64:], y_test=y[64:])
    code, output = cli("run", "experiment.yaml", "--mode", mode, "dataset={name: npz, root: data.npz}",
                       "model.args.num_classes=2", "train.epochs=1", "mlflow.log_model=false", "--quiet")
    assert code == 0, output
    assert f"{workdir.name} [{mode}]: eval/accuracy" in output


def test_existing_files_are_kept_unless_force(workdir):
    (workdir / "model.py").write_text("# mine\n")
    code, output = cli("init", ".")
    assert code == 2 and "model.py already exist(s)" in output
    assert (workdir / "model.py").read_text() == "# mine\n"
    assert not (workdir / "experiment.yaml").exists()  # nothing half-written
    code, _ = cli("init", ".", "--force")
    assert code == 0 and "class MyNet" in (workdir / "model.py").read_text()
    (workdir / "afile").write_text("x")
    code, output = cli("init", "afile")
    assert code == 2 and "is a file" in output
