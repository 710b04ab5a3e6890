"""The issue's figure for ``ms.export(..., file_format="ONNX")``: LeNet-5, the MLP, ResNet-20 and
MobileNetV2 (and the zoo's language models) exported once, run by ONNX Runtime at two batch
sizes from that one file, equal to graph mode (compiled with TVM) within 1e-5 relative to the
output's magnitude; the compiled and exported graphs share nothing but our IR's tracer.
ResNet-20, MobileNetV2 and the LSTM language model compile for a while: ``slow``."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import framework as ms  # noqa: E402
from framework import Tensor  # noqa: E402
from framework.exporter.onnx_model import OPSET  # noqa: E402
from trainer.models import GPT, LSTMLM, build_model  # noqa: E402

from .test_export_onnx import assert_close, dims, perturb  # noqa: E402

SIZES = (2, 5)  # traced at the first; one file runs both
IMAGES = {"lenet5": (dict(num_classes=10, num_channel=1), (1, 32, 32)),
          "mlp": (dict(num_classes=10, num_channel=1), (1, 28, 28)),
          "resnet20": (dict(num_classes=10), (3, 32, 32)),
          "mobilenet_v2": (dict(num_classes=10), (3, 32, 32))}
SLOW = {"resnet20", "mobilenet_v2"}


def graph_mode_against_onnx_runtime(tmp_path, net, make) -> onnx.ModelProto:
    """Export at ``SIZES[0]``; at every size ONNX Runtime's output equals graph mode's."""
    net.set_train(False)
    path = ms.export(net, Tensor(make(SIZES[0])), file_name=str(tmp_path / "net"), file_format="ONNX")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ms.set_context(mode=ms.GRAPH_MODE)
    for b in SIZES:
        x = make(b)
        ours = net(Tensor(x)).asnumpy()
        assert np.isfinite(ours).all() and np.abs(ours).max() > 1e-3
        theirs, = session.run(None, {"input_0": x})
        assert_close(theirs, ours)
    return onnx.load(path)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in IMAGES])
def test_image_classifier_equals_graph_mode_at_two_batch_sizes(tmp_path, name):
    kwargs, shape = IMAGES[name]
    rng = np.random.default_rng(1)
    model = graph_mode_against_onnx_runtime(
        tmp_path, perturb(build_model(name, **kwargs)),
        lambda b: rng.standard_normal((b, *shape)).astype(np.float32))
    assert model.opset_import[0].version == OPSET == 18
    assert dims(model.graph.input[0]) == ["batch", *shape]


def tokens(vocab: int, t: int = 6):
    rng = np.random.default_rng(2)
    return lambda b: rng.integers(0, vocab, (b, t)).astype(np.int32)


def test_gpt_equals_graph_mode(tmp_path):
    net = GPT(17, block_size=8, n_layer=2, n_head=2, n_embd=16)
    model = graph_mode_against_onnx_runtime(tmp_path, perturb(net), tokens(17))
    assert dims(model.graph.output[0]) == ["batch", 6, 17]


@pytest.mark.slow
def test_lstm_language_model_equals_graph_mode(tmp_path):
    net = LSTMLM(17, embedding=8, hidden=12, num_layers=2)
    model = graph_mode_against_onnx_runtime(tmp_path, perturb(net), tokens(17))
    assert dims(model.graph.output[0]) == ["batch", 6, 17]
