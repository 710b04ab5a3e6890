"""A run stopped by Ctrl-C says how to continue in the terms of its user: the ``train run``
command with ``--resume last``, which then resumes (and says from where). A first run in a
fresh folder prints no MLflow database notes."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import pytest

from .cli_env import ROOT, SMOKE, needs_data

ARGS = ["--mode", "pynative", "dataset.limit=960", "dataset.test_limit=64", "train.epochs=1",
        "train.log_every=2", "mlflow.log_model=false", "mlflow.system_metrics=false"]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MLFLOW_TRACKING_URI", None)
    return env


@pytest.mark.slow
@needs_data
def test_ctrl_c_says_the_command_that_resumes_and_it_does(tmp_path):
    train = [sys.executable, "-m", "trainer.cli"]
    run = subprocess.Popen([*train, "run", str(SMOKE), *ARGS], cwd=tmp_path, env=_env(), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    err: list[str] = []
    threading.Thread(target=lambda: err.extend(run.stderr), daemon=True).start()
    try:
        for line in run.stdout:  # Ctrl-C once it trains
            if line.startswith("epoch 1 step 2/"):
                os.kill(run.pid, signal.SIGINT)
                break
        run.stdout.read()
        assert run.wait(timeout=120) == 130
    finally:
        if run.poll() is None:
            run.kill()
    time.sleep(0.2)
    text = "".join(err)
    assert "INFO mlflow" not in text, text  # a first run: the store was created here
    (line,) = [x for x in text.splitlines() if x.startswith("training interrupted")]
    assert "resume_from=" not in line
    command = line.split("; continue with ", 1)[1]
    assert command == shlex.join(["train", "run", str(SMOKE), *ARGS[2:], "--mode", "pynative",
                                  "--resume", "last"])
    again = subprocess.run([*train, *shlex.split(command)[1:]], cwd=tmp_path, env=_env(),
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "resuming from checkpoints/smoke/" in again.stdout and "warning" not in again.stderr
