"""Issue 27, item 1: MLflow's runs table tells runs apart and shows what matters. Runs of
one file get distinct names (``<name>-<mode>-<id>``; a chosen ``mlflow.run_name`` is
kept), the tags ``mode``/``model``/``dataset``/``task`` to show and group by, the YAML as
Source, and the experiment a saved view (MLflow 3's saved views) whose columns are the key
metrics. Real runs into a SQLite store in a temporary folder."""

from __future__ import annotations

import json
import sys

import pytest

from .cli_env import SMOKE, needs_data
from .test_cli import invoke, search, uri

SMALL = ["--quiet", "--mode", "pynative", "dataset.limit=64", "dataset.test_limit=64", "train.epochs=1",
         "checkpoint.save_steps=0", "mlflow.system_metrics=false", "mlflow.log_model=false"]


def client():
    import mlflow

    return mlflow.MlflowClient(uri())


@needs_data
def test_runs_of_one_file_have_distinct_names_tags_to_group_by_and_the_yaml_as_source(workdir):
    for extra in ([], [], ["mlflow.run_name=my-baseline"]):
        result = invoke("run", SMOKE, *SMALL, *extra)
        assert result.exit_code == 0, result.output
    runs = search().sort_values("start_time")
    names = runs["tags.mlflow.runName"].tolist()
    default = "smoke-pynative-limit64-test_limit64-ep1"  # what differs from the file
    for name, run_id in zip(names[:2], runs["run_id"][:2]):
        assert name == f"{default}-{run_id[:8]}"  # its id starts the same: runs:/<id>/<name>
    assert names[2] == "my-baseline"  # the user's name, as given
    assert (runs["params.mlflow.run_name"][:2] == default).all()  # without the id: reusable
    for column, value in (("mode", "pynative"), ("model", "lenet5"), ("dataset", "mnist-10k"),
                          ("task", "classification")):
        assert (runs[f"tags.{column}"] == value).all(), column
    assert (runs["tags.mlflow.source.name"] == str(SMOKE.resolve())).all()


@needs_data
def test_the_experiment_gets_a_saved_view_of_the_key_metrics_and_keeps_an_edited_one(workdir):
    first = invoke("run", SMOKE, *SMALL)
    assert first.exit_code == 0, first.output
    c = client()
    experiment = c.get_experiment_by_name("twinmode-smoke")
    # MLflow keeps the table's columns per browser: the summary gives the link opening the view
    assert (f"  runs:       http://127.0.0.1:5000/#/experiments/{experiment.experiment_id}/runs"
            "?viewStateShareKey=twinmode  (metrics as columns)") in first.output
    envelope = json.loads(experiment.tags["mlflow.sharedViewState.twinmode"])
    assert envelope["name"] == "twinmode: key metrics" and isinstance(envelope["createdAt"], int)
    state = json.loads(envelope["state"])
    assert state["selectedColumns"] == [
        "attributes.`Source`", "attributes.`Models`", "metrics.`eval/accuracy`", "metrics.`val/loss`",
        "metrics.`perf/ms_per_step`", "tags.`mode`", "tags.`precision`", "tags.`task`", "tags.`model`",
        "tags.`dataset`"]
    # every column of the view is one this run has (the UI shows it filled)
    run = c.get_run(search().iloc[0]["run_id"])
    assert {"eval/accuracy", "perf/ms_per_step"} <= set(run.data.metrics)
    assert {"mode", "precision", "task", "model", "dataset"} <= set(run.data.tags)
    edited = json.dumps({**envelope, "name": "mine", "updatedAt": envelope["createdAt"] + 1})
    c.set_experiment_tag(experiment.experiment_id, "mlflow.sharedViewState.twinmode", edited)
    assert invoke("run", SMOKE, *SMALL).exit_code == 0
    tags = c.get_experiment(experiment.experiment_id).tags
    assert tags["mlflow.sharedViewState.twinmode"] == edited  # the user's edit stands
    from trainer.mlflow_logger import MLflowRun
    from trainer.tracking import view_url

    opened = MLflowRun(uri(), "twinmode-smoke", "r")
    assert view_url(opened) == (f"http://127.0.0.1:5000/#/experiments/{experiment.experiment_id}/runs"
                                "?viewStateShareKey=twinmode")  # the page that opens it
    opened.end()


def test_a_process_started_with_python_c_records_no_internal_command(monkeypatch):
    from trainer.mlflow_record import source_tags

    monkeypatch.setattr(sys, "argv", ["-c", '{"file": "exp.yaml", "study": "s"}'])
    tags = source_tags(None, "abc")
    assert "command" not in tags and "mlflow.source.name" not in tags  # not "-c" and its JSON
    assert source_tags("/x/exp.yaml", "abc")["mlflow.source.name"] == "/x/exp.yaml"
    monkeypatch.setattr(sys, "argv", ["/venv/bin/train", "run", "exp.yaml"])
    assert source_tags(None, "abc")["command"] == "train run exp.yaml"


@pytest.mark.parametrize("uri_, expected", [("http://tracking:5005/", "http://tracking:5005"),
                                            ("https://mlflow.example.com", "https://mlflow.example.com")])
def test_a_runs_link_names_a_tracking_servers_own_address(uri_, expected):
    from trainer.ui import ui_base_url

    assert ui_base_url(uri_) == expected


def test_an_offline_run_keeps_its_distinct_name_through_sync(tmp_path, monkeypatch):
    import re

    from trainer.mlflow_logger import MLflowRun
    from trainer.offline_sync import sync_offline

    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    with pytest.warns(UserWarning, match="unreachable"):
        run = MLflowRun("http://127.0.0.1:9", "offline-exp", "smoke-graph", offline_dir=tmp_path / "off",
                        unique_name=True)
    run.log_metric("train/loss", 1.0, 1)
    run.end()
    assert re.fullmatch(r"smoke-graph-[0-9a-f]{8}", run.run_name)
    store = f"sqlite:///{tmp_path / 'store.db'}"
    assert sync_offline(tmp_path / "off", store).runs == 1
    import mlflow

    c = mlflow.MlflowClient(store)
    [synced] = c.search_runs([c.get_experiment_by_name("offline-exp").experiment_id])
    assert synced.info.run_name == run.run_name
