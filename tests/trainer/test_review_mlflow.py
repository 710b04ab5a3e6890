"""What a run records in MLflow, read back from a real SQLite store in a temporary folder:
the experiment kind, exactly this run's checkpoints, prefixed metrics with one definition
each, the resolved config and the data read, system metrics, resume into the same run."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

from .cli_env import SMOKE, needs_data
from .test_cli import invoke, search, uri

SMALL = ["dataset.limit=320", "dataset.test_limit=200", "train.log_every=2", "train.epochs=2",
         "checkpoint.save_steps=4", "checkpoint.keep_max=2", "mlflow.log_model=false"]


def client():
    import mlflow

    return mlflow.MlflowClient(uri())


@pytest.fixture
def fast_system_metrics(monkeypatch):
    monkeypatch.setenv("MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL", "0.2")


@needs_data
def test_run_record(workdir, fast_system_metrics):  # noqa: F811
    # other files in the same checkpoint folder: another run's and compare's
    folder = workdir / "checkpoints" / "smoke"
    (folder / "compare-graph").mkdir(parents=True)
    (folder / "compare-graph" / "smoke-1_10.ckpt").write_bytes(b"not ours")
    (folder / "other-1_4.ckpt").write_bytes(b"not ours")
    result = invoke("run", SMOKE, "--mode", "pynative", "dataset.name=mnist", *SMALL)
    assert result.exit_code == 0, result.output
    run = search().iloc[0]
    c = client()
    # 1. the experiment opens on MLflow's model-training views
    experiment = c.get_experiment_by_name("twinmode-smoke")
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"
    # 2. exactly this run's checkpoints, the final one included
    logged = {a.path for a in c.list_artifacts(run["run_id"], "checkpoints")}
    (own,) = [p for p in folder.iterdir() if p.is_dir() and p.name != "compare-graph"]  # the run's folder
    on_disk = {f"checkpoints/{p.name}" for p in own.glob("smoke-*.ckpt")}
    assert logged == on_disk and "checkpoints/smoke-2_10.ckpt" in logged  # 2 epochs x 10 steps
    # 3. prefixed metrics, one definition each: train/loss is the loss the step lines printed
    names = set(c.get_run(run["run_id"]).data.metrics)
    assert {"train/loss", "train/accuracy", "eval/accuracy", "eval/loss", "perf/ms_per_step",
            "perf/samples_per_second", "lr", "epoch"} <= names
    assert not names & {"train_loss", "train_epoch_loss", "train_eval_loss", "samples_per_second"}
    printed = {(int(e), int(s)): float(v) for e, s, v in
               re.findall(r"epoch (\d+) step (\d+)/\d+: train/loss ([\d.]+)", result.output)}
    history = c.get_metric_history(run["run_id"], "train/loss")
    assert len(history) == len(printed) == 10
    for m in history:
        epoch, step = (m.step - 1) // 10 + 1, (m.step - 1) % 10 + 1
        assert m.value == pytest.approx(printed[(epoch, step)], abs=5e-5)  # printed with 4 decimals
    assert [m.value for m in c.get_metric_history(run["run_id"], "lr")] == pytest.approx([0.05] * 10)
    speed = c.get_metric_history(run["run_id"], "perf/samples_per_second")
    per_step = c.get_metric_history(run["run_id"], "perf/ms_per_step")
    epoch_s = c.get_metric_history(run["run_id"], "perf/epoch_seconds")
    assert [m.step for m in speed] == [10, 20]  # once per epoch, not again at the end
    for s, ms, e in zip(speed, per_step, epoch_s):
        assert s.value == pytest.approx(32 / ms.value * 1000, rel=1e-6)  # one definition
        assert 10 * ms.value / 1000 <= e.value  # wall clock: the steps fit in the epoch's time
    # 4. what was actually used: resolved config, the data read, the source
    params = c.get_run(run["run_id"]).data.params
    assert params["dataset.name"] == "mnist-10k"  # mnist fell back to mnist-10k
    # the config's folder (a param alike in every run of it), the run's own in a tag
    assert params["checkpoint.dir"] == str(folder.resolve())
    tags = c.get_run(run["run_id"]).data.tags
    assert tags["checkpoint_folder"] == str(own.resolve())
    # the run is named by what differs from the file (mnist asked; limits), its id's start last
    name = "smoke-pynative-mnist-limit320-test_limit200"
    assert params["mlflow.tracking_uri"] == uri() and params["mlflow.run_name"] == name
    assert run["tags.mlflow.runName"] == f"{name}-{run['run_id'][:8]}"
    assert tags["dataset"] == params["dataset.name"]  # the tag says what was read, as the param
    assert "None" not in {params["ir.dir"], params["dataset.root"]}
    inputs = c.get_run(run["run_id"]).inputs.dataset_inputs
    by_context = {i.tags[0].value: i.dataset for i in inputs}
    train = by_context["training"]
    assert train.name == "mnist-10k-train" and json.loads(train.profile)["num_samples"] == 320
    digest = hashlib.sha256()
    for path in (params["data.train.images"], params["data.train.labels"]):
        digest.update(Path(path).read_bytes())
    assert train.digest == digest.hexdigest()[:16]
    assert json.loads(by_context["testing"].profile)["num_samples"] == 200
    tags = c.get_run(run["run_id"]).data.tags
    assert tags["mlflow.source.type"] == "LOCAL" and tags["mlflow.source.git.commit"]
    assert tags["mlflow.source.name"] == str(SMOKE.resolve())
    config_yaml = c.download_artifacts(run["run_id"], "config.yaml", str(workdir))
    resolved = yaml.safe_load(Path(config_yaml).read_text())
    assert resolved["checkpoint"]["dir"] == params["checkpoint.dir"] and resolved["ir"]["dir"]
    assert resolved["mlflow"]["tracking_uri"] == uri() and resolved["dataset"]["name"] == "mnist-10k"
    # 5. system metrics from MLflow's monitor
    assert any(name.startswith("system/cpu_utilization") for name in names), sorted(names)


@needs_data
def test_resume_continues_the_same_run_and_system_metrics_can_be_off(workdir):  # noqa: F811
    base = [*SMALL[:-3], "checkpoint.save_steps=4", "mlflow.log_model=false",
            "mlflow.system_metrics=false"]
    assert invoke("run", SMOKE, "--quiet", "--mode", "pynative", *base, "train.epochs=1").exit_code == 0
    result = invoke("run", SMOKE, "--quiet", "--mode", "pynative", "--resume", "last", *base,
                    "train.epochs=2")
    assert result.exit_code == 0, result.output
    runs = search()
    assert len(runs) == 1  # no second, empty run
    run = runs.iloc[0]
    assert run["status"] == "FINISHED" and "from " in run["tags.resumes"]
    c = client()
    assert [int(m.value) for m in c.get_metric_history(run["run_id"], "epoch")] == [1, 2]
    steps = [m.step for m in c.get_metric_history(run["run_id"], "train/loss")]
    assert steps == list(range(2, 21, 2))  # continuous curve over both processes
    assert run["params.train.epochs"] == "1" and "train.epochs=2" in run["tags.resume_changed_params"]
    assert not [k for k in c.get_run(run["run_id"]).data.metrics if k.startswith("system/")]
    assert run["run_id"] in result.output  # the summary names the run it continued


def test_a_run_shorter_than_the_sampling_interval_still_has_its_system_metrics(tmp_path, monkeypatch):
    # MLflow's monitor publishes only after a sampling interval: a short run (or a starved
    # monitor thread, seen on a loaded CI machine) had no system/* metric at all
    from trainer.mlflow_logger import MLflowRun

    monkeypatch.setenv("MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL", "60")
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    run = MLflowRun(store, "short", "r", offline_dir=tmp_path / "offline", system_metrics=True)
    run.log_metric("train/loss", 1.0, 1)
    run.end("FINISHED")
    import mlflow

    names = set(mlflow.MlflowClient(store).get_run(run.run_id).data.metrics)
    assert "train/loss" in names
    assert any(name.startswith("system/cpu_utilization") for name in names), sorted(names)
