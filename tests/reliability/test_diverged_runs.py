"""Issue 28, item 3: a diverged run fails whatever the verbosity.

Before the fix ``--quiet`` dropped LossMonitor and with it the NaN/Inf check: a run at
learning rate 1e6 exited 0 with ``test loss nan``, saved the NaN weights as its final
checkpoint and logged them as the MLflow model; sweep trials run quiet, so a diverged
trial was COMPLETE.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .helpers import DATA, TINY, experiment, train

needs_data = pytest.mark.skipif(not DATA, reason="TRAIN_DATA_DIR is not set")
DIVERGE = "optimizer.learning_rate=1e6"  # lenet5 on MNIST: loss 3e21 at step 2, nan at step 3


def _errors(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("error:")]


@needs_data
@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "verbose"])
def test_a_diverging_run_fails_with_one_line_and_writes_no_model(tmp_path: Path, quiet: bool) -> None:
    file = experiment(tmp_path, TINY)
    done = train(tmp_path, "run", str(file), DIVERGE, "checkpoint.save_steps=0",
                 *(["--quiet"] if quiet else []))
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = _errors(done.stderr)
    assert line.startswith("error: training failed: InvalidLossError: loss is nan at epoch 1, step 3 ")
    assert "test loss nan" not in done.stdout
    assert not list((tmp_path / "checkpoints").rglob("*.ckpt"))  # no final checkpoint of NaN weights
    with sqlite3.connect(tmp_path / "mlflow.db") as db:
        ((status,),) = db.execute("SELECT status FROM runs").fetchall()
    assert status == "FAILED"
    assert not list(tmp_path.glob("mlruns/*/*/artifacts/model")) and not list(
        tmp_path.glob("mlruns/*/models/*"))


@needs_data
def test_a_diverging_sweep_trial_fails_with_its_reason(tmp_path: Path) -> None:
    import optuna
    from optuna.trial import TrialState

    file = experiment(tmp_path, TINY)
    done = train(tmp_path, "sweep", str(file), "optimizer.learning_rate=1e6,0.01", "train.epochs=1",
                 "checkpoint.save_steps=0", "mlflow.log_model=false", timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    storage = f"sqlite:///{tmp_path / 'sweeps.db'}"
    (summary,) = optuna.get_all_study_summaries(storage)
    trials = optuna.load_study(study_name=summary.study_name, storage=storage).get_trials()
    by_lr = {t.params["optimizer.learning_rate"]: t for t in trials}
    assert set(by_lr) == {1e6, 0.01}
    assert by_lr[1e6].state == TrialState.FAIL
    assert by_lr[1e6].user_attrs["error"].startswith("InvalidLossError: loss is nan at epoch 1, step 3 ")
    assert by_lr[0.01].state == TrialState.COMPLETE
    assert "failed: InvalidLossError: loss is nan" in done.stderr
