"""``ms.export(..., file_format="ONNX")``: the zoo networks and the sequence layers run by
ONNX Runtime give our PyNative outputs (float32 rounding), at two batch sizes from one
file (the batch axis is symbolic); AIR is refused; a primitive without an ONNX
conversion stops the export with one line naming it and the user's source line."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import framework as ms  # noqa: E402
from framework import Tensor, nn, ops  # noqa: E402
from framework.exporter import ExportError  # noqa: E402
from framework.signature import flatten  # noqa: E402
from trainer.models import build_model, gpt  # noqa: E402

from .export_cases import ConvPoolNet, OpsNet, ops_inputs  # noqa: E402

RTOL = 1e-5  # float32 rounding: relative to each output's largest magnitude (sums cancel)


def assert_close(theirs: np.ndarray, ours: np.ndarray) -> None:
    assert theirs.shape == ours.shape and theirs.dtype == ours.dtype
    scale = float(np.abs(ours).max()) if ours.size else 0.0
    np.testing.assert_allclose(theirs, ours, rtol=RTOL, atol=RTOL * max(scale, 1e-3))


def perturb(net: nn.Cell, seed: int = 0) -> nn.Cell:
    """Weights off their initial values (BatchNorm statistics and gammas too), so that no
    layer is an identity and the outputs depend on the input."""
    rng = np.random.default_rng(seed)
    for name, p in net.parameters_and_names():
        a = p.asnumpy()
        if "variance" in name or "gamma" in name:
            a = rng.uniform(0.5, 1.5, a.shape)
        else:
            a = a + rng.normal(0.0, 0.05, a.shape)
        p.set_data(a.astype(p.asnumpy().dtype))
    return net


def tensors(inputs: list) -> list:
    return [None if x is None else Tensor(x) for x in inputs]


def run_both(path: str, net: nn.Cell, inputs: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """ONNX Runtime's and PyNative's outputs; ``input_k`` is the k-th tensor argument."""
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = [x for x in inputs if x is not None]
    theirs = session.run(None, {f"input_{i}": x for i, x in enumerate(feeds)})
    ours, _, _ = flatten(net(*tensors(inputs)))
    assert len(ours) == len(theirs)
    return [(o.asnumpy(), t) for o, t in zip(ours, theirs)]


def check(tmp_path, net, make, batch_axis=0, sizes=(2, 5)):
    """Export at ``sizes[0]``; ONNX Runtime equals PyNative at every size."""
    net.set_train(False)
    path = ms.export(net, *tensors(make(sizes[0])), file_name=str(tmp_path / "net"),
                     file_format="ONNX", batch_axis=batch_axis)
    assert path.endswith(".onnx")
    for b in sizes:
        for ours, theirs in run_both(path, net, make(b)):
            assert_close(theirs, ours)
    return onnx.load(path)


def images(shape, seed=0):
    rng = np.random.default_rng(seed)
    return lambda b: [rng.standard_normal((b, *shape)).astype(np.float32)]


def dims(value_info) -> list:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


# -- the zoo ----------------------------------------------------------------------------------
ZOO = {"lenet5": (dict(num_classes=10, num_channel=1), (1, 32, 32)),
       "mlp": (dict(num_classes=10, num_channel=1), (1, 28, 28)),
       "resnet8": (dict(num_classes=10), (3, 32, 32)),
       "resnet20": (dict(num_classes=10), (3, 16, 16)),
       "mobilenet_v2": (dict(num_classes=10, width_mult=0.25), (3, 32, 32))}


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_network_in_onnx_runtime_equals_pynative(tmp_path, name):
    kwargs, shape = ZOO[name]
    model = check(tmp_path, perturb(build_model(name, **kwargs)), images(shape))
    assert model.opset_import[0].version == 18
    assert dims(model.graph.input[0]) == ["batch", *shape]
    assert dims(model.graph.output[0]) == ["batch", 10]
    # Parameters are initializers under their own names; no training-only node is left
    names = {i.name for i in model.graph.initializer}
    assert any(n.endswith("weight") for n in names)
    assert "Dropout" not in {n.op_type for n in model.graph.node}


def test_batch_one_sample_and_fixed_batch(tmp_path):
    net = perturb(build_model("lenet5", num_classes=10, num_channel=1))
    check(tmp_path, net, images((1, 32, 32)), sizes=(1, 3))  # traced at 2 and 3, runs at 1
    net.set_train(False)
    x = images((1, 32, 32))(4)[0]
    path = ms.export(net, Tensor(x), file_name=str(tmp_path / "fixed.onnx"), batch_axis=None)
    model = onnx.load(path)
    assert dims(model.graph.input[0]) == [4, 1, 32, 32]
    (ours, theirs), = run_both(path, net, [x])
    assert_close(theirs, ours)


def test_export_leaves_the_train_flags_as_they_were(tmp_path):
    net = build_model("resnet8", num_classes=10)
    net.set_train(True)
    ms.export(net, Tensor(images((3, 32, 32))(2)[0]), file_name=str(tmp_path / "r"))
    assert all(cell.training for _, cell in net.cells_and_names())


# -- sequence layers -----------------------------------------------------------------------
def seq(batch_first: bool, t: int = 4, n_in: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    if batch_first:
        return lambda b: [rng.standard_normal((b, t, n_in)).astype(np.float32)]
    return lambda b: [rng.standard_normal((t, b, n_in)).astype(np.float32)]


def tokens(vocab: int, t: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    return lambda b: [rng.integers(0, vocab, (b, t)).astype(np.int32)]


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_recurrent_layers(tmp_path, cls):
    # batch first, two layers, both directions: output and final states
    net = cls(6, 5, num_layers=2, bidirectional=True, batch_first=True)
    model = check(tmp_path, net, seq(batch_first=True))
    assert dims(model.graph.output[0]) == ["batch", 4, 10]
    assert dims(model.graph.output[1]) == [4, "batch", 5]  # h_n: (layers * directions, N, H)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_recurrent_layer_with_sequence_lengths(tmp_path, cls):
    rng = np.random.default_rng(0)

    def make(b):  # x, hx=None, seq_length: two tensor inputs with the batch on axis 0
        return [rng.standard_normal((b, 6, 4)).astype(np.float32), None,
                rng.integers(0, 7, b).astype(np.int32)]

    check(tmp_path, cls(4, 5, batch_first=True, bidirectional=True), make, sizes=(3, 6))


def test_sequence_first_layer_takes_batch_axis_one(tmp_path):
    check(tmp_path / "gru", nn.GRU(6, 5), seq(batch_first=False), batch_axis=1)
    check(tmp_path / "lstm", nn.LSTM(6, 5), seq(batch_first=False), batch_axis=1)


def test_embedding_layer_norm_and_attention(tmp_path):
    check(tmp_path / "emb", nn.Embedding(12, 4), tokens(12))
    check(tmp_path / "ln", perturb(nn.LayerNorm((6,))), seq(batch_first=True))
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    rng = np.random.default_rng(1)
    three = lambda b: [rng.standard_normal((b, 3, 8)).astype(np.float32) for _ in range(3)]  # noqa: E731
    check(tmp_path / "mha", mha, three)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    check(tmp_path / "tel", layer, seq(batch_first=True, n_in=8))


def test_gpt(tmp_path):
    net = gpt.GPT(13, block_size=8, n_layer=2, n_head=2, n_embd=8)
    model = check(tmp_path, net, tokens(13))
    assert dims(model.graph.input[0]) == ["batch", 5]
    assert onnx.helper.tensor_dtype_to_np_dtype(model.graph.input[0].type.tensor_type.elem_type) == np.int32


def test_elementwise_reduction_and_shape_primitives(tmp_path):
    check(tmp_path, OpsNet(), ops_inputs(), sizes=(2, 7))


def test_padding_pooling_comparisons_and_layer_norm_statistics(tmp_path):
    check(tmp_path, perturb(ConvPoolNet()), images((3, 12, 12)))


# -- refusals ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["AIR", "air"])  # MINDIR: framework/mindir (test_mindir.py)
def test_air_is_refused_naming_onnx(tmp_path, fmt):
    net = build_model("lenet5", num_classes=10, num_channel=1)
    with pytest.raises(ExportError, match="file_format='ONNX'") as info:
        ms.export(net, Tensor(np.zeros((1, 1, 32, 32), np.float32)), file_name=str(tmp_path / "n"),
                  file_format=fmt)
    assert fmt in str(info.value) and "\n" not in str(info.value)
    assert not list(tmp_path.iterdir())


class TensorBranch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # a condition on a tensor's value: an If region, no ONNX conversion here
            x = x * 2
        return ops.relu(x)


def test_unsupported_primitive_is_one_line_naming_it_and_the_source_line(tmp_path):
    with pytest.raises(ExportError) as info:
        ms.export(TensorBranch(), Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "n"))
    message = str(info.value)
    assert "\n" not in message
    assert "primitive If" in message
    assert "test_export_onnx.py" in message and "if x.sum() > 0:" in message
    assert not list(tmp_path.iterdir())


class RawDropout(nn.Cell):
    def construct(self, x):
        return ops.dropout(x, p=0.5)


def test_random_draws_are_refused(tmp_path):
    with pytest.raises(ExportError, match="primitive Dropout: draws random values") as info:
        ms.export(RawDropout(), Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "n"))
    assert "return ops.dropout(x, p=0.5)" in str(info.value) and "\n" not in str(info.value)


def test_inputs_of_different_batch_sizes_are_refused(tmp_path):
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q, kv = np.zeros((2, 3, 8), np.float32), np.zeros((3, 3, 8), np.float32)
    with pytest.raises(ExportError, match="batch size"):
        ms.export(mha, Tensor(q), Tensor(kv), Tensor(kv), file_name=str(tmp_path / "n"))
