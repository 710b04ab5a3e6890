"""The trained network as an MLflow pyfunc model (loaded in a fresh process, served over
HTTP, registered) and the IR artifacts as the MLflow UI shows them."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from .cli_env import SMOKE, needs_data
from .test_cli import invoke, search, uri

SMALL = ["dataset.limit=320", "dataset.test_limit=200", "train.epochs=1", "checkpoint.save_steps=0",
         "mlflow.system_metrics=false"]
PREDICT = """
import sys, json, numpy as np, mlflow
import framework.graph_mode as gm
model = mlflow.pyfunc.load_model(sys.argv[1])
images = np.load(sys.argv[2])
np.save(sys.argv[3], np.stack(model.predict(images)["logits"]))
print(json.dumps(gm.cache_stats))
"""


def reference_logits(workdir: Path, images: np.ndarray) -> np.ndarray:
    """The checkpoint's network run op by op (PyNative) on the experiment's transforms."""
    import datasets
    import framework as ms
    from framework.serialization import read_arrays
    from trainer.config import load_config
    from trainer.data import transforms_for
    from trainer.models import build_model

    config = load_config(SMOKE, SMALL)
    net = build_model("lenet5", num_classes=10, num_channel=1)
    # (the newest: a run may write into a folder of its own below checkpoints/smoke)
    ckpt = max((workdir / "checkpoints" / "smoke").rglob("smoke-*.ckpt"), key=lambda p: p.stat().st_mtime)
    ms.load_param_into_net(net, dict(read_arrays(ckpt)[0]), strict_load=True)
    net.set_train(False)
    loader = datasets.make_loader((images, np.zeros(len(images), np.int32)), batch_size=len(images),
                                  shuffle=False, drop_remainder=False, transforms=transforms_for(config))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return np.concatenate([net(ms.Tensor(x)).asnumpy() for x, _ in loader])


def raw_images(n: int) -> np.ndarray:
    """Test images after the two of the input example, in its batch size (2): logging the
    model validated that example, so this shape's kernels are in the compile cache."""
    import datasets

    return np.asarray(datasets.load("mnist-10k", "test")[0][2:2 + n])


@pytest.fixture(scope="module")
def trained_in(tmp_path_factory):
    """One graph-mode run (IR saved, model registered) shared by this module's tests."""
    folder = tmp_path_factory.mktemp("trained")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        result = invoke("run", SMOKE, "--quiet", "--mode", "graph", "ir.save=true",
                        "mlflow.register=smoke-lenet", *SMALL)
        assert result.exit_code == 0, result.output
        return folder, search().iloc[0]["run_id"]


@pytest.fixture
def trained(trained_in, monkeypatch):
    monkeypatch.chdir(trained_in[0])
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return trained_in[1]


@needs_data
def test_model_predicts_in_a_fresh_process_in_graph_mode_and_is_registered(trained):
    images = raw_images(2)
    np.save("images.npy", images)
    env = {**os.environ, "MLFLOW_TRACKING_URI": uri()}
    out = subprocess.run([sys.executable, "-c", PREDICT, f"runs:/{trained}/smoke", "images.npy",
                          "logits.npy"], cwd=Path.cwd(), env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    stats = json.loads(out.stdout.strip().splitlines()[-1])
    assert stats["traces"] >= 1  # the prediction was compiled: graph mode
    logits = np.load("logits.npy")
    assert logits.shape == (2, 10) and logits.dtype == np.float32
    np.testing.assert_allclose(logits, reference_logits(Path.cwd(), images), rtol=1e-4, atol=1e-4)
    import mlflow

    mlflow.set_tracking_uri(uri())
    info = mlflow.models.get_model_info(f"runs:/{trained}/smoke")
    # any dtype and layout the preprocessing takes: MLflow's "any" tensor, described in words
    assert [(s.type, s.shape) for s in info.signature.inputs.inputs] == [(np.dtype(object), (-1,))]
    assert info.metadata["input"].startswith("images (N, H, W) or (N, H, W, 1)")
    assert info.signature.outputs.input_names() == ["label", "class", "probabilities", "logits"]
    assert info.saved_input_example_info["artifact_path"] == "input_example.json"
    versions = mlflow.MlflowClient(uri()).search_model_versions("name='smoke-lenet'")
    assert [(v.run_id, v.source) for v in versions] == [(trained, f"models:/{info.model_id}")]


@needs_data
def test_ir_artifacts_are_readable_in_the_ui(trained):  # noqa: F811
    import mlflow

    c = mlflow.MlflowClient(uri())
    names = {a.path.rsplit("/", 1)[-1] for a in c.list_artifacts(trained, "ir/TrainOneStepCell")}
    assert {"00_trace.ir.txt", "01_grad.ir.txt", "02_opt.ir.txt", "graph.dot", "20_kernels.ll.gz"} <= names
    assert not [n for n in names if n.endswith((".ir", ".ll"))]
    assert ("graph.svg" if shutil.which("dot") else "graph.svg.README.txt") in names
    local = Path(c.download_artifacts(trained, "ir/TrainOneStepCell", str(Path.cwd() / "dl")))
    source = Path.cwd() / "ir" / "smoke" / "graph" / "TrainOneStepCell"
    kernels = gzip.decompress((local / "20_kernels.ll.gz").read_bytes())
    assert kernels == (source / "20_kernels.ll").read_bytes()
    assert (local / "00_trace.ir.txt").read_text() == (source / "00_trace.ir").read_text()
    if shutil.which("dot"):
        assert (local / "graph.svg").read_text().lstrip().startswith(("<?xml", "<svg"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@needs_data
def test_mlflow_models_serve_answers_over_http(trained):  # noqa: F811
    port = free_port()
    bin_dir = str(Path(sys.executable).parent)  # as in an activated venv: mlflow runs `uvicorn`
    env = {**os.environ, "MLFLOW_TRACKING_URI": uri(), "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    mlflow_cli = Path(sys.executable).with_name("mlflow")
    server = subprocess.Popen([str(mlflow_cli), "models", "serve", "-m", f"runs:/{trained}/smoke",
                               "--env-manager", "local", "-h", "127.0.0.1", "-p", str(port)],
                              cwd=Path.cwd(), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            assert server.poll() is None, server.stderr.read().decode()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/ping", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("mlflow models serve did not answer /ping within 180 s")
        images = raw_images(2)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/invocations", data=json.dumps({"inputs": images.tolist()}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as r:
            rows = json.loads(r.read())["predictions"]
        answer = np.asarray([row["logits"] for row in rows], np.float32)
        assert [row["label"] for row in rows] == answer.argmax(axis=1).tolist()
        np.testing.assert_allclose(answer, reference_logits(Path.cwd(), images), rtol=1e-4, atol=1e-4)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
