"""trainer/export.py: a checkpoint of an experiment's network exported to ONNX runs in ONNX
Runtime with the checkpoint's weights (any batch size); unknown and MindIR formats are
refused before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import framework as ms  # noqa: E402
from framework.exporter import ExportError  # noqa: E402
from trainer.build import build_model_for  # noqa: E402
from trainer.config import load_config  # noqa: E402
from trainer.export import export_checkpoint, sample_input  # noqa: E402

from .cli_env import ROOT  # noqa: E402

CONFIG = ROOT / "experiments" / "resnet8_synthetic.yaml"  # generated data: no download


def trained_checkpoint(config, path):
    """The experiment's network with weights moved off their initial values, saved."""
    _, net = build_model_for(config)
    rng = np.random.default_rng(0)
    for p in net.trainable_params():
        p.set_data((p.asnumpy() + rng.normal(0, 0.05, p.shape)).astype(np.float32))
    ms.save_checkpoint(net, str(path))
    return net


def test_export_checkpoint_runs_in_onnx_runtime_with_the_checkpoint_weights(tmp_path):
    config = load_config(CONFIG)
    net = trained_checkpoint(config, tmp_path / "net.ckpt")
    out = export_checkpoint(CONFIG, tmp_path / "net.ckpt", tmp_path / "resnet8")
    assert out == tmp_path / "resnet8.onnx" and out.is_file()
    x = sample_input(config)
    assert x.shape == (2, 3, 32, 32) and x.dtype == np.float32
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    net.set_train(False)
    for batch in (np.concatenate([x, x[::-1], x]), x[:1]):
        ours = net(ms.Tensor(batch)).asnumpy()
        theirs = session.run(None, {"image": batch})[0]
        np.testing.assert_allclose(theirs, ours, rtol=1e-5, atol=1e-5 * np.abs(ours).max())


@pytest.mark.parametrize("fmt, error", [("mindir", ExportError), ("tflite", ValueError)])
def test_other_formats_are_refused(tmp_path, fmt, error):
    config = load_config(CONFIG)
    trained_checkpoint(config, tmp_path / "net.ckpt")
    with pytest.raises(error, match="onnx|ONNX"):
        export_checkpoint(config, tmp_path / "net.ckpt", tmp_path / "out", fmt=fmt)
    assert not (tmp_path / "out.onnx").exists()
