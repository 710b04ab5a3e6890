"""After ``make run``: the commands it prints work as typed in a new shell, and a dataset
that is nowhere says where it was looked for and what to set, in one line (exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .cli_env import ROOT

VENV = Path(sys.executable).parent.parent
DATA = ROOT.parent / "shared" / "datasets"


def _clean_env(**extra: str) -> dict[str, str]:
    """A new shell's environment: no venv on PATH, no TRAIN_DATA_DIR, this checkout imported."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRAIN_DATA_DIR", "VIRTUAL_ENV", "MLFLOW_TRACKING_URI")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if Path(p).resolve() != (VENV / "bin").resolve())
    env["PYTHONPATH"] = str(ROOT)
    return {**env, **extra}


def _next_lines() -> list[str]:
    """The command lines ``make next`` prints (what ``make run`` ends with)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run([make, "--no-print-directory", "next", f"VENV={VENV}"], cwd=ROOT,
                          env=_clean_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line.strip() for line in done.stdout.splitlines() if line.startswith("  ")]


def test_make_run_ends_with_the_commands_to_type():
    lines = _next_lines()
    assert lines[0] == f". {VENV}/bin/activate"
    if DATA.is_dir():  # the Makefile found the data: the shell needs it too
        assert f"export TRAIN_DATA_DIR={DATA.resolve()}" in lines
    assert "train eval experiments/lenet.yaml" in lines
    assert all(len(line) + 2 <= 80 for line in lines)


@pytest.mark.slow
@pytest.mark.skipif(not (DATA / "mnist-10k").is_dir() or not (DATA / "tinyshakespeare").is_dir(),
                    reason="needs shared/datasets (mnist-10k, tinyshakespeare)")
def test_the_printed_commands_work_in_a_new_shell(tmp_path):
    lines = _next_lines()
    setup = [line for line in lines if not line.startswith("train ")]
    commands = [line for line in lines if line.startswith("train ")]
    (tmp_path / "experiments").symlink_to(ROOT / "experiments")
    # what `make run` trained, made short; the printed lines run as typed, the training
    # ones shortened by overrides appended (a run of seconds, not minutes)
    short = {"experiments/lenet.yaml": " dataset.limit=64 dataset.test_limit=64 checkpoint.save_steps=0",
             "experiments/gpt_shakespeare_smoke.yaml": " --mode pynative train.max_steps=8 "
                                                       "train.eval_every_steps=4 train.eval_batches=1"}
    script = [*setup, "train run experiments/lenet.yaml train.epochs=1" + short["experiments/lenet.yaml"]]
    for command in commands:
        if command == "train ui":
            script.append("train ui --help > /dev/null")
        elif command.startswith("train run"):
            script.append(command + next(v for k, v in short.items() if k in command))
        elif command.startswith("train sample"):
            script.append(command + " --tokens 20 --mode pynative")
        else:
            script.append(command)
    done = subprocess.run(["bash", "-c", "set -e\n" + "\n".join(script)], cwd=tmp_path,
                          env=_clean_env(XDG_CACHE_HOME=str(tmp_path / "cache")),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "eval/accuracy" in done.stdout


def _refused(experiment: str, tmp_path: Path) -> str:
    # nothing on disk and every mirror refused (a proxy that is not there): offline, always
    env = _clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"), https_proxy="http://127.0.0.1:9",
                     http_proxy="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
                     HTTP_PROXY="http://127.0.0.1:9")
    env.pop("no_proxy", None), env.pop("NO_PROXY", None)
    done = subprocess.run([str(VENV / "bin" / "train"), "run", str(ROOT / "experiments" / experiment)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "checkpoints").exists()  # no empty run folder left by the attempt
    (line,) = done.stderr.strip().splitlines()
    return line


@pytest.mark.slow
@pytest.mark.parametrize("experiment, folder", [
    ("gpt_shakespeare_smoke.yaml", "tinyshakespeare"), ("lstm_shakespeare_smoke.yaml", "tinyshakespeare"),
    ("lenet.yaml", "mnist"), ("lenet_fashion.yaml", "fashion-mnist"), ("resnet8_cifar10.yaml", "cifar10")])
def test_a_dataset_found_nowhere_names_the_places_and_the_fix(experiment, folder, tmp_path):
    line = _refused(experiment, tmp_path)
    assert "looked in: " in line and str(tmp_path / "cache" / "twinmode" / "datasets" / folder) in line
    assert "$TRAIN_DATA_DIR (not set)" in line
    assert "TRAIN_DATA_DIR/" in line or "set TRAIN_DATA_DIR to a folder containing " + folder in line
    if "download failed" in line:  # the reason the download failed, after where it looked
        assert line.index("looked in: ") < line.index("download failed")
