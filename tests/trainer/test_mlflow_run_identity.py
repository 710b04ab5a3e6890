"""Runs and models that tell apart in MLflow: a run's default name carries what differs
from its experiment file (the precision when not fp32, the command line's overrides), its
tags say what ran (the dataset read, the precision), and it has one LoggedModel named after
the experiment, which a resume replaces (not a second one). Real ``train run``s of
experiments/smoke.yaml (PyNative, one epoch of 320 images) into a SQLite store in a
temporary folder."""

from __future__ import annotations

import pytest

from trainer.config import load_config
from trainer.run_names import default_run_name

from .cli_env import ROOT, SMOKE, needs_data
from .test_cli import invoke, search, uri

SMALL = ["dataset.limit=320", "dataset.test_limit=200", "checkpoint.save_steps=0",
         "mlflow.system_metrics=false"]


def models_of(client, run_id: str) -> list:
    experiment = client.get_run(run_id).info.experiment_id
    return [m for m in client.search_logged_models(experiment_ids=[experiment]) if m.source_run_id == run_id]


def test_default_names_say_precision_and_overrides_not_logging_settings():
    lenet = ROOT / "experiments" / "lenet.yaml"

    def name(*overrides):
        return default_run_name(load_config(lenet, list(overrides), import_code=False), str(lenet))

    assert name() == "lenet-mnist-graph"
    assert name("precision=bf16", "optimizer.learning_rate=0.05") == "lenet-mnist-graph-bf16-lr0.05"
    assert name("mode=pynative", "precision=fp16", "seed=3") == "lenet-mnist-pynative-fp16-seed3"
    # what does not change the trained network stays out of the name
    assert name("train.log_every=5", "checkpoint.keep_max=1", "mlflow.system_metrics=false",
                "optimizer.learning_rate=0.01") == "lenet-mnist-graph"  # 0.01: the file's value
    many = name("dataset.batch_size=64", "train.epochs=1", "optimizer.name=adam", "seed=1",
                "optimizer.weight_decay=0.1", "dataset.limit=100")
    assert many == "lenet-mnist-graph-seed1-bs64-limit100-adam-wd0.1-+1"
    # a config not from a file: only its precision
    config = load_config(lenet, ["precision=bf16"], import_code=False)
    assert default_run_name(config, None) == "lenet-mnist-graph-bf16"


@needs_data
@pytest.mark.slow
def test_run_name_tags_and_one_model_replaced_on_resume(workdir):
    import mlflow

    first = invoke("run", SMOKE, "--quiet", "--mode", "pynative", "precision=bf16",
                   "optimizer.learning_rate=0.02", "train.epochs=1", *SMALL)
    assert first.exit_code == 0, first.output
    run = search().iloc[0]
    run_id = run["run_id"]
    assert run["tags.mlflow.runName"] == f"smoke-pynative-bf16-limit320-test_limit200-lr0.02-ep1-{run_id[:8]}"
    assert run["tags.precision"] == "bf16" and run["tags.dataset"] == run["params.dataset.name"]
    client = mlflow.MlflowClient(uri())
    (model,) = models_of(client, run_id)
    assert model.name == "smoke" and f"runs:/{run_id}/smoke" in first.output
    assert model.tags["dataset"] == "mnist-10k" and model.tags["precision"] == "bf16"

    again = invoke("run", SMOKE, "--quiet", "--mode", "pynative", "--resume", "last", "precision=bf16",
                   "optimizer.learning_rate=0.02", "train.epochs=2", *SMALL)
    assert again.exit_code == 0, again.output
    assert len(search()) == 1  # the same run went on
    (newer,) = models_of(client, run_id)  # one model: the resumed run's replaced the first
    assert newer.name == "smoke" and newer.model_id != model.model_id
    assert client.get_run(run_id).data.tags["logged_model_id"] == newer.model_id
    mlflow.set_tracking_uri(uri())
    info = mlflow.models.get_model_info(f"runs:/{run_id}/smoke")
    assert info.model_id == newer.model_id
    assert info.signature.inputs is not None and info.saved_input_example_info is not None
    weights = [a.path for a in client.list_logged_model_artifacts(newer.model_id, "artifacts")]
    assert any(path.endswith("smoke-2_10.ckpt") for path in weights), weights  # the final step's
