"""Item 6: MLflow under concurrency, and offline runs imported with ``train sync-offline``.

Before the fix concurrent first runs on a fresh SQLite store raced on the schema
(``duplicate column name: step``) and lost runs; offline runs of the same name in the same
second shared one file whose records had no run id, and nothing imported them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from trainer.mlflow_logger import MLflowRun
from trainer.offline_sync import sync_offline

from .helpers import HERE, ROOT, env, train

N = 4


@pytest.mark.slow
def test_concurrent_first_runs_on_a_fresh_sqlite_store_are_all_recorded(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'fresh.db'}"
    children = [subprocess.Popen([sys.executable, str(HERE / "mlflow_script.py"), uri, str(i)], cwd=ROOT,
                                 env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for i in range(N)]
    outputs = [child.communicate(timeout=180) for child in children]
    assert [child.returncode for child in children] == [0] * N, [err[-500:] for _, err in outputs]
    client = MlflowClient(tracking_uri=uri)
    runs = client.search_runs([client.get_experiment_by_name("race").experiment_id])
    assert sorted(r.data.params["who"] for r in runs) == [str(i) for i in range(N)]


UNREACHABLE = "http://127.0.0.1:9"  # nothing listens there


def _offline_run(folder: Path, value: float) -> MLflowRun:
    run = MLflowRun(UNREACHABLE, "offline-exp", "same-name", offline_dir=folder)
    assert not run.online
    run.log_params({"value": value})
    run.set_tags({"mode": "pynative"})
    for step in range(1, 4):
        run.log_metric("train_loss", value * step, step)
    run.log_text("name: x\n", "config.yaml")
    run.end("FINISHED")
    return run


def test_offline_runs_get_their_own_files_and_sync_into_the_store(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    folder = tmp_path / "mlruns-offline"
    with pytest.warns(UserWarning, match="unreachable"):
        runs = [_offline_run(folder, 1.0), _offline_run(folder, 2.0)]  # same name, same second
    files = sorted(folder.glob("*.jsonl"))
    assert len(files) == 2
    for run, path in zip(runs, sorted(files, key=lambda p: [r.offline_path for r in runs].index(p))):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert {r["run_id"] for r in records} == {run.offline_id}

    uri = f"sqlite:///{tmp_path / 'store.db'}"
    report = sync_offline(folder, uri)
    assert (report.files, report.runs, report.metrics) == (2, 2, 6)
    client = MlflowClient(tracking_uri=uri)
    imported = client.search_runs([client.get_experiment_by_name("offline-exp").experiment_id])
    assert sorted(float(r.data.params["value"]) for r in imported) == [1.0, 2.0]
    for run in imported:
        value = float(run.data.params["value"])
        history = client.get_metric_history(run.info.run_id, "train_loss")
        assert sorted((m.step, m.value) for m in history) == [(s, value * s) for s in range(1, 4)]
        assert run.info.status == "FINISHED" and run.info.run_name == "same-name"
    assert not list(folder.glob("*.jsonl")) and len(list(folder.glob("*.synced"))) == 2
    assert sync_offline(folder, uri).runs == 0  # nothing imported twice


def test_cli_sync_offline(tmp_path: Path) -> None:
    folder = tmp_path / "mlruns-offline"
    folder.mkdir()
    record = {"run_id": "offline-1", "run_name": "cli", "experiment": "cli-exp", "parent_run_id": None,
              "kind": "metrics", "time": 0, "data": [["loss", 0.5, 1000, 7]]}
    (folder / "cli.jsonl").write_text(json.dumps(record) + "\n" + '{"kind": "end", "da')  # cut short
    done = train(tmp_path, "sync-offline")
    assert done.returncode == 0, done.stderr
    assert "imported 1 run(s) with 1 metric values from 1 file(s)" in done.stdout
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("cli-exp").experiment_id])
    assert [(m.step, m.value) for m in client.get_metric_history(run.info.run_id, "loss")] == [(7, 0.5)]
    missing = train(tmp_path, "sync-offline", "nowhere")
    assert missing.returncode == 2 and "nowhere: no such folder" in missing.stderr
