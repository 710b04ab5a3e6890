"""Which checkpoint ``train eval|sample|export`` take, and that every command says which
one it used: ``last`` is the newest checkpoint of the same network, data and tokenizer,
whatever the evaluation cadence, logging, run length, checkpoint or MLflow settings; a
resume says where it resumes from and warns of nothing when the run is only longer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .cli_env import ROOT

GPT = ROOT / "experiments" / "gpt_shakespeare_smoke.yaml"
QUIET = ["mlflow.log_model=false", "mlflow.system_metrics=false"]


def train(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MLFLOW_TRACKING_URI", None)
    return subprocess.run([sys.executable, "-m", "trainer.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def _text(folder: Path) -> Path:
    """A small corpus: its validation split is evaluated whole in a second."""
    words = "the king and the queen walk to the castle where a fool sings of rain".split()
    lines = [" ".join(words[(i * 7 + j) % len(words)] for j in range(9)) for i in range(300)]
    path = folder / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_weights_identity_keeps_the_network_data_and_tokenizer_alone():
    from trainer.run_folders import identity, weights_identity

    config = {"task": "language_model", "model": {"name": "gpt", "args": {"n_layer": 1}},
              "dataset": {"name": "text", "root": "a.txt", "block_size": 16, "batch_size": 8,
                          "tokenizer": "char", "limit": 5},
              "optimizer": {"learning_rate": 0.1},
              "train": {"max_steps": 60, "eval_every_steps": 30, "eval_batches": 4, "log_every": 10},
              "checkpoint": {"save_steps": 30}, "mlflow": {"experiment": "x"}, "seed": 3}
    assert weights_identity(config) == {
        "task": "language_model", "model.name": "gpt", "model.args.n_layer": 1, "dataset.name": "text",
        "dataset.root": "a.txt", "dataset.block_size": 16, "dataset.tokenizer": "char"}
    # a resume may also change on how much it evaluates (not what it trains)
    assert not {"train.eval_batches", "train.max_steps", "train.log_every"} & set(identity(config))
    assert "train.eval_every_steps" in identity(config)  # a language model's epochs


@pytest.mark.slow
def test_sample_eval_export_take_the_newest_weights_and_say_which(tmp_path):
    corpus = _text(tmp_path)
    data = [f"dataset.root={corpus}", "dataset.name=text"]
    run = train(tmp_path, "run", GPT, "--mode", "pynative", *data, *QUIET, "train.max_steps=8",
                "train.eval_every_steps=4", "train.eval_batches=1", "train.log_every=2",
                "optimizer.learning_rate=0.01", "checkpoint.keep_max=1")
    assert run.returncode == 0, run.stderr
    (ckpt,) = (tmp_path / "checkpoints" / "gpt-shakespeare-smoke").glob("*/*.ckpt")
    logged = re.search(r"step 8: val/loss (\d\.\d{4})", run.stdout)
    assert logged, run.stdout
    used = f"checkpoint: {ckpt.relative_to(tmp_path)} (step 8, val/loss {logged.group(1)})"
    # the file's own cadence, logging, length, learning rate: none of them matter here
    sample = train(tmp_path, "sample", GPT, *data, "--tokens", "5", "--mode", "pynative")
    assert sample.returncode == 0, sample.stderr
    assert sample.stderr.strip() == used  # the text alone on stdout
    evaluated = train(tmp_path, "eval", GPT, *data, "--mode", "pynative", "train.eval_every_steps=10")
    assert evaluated.returncode == 0, evaluated.stderr
    assert evaluated.stdout.splitlines()[0].startswith("val/loss ")
    assert evaluated.stdout.splitlines()[1] == "  " + used
    exported = train(tmp_path, "export", GPT, *data)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.splitlines()[-1] == "  " + used
    # another network is refused, naming what differs
    other = train(tmp_path, "sample", GPT, *data, "model.args.n_embd=16")
    assert other.returncode == 2
    assert "no checkpoint of this model and data" in other.stderr
    assert "model.args.n_embd: 32 -> 16" in other.stderr


@pytest.mark.slow
def test_a_longer_resume_says_where_it_resumes_and_warns_of_nothing(tmp_path):
    corpus = _text(tmp_path)
    common = ["--mode", "pynative", f"dataset.root={corpus}", "dataset.name=text", *QUIET,
              "train.eval_every_steps=4", "train.eval_batches=1"]
    assert train(tmp_path, "run", GPT, *common, "train.max_steps=8").returncode == 0
    (ckpt,) = (tmp_path / "checkpoints" / "gpt-shakespeare-smoke").glob("*/*-step-8.ckpt")
    resumed = train(tmp_path, "run", GPT, *common, "train.max_steps=12", "train.eval_batches=2",
                    "train.log_every=3", "--resume", "last")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming from {ckpt.relative_to(tmp_path)} (step 8, val/loss " in resumed.stdout
    assert "warning" not in resumed.stderr, resumed.stderr
