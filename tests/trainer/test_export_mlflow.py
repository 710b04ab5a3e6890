"""A run's weights in ``checkpoint.format`` and ``train export`` logged to MLflow (trainer/export.py).

Real ``train run``s of experiments/resnet8_synthetic.yaml (generated data, PyNative, two
steps) into a SQLite store in a temporary folder: with ``checkpoint.format: mindspore`` the
run leaves ``<prefix>-weights.ckpt`` that the protobuf reference parses under MindSpore's
names, holding the trained network's values, logged under ``checkpoints/``; ``safetensors``
the same through the ``safetensors`` library. ``train export`` then logs the ONNX file as
the run's LoggedModel ``resnet8-synthetic-onnx`` (once, however often exported; with a
signature and an input example, as the run's own model), which MLflow's ``onnx`` flavor
loads and runs (ONNX Runtime) to our network's logits, and leaves the run's status and end time alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import framework as ms  # noqa: E402
from framework.train.checkpoint import read_checkpoint  # noqa: E402
from tests.mindspore_ref import ckpt_proto_ref as ref  # noqa: E402
from trainer.build import build_model_for  # noqa: E402
from trainer.config import load_config  # noqa: E402
from trainer.export import sample_input  # noqa: E402

from .cli_env import ROOT  # noqa: E402
from .test_cli import invoke, search, uri  # noqa: E402

CONFIG = ROOT / "experiments" / "resnet8_synthetic.yaml"
SMALL = ["dataset.args.train_size=64", "dataset.args.test_size=32", "train.epochs=1",
         "mlflow.system_metrics=false"]


def train(fmt: str):
    result = invoke("run", CONFIG, "--mode", "pynative", "--quiet", f"checkpoint.format={fmt}", *SMALL)
    assert result.exit_code == 0, result.output
    return search().iloc[0], _checkpoints()[-1]


def _checkpoints() -> list[Path]:
    """The training checkpoints in the working folder, oldest first."""
    return sorted(Path("checkpoints").rglob("resnet8-synthetic-*_*.ckpt"), key=lambda p: p.stat().st_mtime_ns)


def trained_network(final):
    """Our network with the final checkpoint's weights."""
    _, net = build_model_for(load_config(CONFIG, SMALL))
    ms.load_param_into_net(net, ms.load_checkpoint(str(final)), strict_load=True)
    net.set_train(False)
    return net


def logged(run) -> list[str]:
    import mlflow

    return [a.path for a in mlflow.MlflowClient(uri()).list_artifacts(run.run_id, "checkpoints")]


def test_mindspore_weights_then_train_export_logged_next_to_the_model(workdir):
    import mlflow

    run, final = train("mindspore")
    weights = final.with_name("resnet8-synthetic-weights.ckpt")
    values, _ = ref.decode(weights.read_bytes())  # protobuf built from MindSpore's .proto
    net = trained_network(final)
    names = {path: p for path, p in net.parameters_and_names()}  # MindSpore's names: attribute paths
    assert sorted(v[0] for v in values) == sorted(names) and "features.1.moving_mean" in names
    for tag, dims, ttype, content in values:
        assert ttype == "Float32" and dims == list(names[tag].shape)
        np.testing.assert_array_equal(np.frombuffer(content, "<f4").reshape(dims), names[tag].asnumpy())
    assert sorted(logged(run)) == [f"checkpoints/{final.name}", "checkpoints/resnet8-synthetic-weights.ckpt"]
    assert read_checkpoint(final).state.global_step == 2  # the training checkpoint stays ours

    client = mlflow.MlflowClient(uri())
    before = client.get_run(run.run_id).info
    result = invoke("export", CONFIG, "--checkpoint", final, "--out", "net.onnx", *SMALL)
    assert result.exit_code == 0, result.output
    assert f"MLflow: logged as runs:/{run.run_id}/resnet8-synthetic-onnx (model m-" in result.output
    assert "wrote net.onnx" in result.output
    again = invoke("export", CONFIG, "--checkpoint", final, "--out", "net.onnx", *SMALL)
    assert again.exit_code == 0, again.output  # an export again replaces the logged ONNX model
    after = client.get_run(run.run_id).info
    assert (after.status, after.end_time) == (before.status, before.end_time) == ("FINISHED", before.end_time)
    found = client.search_logged_models(experiment_ids=[run.experiment_id])
    models = {m.name: m for m in found}  # each named after the experiment, once
    assert sorted(m.name for m in found) == ["resnet8-synthetic", "resnet8-synthetic-onnx"]
    onnx_logged = models["resnet8-synthetic-onnx"]
    assert onnx_logged.source_run_id == run.run_id and onnx_logged.model_id in again.output
    assert onnx_logged.tags["format"] == "onnx (opset 18)" and onnx_logged.tags["mode"] == "pynative"
    # both carry a signature and an input example (the ONNX one: its named tensors)
    for model in found:
        info = mlflow.models.get_model_info(f"models:/{model.model_id}")
        assert info.signature is not None and info.signature.inputs is not None, model.name
        assert info.saved_input_example_info is not None, model.name
    onnx_info = mlflow.models.get_model_info(f"models:/{onnx_logged.model_id}")
    assert onnx_info.signature.inputs.input_names() == ["image"]
    assert onnx_info.signature.outputs.input_names() == ["logits"]
    assert onnx_info.signature.inputs.inputs[0].shape == (-1, 3, 32, 32)

    mlflow.set_tracking_uri(uri())
    onnx_model = mlflow.pyfunc.load_model(f"runs:/{run.run_id}/resnet8-synthetic-onnx")
    x = sample_input(load_config(CONFIG, SMALL))
    x = np.concatenate([x, x[::-1], x])  # another batch size than the example's
    ours = net(ms.Tensor(x)).asnumpy()
    theirs = onnx_model.predict(x)["logits"]
    np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5 * np.abs(ours).max())


def test_a_weights_only_checkpoint_exports_without_logging(workdir):
    config = load_config(CONFIG, SMALL)
    _, net = build_model_for(config)
    ms.save_checkpoint(net, "weights.ckpt", format="mindspore")  # loads by MindSpore's names too
    result = invoke("export", CONFIG, "--checkpoint", "weights.ckpt", *SMALL)
    assert result.exit_code == 0, result.output
    assert "MLflow: not logged (weights.ckpt names no MLflow run of sqlite:///" in result.output
    assert "wrote weights.onnx" in result.output


def test_safetensors_weights_and_the_default_writes_none(workdir):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    run, final = train("safetensors")
    weights = safetensors_numpy.load_file(str(final.with_name("resnet8-synthetic-weights.safetensors")))
    first = final.parent
    net = trained_network(final)
    assert sorted(weights) == sorted(p.name for p in net.get_parameters())  # our names: bn.mean ...
    for p in net.get_parameters():
        np.testing.assert_array_equal(weights[p.name], p.asnumpy())
    assert "checkpoints/resnet8-synthetic-weights.safetensors" in logged(run)
    _, final = train("twinmode")  # (a run folder of its own)
    assert final.parent != first and not list(final.parent.glob("*weights*"))
