"""A language-model run SIGKILLed again and again across its evaluation intervals, resumed
each time with ``last`` (``train run --resume last``'s path), ends exactly as a run never
interrupted: weights, optimizer state, random generators, data position, every step's loss
and every metric in its MLflow record (one run, continued by each resume)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from framework.train.checkpoint import read_train_state

from .test_language_model import SHAKESPEARE, logged

SCRIPT = Path(__file__).with_name("lm_run_script.py")
SMOKE = Path(__file__).resolve().parents[2] / "experiments" / "gpt_shakespeare_smoke.yaml"
# 4 evaluation intervals of 10 steps, a checkpoint every 5, every step's loss and LR logged
SETTINGS = ("train.max_steps=40", "train.eval_every_steps=10", "train.eval_batches=2", "train.log_every=1",
            "checkpoint.save_steps=5", "checkpoint.keep_max=2", "mlflow.system_metrics=false",
            "mlflow.log_model=false")
# (--kill-at N: at the end of step N, before its checkpoint; --kill-before N: after step N-1's
# evaluation and checkpoint): mid-interval, just after an evaluation, at an interval's last step
KILLS = (("--kill-at", 7), ("--kill-before", 11), ("--kill-at", 20), ("--kill-at", 34))


def _overrides(tmp_path: Path, name: str, mode: str) -> tuple[str, ...]:
    return (*SETTINGS, f"mode={mode}", f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
            f"checkpoint.dir={tmp_path / name / 'checkpoints'}")


def _run(tmp_path: Path, name: str, mode: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(SMOKE), str(tmp_path / name),
                           *_overrides(tmp_path, name, mode), "--run-folders", "--log", *flags],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ), cwd=tmp_path)


def _losses(folder: Path) -> list[tuple[int, str]]:
    lines = (folder / "losses.txt").read_text().split()
    return list(zip(map(int, lines[::2]), lines[1::2]))


def _run_id(checkpoint: str) -> str:
    return read_train_state(checkpoint)[1].callbacks["mlflow"]["run_id"]


@pytest.mark.slow
@SHAKESPEARE
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_language_model_killed_four_times_ends_as_the_uninterrupted_run(tmp_path, monkeypatch, mode):
    import mlflow

    from trainer.config import load_config
    from trainer.experiment import run_experiment

    from .lm_run_script import Probe

    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "compiled"))  # the chain's hits
    monkeypatch.chdir(tmp_path)
    (tmp_path / "whole").mkdir()
    whole = run_experiment(load_config(SMOKE, list(_overrides(tmp_path, "whole", mode))), quiet=True,
                           callbacks=[Probe(tmp_path / "whole" / "losses.txt", -1, -1)])
    for i, (flag, step) in enumerate(KILLS):
        killed = _run(tmp_path, "chain", mode, flag, str(step), *(["--resume"] if i else []))
        assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = _run(tmp_path, "chain", mode, "--resume")
    assert resumed.returncode == 0, resumed.stderr

    reference = dict(_losses(tmp_path / "whole"))
    chain = _losses(tmp_path / "chain")
    assert {s for s, _ in chain} == set(range(1, 41)) and len(chain) > 40  # steps redone
    assert len(reference) == 40
    assert all(value == reference[step] for step, value in chain), "a step's loss differs"

    paths = [whole.checkpoint, resumed.stdout.split("checkpoint ")[-1].strip()]
    (a, state_a), (b, state_b) = (read_train_state(p) for p in paths)
    assert a.keys() == b.keys() and any("moment" in k or "exp_avg" in k for k in a)
    assert [k for k in a if a[k].tobytes() != b[k].tobytes()] == []  # weights, optimizer state
    assert state_b.rng == state_a.rng and state_b.data_state == state_a.data_state
    assert (state_b.global_step, state_b.loop) == (40, state_a.loop)

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ids = [_run_id(p) for p in paths]
    expected, got = logged(uri, ids[0]), logged(uri, ids[1])
    assert set(expected["val/loss"]) == {10, 20, 30, 40} and set(expected["train/loss"]) == set(range(1, 41))
    assert got == expected  # every logged figure, timings aside
    runs = mlflow.MlflowClient(uri).search_runs([mlflow.MlflowClient(uri).get_run(ids[1]).info.experiment_id])
    assert len(runs) == 2 and mlflow.MlflowClient(uri).get_run(ids[1]).info.status == "FINISHED"
