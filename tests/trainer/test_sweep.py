"""`train sweep` end to end on real data (tiny limits): parallel workers on one SQLite study,
nested MLflow runs and the parent's best, a sweep killed and run again, pruning, crashes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import load_config

from .cli_env import SMOKE, needs_data

TINY = ["mode=pynative", "dataset.limit=192", "dataset.test_limit=100", "train.epochs=1",
        "checkpoint.save_steps=0", "train.log_every=2"]


def sweep(*args: str):
    return CliRunner().invoke(app, ["sweep", str(SMOKE), *map(str, args)], catch_exceptions=False)


def only_study():
    import optuna

    storage = f"sqlite:///{Path.cwd() / 'sweeps.db'}"
    (summary,) = optuna.get_all_study_summaries(storage)
    return optuna.load_study(study_name=summary.study_name, storage=storage)


def runs():
    import mlflow

    mlflow.set_tracking_uri(f"sqlite:///{Path.cwd() / 'mlflow.db'}")
    found = mlflow.search_runs(experiment_names=["twinmode-smoke"])
    return found[found["tags.mlflow.parentRunId"].isna()], found[found["tags.mlflow.parentRunId"].notna()]


@needs_data
def test_four_trials_two_workers_nested_runs_and_best(workdir):
    grid = ["optimizer.learning_rate=0.05,0.01", "dataset.batch_size=32,16"]
    result = sweep(*grid, *TINY, "--workers", "2", "--best-out", "best.yaml")
    assert result.exit_code == 0, result.output
    assert "2 worker(s) x 1 thread(s)" in result.output and "best trial" in result.output

    from optuna.trial import TrialState

    trials = only_study().get_trials()
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 4
    assert sorted((t.params["optimizer.learning_rate"], t.params["dataset.batch_size"]) for t in trials) \
        == [(0.01, 16), (0.01, 32), (0.05, 16), (0.05, 32)]
    assert len({t.user_attrs["proc"] for t in trials}) == 2  # two worker processes shared the work

    parents, children = runs()
    assert len(parents) == 1 and len(children) == 4
    parent = parents.iloc[0]
    assert (children["tags.mlflow.parentRunId"] == parent["run_id"]).all()
    assert set(children["status"]) == {"FINISHED"} and parent["status"] == "FINISHED"
    # each child logged its trial's values, config and metrics; the trial value is its final accuracy
    by_run = {t.user_attrs["mlflow_run_id"]: t for t in trials}
    for _, child in children.iterrows():
        trial = by_run[child["run_id"]]
        assert float(child["params.optimizer.learning_rate"]) == trial.params["optimizer.learning_rate"]
        assert int(child["params.dataset.batch_size"]) == trial.params["dataset.batch_size"]
        assert child["metrics.eval/accuracy"] == pytest.approx(trial.value)
    best_value = children["metrics.eval/accuracy"].max()
    assert parent["metrics.best/eval/accuracy"] == pytest.approx(best_value)
    best_child = children[children["run_id"] == parent["tags.best_run_id"]].iloc[0]
    assert best_child["metrics.eval/accuracy"] == pytest.approx(best_value)
    for key in ("optimizer.learning_rate", "dataset.batch_size"):
        assert parent[f"params.best.{key}"] == best_child[f"params.{key}"] == parent[f"tags.best.{key}"]
    import mlflow

    artifacts = {a.path for a in mlflow.MlflowClient().list_artifacts(parent["run_id"])}
    assert {"trials.json", "trials.csv", "best.yaml", "optimization_history.png",
            "param_importances.png", "parallel_coordinate.png"} <= artifacts
    assert {"config.yaml"} <= {a.path for a in mlflow.MlflowClient().list_artifacts(best_child["run_id"])}
    # best.yaml is the best trial's whole config, and `train run` reads it
    best = by_run[best_child["run_id"]]
    expected = load_config(SMOKE, TINY + [f"{k}={v}" for k, v in best.params.items()])
    assert load_config(workdir / "best.yaml").to_dict() == expected.to_dict()
    run = CliRunner().invoke(app, ["run", str(workdir / "best.yaml"), "--print-config"])
    assert run.exit_code == 0 and f"learning_rate: {best.params['optimizer.learning_rate']}" in run.output


def _wait_for_study(db: Path, process: subprocess.Popen, log: Path):
    """The one study in ``db`` once the sweep ``process`` has created it. The database is
    read-only until its study exists (opening Optuna's storage on a half-created database
    would create tables beside the sweep's own); then one storage, opened once: a poll is one
    quick query, so the kill below lands where it should."""
    import sqlite3

    import optuna

    deadline = time.time() + 120
    while time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
        try:
            with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as read:
                if not read.execute("select count(*) from studies").fetchone()[0]:
                    continue
        except sqlite3.Error:  # not there yet, or still being created
            continue
        storage = optuna.storages.RDBStorage(f"sqlite:///{db}")
        (summary,) = optuna.get_all_study_summaries(storage)
        return optuna.load_study(study_name=summary.study_name, storage=storage)
    raise AssertionError(f"no study in {db} (sweep exit status {process.poll()}): {log.read_text()[-2000:]}")


def _still_runs(token: str) -> bool:
    """Whether the process a trial's ``proc`` token names runs (a zombie does not)."""
    _, pid, start = token.split(":")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in "ZX" and fields[19] == start


@needs_data
@pytest.mark.slow  # two `train sweep` processes (~30 s alone)
def test_killed_sweep_continues_to_the_requested_trials_without_duplicates(workdir):
    """SIGKILL after two trials; the same command again ends with all four grid points once.
    One grid point crashes (no batch fits): it fails with its error, counts, and is not retried."""
    from optuna.trial import TrialState

    # grid order: the slowest trial (batch 8) comes right after the two that complete first;
    # the kill lands as soon as it runs (the crash, batch 1000, is instant)
    args = [sys.executable, "-m", "trainer.cli", "sweep", str(SMOKE), "dataset.batch_size=32,16,8,1000",
            *TINY, "train.epochs=2"]
    log = workdir / "first.log"
    with log.open("w") as out:
        first = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    study = _wait_for_study(workdir / "sweeps.db", first, log)
    deadline = time.time() + 240
    while time.time() < deadline and first.poll() is None:
        running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if any(t.params.get("dataset.batch_size") == 8 for t in running):
            break
        time.sleep(0.02)
    assert first.poll() is None, f"the first sweep ended before its third trial ran: {log.read_text()}"
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    killed_at = time.time()
    # its worker dies with it (PR_SET_PDEATHSIG), so its running trial is the one to redo
    workers = {t.user_attrs["proc"] for t in study.get_trials(deepcopy=False) if "proc" in t.user_attrs}
    while time.time() < killed_at + 10 and any(map(_still_runs, workers)):
        time.sleep(0.05)
    assert not any(map(_still_runs, workers)), f"a worker outlived its killed sweep: {workers}"

    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    header = result.stdout.splitlines()[0]
    when = [(t.number, t.params, t.state.name,
             t.datetime_complete and t.datetime_complete.timestamp() - killed_at) for t in study.get_trials()]
    assert any(f"({n} done" in header for n in (2, 3)), (header, when)  # 2 complete (+ the crash, if ran)
    trials = only_study().get_trials()
    counted = [t for t in trials if t.state == TrialState.COMPLETE or "error" in t.user_attrs]
    assert sorted(t.params["dataset.batch_size"] for t in counted) == [8, 16, 32, 1000]
    crashed = [t for t in trials if "error" in t.user_attrs]
    assert [t.params["dataset.batch_size"] for t in crashed] == [1000]
    assert "no batches" in crashed[0].user_attrs["error"]
    others = [t for t in trials if t not in counted]  # only trials cut short by the kill
    assert all(t.state == TrialState.FAIL and "interrupted" in t.user_attrs for t in others)
    parents, children = runs()
    assert len(parents) == 1 and (children["tags.mlflow.parentRunId"] == parents.iloc[0]["run_id"]).all()
    assert parents.iloc[0]["tags.trials_counted"] == "4"


@needs_data
def test_median_pruner_stops_a_bad_trial_after_its_first_epoch(workdir):
    """Two good learning rates first, then one too small to learn: its epoch-1 loss is above the
    median of the others at epoch 1, so the pruner stops it there (today's metric name)."""
    result = sweep("optimizer.learning_rate=0.05,0.04,1e-9", *TINY, "train.epochs=2", "--metric",
                   "train_epoch_loss", "--pruner", "median(n_startup_trials=2)")
    assert result.exit_code == 0, result.output
    from optuna.trial import TrialState

    trials = only_study().get_trials()
    assert [t.state for t in trials] == [TrialState.COMPLETE, TrialState.COMPLETE, TrialState.PRUNED]
    assert list(trials[2].intermediate_values) == [1]
    assert trials[2].intermediate_values[1] > max(t.intermediate_values[1] for t in trials[:2])
    import mlflow

    client = mlflow.MlflowClient(f"sqlite:///{workdir / 'mlflow.db'}")
    epochs = {t.number: [m.value for m in client.get_metric_history(t.user_attrs["mlflow_run_id"], "epoch")]
              for t in trials}
    assert epochs == {0: [1, 2], 1: [1, 2], 2: [1]}
    pruned = client.get_run(trials[2].user_attrs["mlflow_run_id"]).data.metrics
    assert pruned["sweep/pruned"] == 1.0
