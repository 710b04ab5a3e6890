"""Issue 27, item 2: the trained network is an MLflow 3 LoggedModel (the Models tab lists
it, linked to its run and that run's final metrics, tagged like the run, registered from
it), takes what the preprocessing can take (uint8 or float images, any batch size, with
or without the channel axis) without compiling per request size, answers labels, class
names and probabilities, and carries the user's model file (``code_paths``).

Real runs of experiments/smoke.yaml into SQLite stores in temporary folders; the model is
loaded in fresh processes, as a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from .cli_env import SMOKE, needs_data
from .test_cli import invoke, search, uri
from .test_review_model import raw_images, reference_logits

SMALL = ["dataset.limit=320", "dataset.test_limit=200", "train.epochs=1", "checkpoint.save_steps=0",
         "mlflow.system_metrics=false"]
PREDICT = """
import json, sys, numpy as np, mlflow
import framework.graph_mode as gm
model = mlflow.pyfunc.load_model(sys.argv[1])
images = np.load(sys.argv[2])
answers = {}
compiles = lambda: gm.cache_stats["compiles"] + gm.cache_stats["disk_hits"]
for n in (3, 4, 1, 70):  # 70 = 64 + 6
    before = compiles()
    out = model.predict(images[:n])
    answers[n] = {"compiles": compiles() - before, "columns": list(out.columns),
                  "label": out["label"].tolist(), "class": out["class"].tolist(),
                  "probabilities": np.stack(out["probabilities"]).tolist(),
                  "logits": np.stack(out["logits"]).tolist()}
floats = model.predict((images[:4] / 255.0).astype(np.float32)[:, None])  # 0..1, channels first
answers["float"] = np.stack(floats["logits"]).tolist()
answers["hwc"] = np.stack(model.predict(images[:4, :, :, None])["logits"]).tolist()
answers["one"] = model.predict(images[0])["label"].tolist()
errors = []
for bad in (np.zeros((2, 28, 28, 3), np.uint8), np.full((1, 28, 28), 300.0), np.zeros(5), np.array([["a"]])):
    try:
        model.predict(bad)
        errors.append(None)
    except ValueError as error:
        errors.append(str(error))
answers["errors"] = errors
print(json.dumps(answers))
"""


def fresh_process(script: str, *args: str) -> dict:
    env = {**os.environ, "MLFLOW_TRACKING_URI": uri(), "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false"}
    out = subprocess.run([sys.executable, "-c", script, *args], cwd=Path.cwd(), env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def trained_in(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logged")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        result = invoke("run", SMOKE, "--quiet", "--mode", "graph", "mlflow.register=smoke-lenet", *SMALL)
        assert result.exit_code == 0, result.output
        return folder, search().iloc[0]["run_id"], result.output


@pytest.fixture
def trained(trained_in, monkeypatch):
    monkeypatch.chdir(trained_in[0])
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return trained_in[1]


@needs_data
def test_the_model_is_a_logged_model_of_its_run_with_its_metrics_and_tags(trained, trained_in):
    import mlflow

    client = mlflow.MlflowClient(uri())
    run = client.get_run(trained)
    [model] = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert (model.name, model.source_run_id, model.model_type) == ("smoke", trained, "classifier")
    assert run.data.tags["logged_model_id"] == model.model_id
    assert f"model:      runs:/{trained}/smoke" in trained_in[2]  # named after the experiment
    # the run's final metrics, linked to the model (the Models tab's columns)
    linked = {m.key: m.value for m in model.metrics}
    for key in ("eval/accuracy", "eval/loss", "perf/ms_per_step", "train/accuracy"):
        assert linked[key] == pytest.approx(run.data.metrics[key]), key
    # tagged like the run, with the YAML as its source
    for key in ("mode", "task", "model", "dataset"):
        assert model.tags[key] == run.data.tags[key], key
    assert model.tags["mlflow.source.name"] == str(SMOKE.resolve())
    assert model.params["optimizer.learning_rate"] == "0.05"  # the run's params
    # registered from the logged model; runs:/ and models:/ name the same model
    [version] = client.search_model_versions("name='smoke-lenet'")
    assert (version.run_id, version.source) == (trained, f"models:/{model.model_id}")
    assert run.data.tags["registered_model"] == "smoke-lenet version 1"
    mlflow.set_tracking_uri(uri())
    assert mlflow.models.get_model_info(f"runs:/{trained}/smoke").model_id == model.model_id


@needs_data
def test_predict_takes_any_batch_size_and_layout_without_compiling_per_size(trained):
    import mlflow

    mlflow.set_tracking_uri(uri())
    [model] = mlflow.search_logged_models(experiment_ids=[mlflow.get_run(trained).info.experiment_id],
                                          output_format="list")
    images = raw_images(70)
    np.save("images.npy", images)
    answers = fresh_process(PREDICT, f"models:/{model.model_id}", "images.npy")
    reference = reference_logits(Path.cwd(), images)
    for n in ("3", "4", "1", "70"):
        got = answers[n]
        assert got["columns"] == ["label", "class", "probabilities", "logits"]
        logits, probabilities = np.asarray(got["logits"]), np.asarray(got["probabilities"])
        np.testing.assert_allclose(logits, reference[:int(n)], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(probabilities.sum(axis=1), 1, rtol=1e-5)
        assert got["label"] == logits.argmax(axis=1).tolist() == probabilities.argmax(axis=1).tolist()
        assert got["class"] == [str(label) for label in got["label"]]  # MNIST's classes are digits
    # LeNet compiles once for every batch size: the first request compiles, no other does
    # (each runs at its own size; tests/trainer/test_mlflow_request_sizes.py)
    assert [answers[n]["compiles"] for n in ("3", "4", "1", "70")] == [1, 0, 0, 0]
    np.testing.assert_allclose(answers["float"], reference[:4], rtol=1e-4, atol=1e-4)  # 0..1, (N, 1, H, W)
    np.testing.assert_allclose(answers["hwc"], reference[:4], rtol=1e-4, atol=1e-4)  # (N, H, W, 1)
    assert answers["one"] == answers["1"]["label"]  # one image without the batch axis
    wrong_channels, too_bright, flat, text = answers["errors"]
    expects = "expected images (N, H, W) or (N, H, W, 1) or (N, 1, H, W)"
    assert wrong_channels.startswith("predict: got shape (2, 28, 28, 3): not 1 channel; " + expects)
    assert too_bright.startswith("predict: got values 300..300; " + expects)
    assert flat.startswith("predict: got shape (5,); ") and text.startswith("predict: got ndarray of <U1 ")
    assert all("\n" not in e for e in answers["errors"])


NET = '''
from framework import nn
from layers import head


class Net(nn.Cell):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.flatten = nn.Flatten()
        self.head = head(32 * 32, num_classes)

    def construct(self, x):
        return self.head(self.flatten(x))
'''
LAYERS = '''
from framework import nn


def head(inputs, outputs):
    return nn.Dense(inputs, outputs)
'''
LOAD = """
import json, sys, numpy as np, mlflow
model = mlflow.pyfunc.load_model(sys.argv[1])
out = model.predict(np.zeros((3, 28, 28), np.uint8))
print(json.dumps({"columns": list(out.columns), "rows": len(out)}))
"""


@needs_data
def test_the_users_model_file_and_its_imports_travel_with_the_model(workdir):
    mine = workdir / "mine"
    mine.mkdir()
    (mine / "net.py").write_text(textwrap.dedent(NET))
    (mine / "layers.py").write_text(textwrap.dedent(LAYERS))
    (mine / "unused.py").write_text("raise RuntimeError('not imported by net.py')\n")
    (mine / "exp.yaml").write_text(SMOKE.read_text().replace("  name: lenet5", "  class: net.py:Net"))
    result = invoke("run", mine / "exp.yaml", "--quiet", "--mode", "graph", *SMALL)
    assert result.exit_code == 0, result.output
    run_id = search().iloc[0]["run_id"]
    import mlflow

    mlflow.set_tracking_uri(uri())
    info = mlflow.models.get_model_info(f"runs:/{run_id}/smoke")
    shutil.rmtree(mine)  # the model needs none of the original files
    answer = fresh_process(LOAD, f"models:/{info.model_id}")
    assert answer == {"columns": ["label", "class", "probabilities", "logits"], "rows": 3}
    local = Path(mlflow.artifacts.download_artifacts(f"models:/{info.model_id}",
                                                     dst_path=str(workdir / "dl")))
    assert sorted(p.name for p in (local / "code").iterdir()) == ["layers.py", "net.py"]


@needs_data
def test_a_language_model_is_a_logged_model_too(workdir):
    import mlflow

    lm = SMOKE.parent / "gpt_shakespeare_smoke.yaml"
    result = invoke("run", lm, "--quiet", "--mode", "graph", "mlflow.system_metrics=false",
                    "train.max_steps=6", "train.eval_every_steps=6", "train.eval_batches=1")
    assert result.exit_code == 0, result.output
    mlflow.set_tracking_uri(uri())
    [run] = mlflow.search_runs(search_all_experiments=True, output_format="list")
    [model] = mlflow.search_logged_models(experiment_ids=[run.info.experiment_id], output_format="list")
    assert (model.source_run_id, model.model_type, model.tags["task"]) == (
        run.info.run_id, "language_model", "language_model")
    assert {m.key: m.value for m in model.metrics}["val/loss"] == pytest.approx(run.data.metrics["val/loss"])
    texts = mlflow.pyfunc.load_model(f"runs:/{run.info.run_id}/gpt-shakespeare-smoke").predict(
        ["ROMEO:"], params={"max_tokens": 5})
    assert len(texts) == 1 and texts[0].startswith("ROMEO:")  # prompts in, texts out, as before
