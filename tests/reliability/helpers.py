"""Running the project's scripts and the ``train`` CLI in subprocesses, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DATA = os.environ.get("TRAIN_DATA_DIR", "")


def _default_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible(args: list[str], **options) -> subprocess.Popen:
    """``subprocess.Popen`` of a child a test sends Ctrl-C to, with SIGINT at its default as a
    terminal's foreground job has it: a test run started in the background (``make test``
    from a non-interactive shell) inherits SIGINT ignored, and so would every child."""
    return subprocess.Popen(args, preexec_fn=_default_sigint, **options)  # noqa: PLW1509


def one_error(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command printed: exit 2, no traceback, one stderr line."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A child environment with its own compile cache, MLflow store and no colour codes."""
    return {**os.environ, "TWINMODE_CACHE_DIR": str(tmp_path / "compiled"), "PYTHONUNBUFFERED": "1",
            "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}", "NO_COLOR": "1",
            **extra}


def python(tmp_path: Path, script: str | Path, *args: str, timeout: float = 300,
           **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env(tmp_path, **extra),
                          capture_output=True, text=True, timeout=timeout)


def train(tmp_path: Path, *args: str, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess:
    """``train ARGS`` in ``tmp_path`` (checkpoints, mlflow.db and ir/ land there)."""
    return subprocess.run([sys.executable, "-m", "trainer.cli", *args], cwd=tmp_path,
                          env=env(tmp_path, **extra), capture_output=True, text=True, timeout=timeout)


def experiment(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


TINY = """\
name: tiny
seed: 0
mode: pynative
dataset:
  name: mnist-10k
  batch_size: 16
  limit: 96
  test_limit: 64
train:
  epochs: 2
  log_every: 2
checkpoint:
  save_steps: 2
  keep_max: 3
mlflow:
  experiment: reliability
"""


# a one-layer character GPT over corpus.txt next to the YAML: 4 steps, one evaluation
TINY_LM = """\
name: lm
task: language_model
seed: 0
mode: pynative
model:
  name: gpt
  args: {n_layer: 1, n_head: 2, n_embd: 16}
dataset:
  name: text
  root: corpus.txt
  block_size: 8
  batch_size: 4
optimizer:
  name: adamw
  learning_rate: 0.01
train:
  max_steps: 4
  eval_every_steps: 4
  eval_batches: 2
checkpoint:
  save_steps: 0
"""
