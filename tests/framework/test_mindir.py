"""MindIR here (framework/mindir): ``ms.export(..., file_format="MINDIR")`` then ``ms.load`` +
``nn.GraphCell`` gives the network's outputs, in both modes and at another batch size; the
file parses with ``protobuf`` built from ``mind_ir.proto`` (an independent reader) and holds
the weights and MindSpore's primitive names; the tutorial MLP matches a NumPy forward pass;
bad files, unknown ops and primitives without a conversion are refused in one line.
(MindSpore itself reading ours and writing files for us: tests/mindspore_ref/test_mindir_interop.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework import protowire as wire
from framework.exporter import ExportError
from framework.mindir import MindIRError, schema
from tests.mindspore_ref import mindir_nets as N
from trainer.models import build_model

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def _net(name):
    net = N.set_weights(N.NETWORKS[name][0](ms), Tensor)
    net.set_train(False)
    return net


def _tuple(out):
    return out if isinstance(out, tuple) else (out,)


def _assert_close(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(N.NETWORKS))
def test_round_trip_gives_the_network_outputs(tmp_path, name, mode):
    net = _net(name)
    x = Tensor(N.sample(name, 2))
    path = ms.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    assert path.endswith(f"{name}.mindir")
    wants = {b: [o.asnumpy() for o in _tuple(net(Tensor(N.sample(name, b, seed=b))))] for b in (2, 3)}
    ms.set_context(mode=MODES[mode])
    cell = nn.GraphCell(ms.load(path))
    for batch, want in wants.items():  # batch 3: shape arguments follow the batch
        got = _tuple(cell(Tensor(N.sample(name, batch, seed=batch))))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == Tensor(w).dtype
            _assert_close(g.asnumpy(), w)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["resnet20", "mobilenet_v2"])
def test_zoo_networks_round_trip(tmp_path, name, mode):
    net = N.set_weights(build_model(name, num_classes=10, num_channel=3), Tensor)
    net.set_train(False)
    x = Tensor(np.random.default_rng(5).standard_normal((2, 3, 32, 32)).astype(np.float32))
    path = ms.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    want = net(x).asnumpy()
    ms.set_context(mode=MODES[mode])
    _assert_close(nn.GraphCell(ms.load(path))(x).asnumpy(), want)


def test_tutorial_mlp_matches_numpy(tmp_path):
    net = _net("mlp")
    x = N.sample("mlp", 4)
    path = ms.export(net, Tensor(x), file_name=str(tmp_path / "model"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path))
    weights = {p.name: p.asnumpy().astype(np.float64) for p in net.get_parameters()}
    h = x.reshape(4, -1).astype(np.float64)
    for k, layer in enumerate(("1", "3", "5")):
        h = h @ weights[f"{layer}.weight"].T + weights[f"{layer}.bias"]
        h = np.maximum(h, 0) if k < 2 else h
    _assert_close(cell(Tensor(x)).asnumpy(), h)
    # the weights became the cell's Parameters, under the network's names
    params = {p.name: p.asnumpy() for p in cell.get_parameters()}
    assert params.keys() == weights.keys()
    for name, value in params.items():
        np.testing.assert_array_equal(value, weights[name].astype(np.float32))


def test_file_parses_with_protobuf_in_mindspore_form(tmp_path):
    ref = pytest.importorskip("tests.framework.mindir_proto_ref")
    net = _net("lenet")
    path = ms.export(net, Tensor(N.sample("lenet", 2)), file_name=str(tmp_path / "lenet"),
                     file_format="MINDIR")
    model = ref.parse(open(path, "rb").read())
    assert model.mind_ir_version == 3 and model.little_endian and model.ir_version == "1.1"
    prims = {p.name: p for p in model.primitives}
    ops_used = [prims[n.op_type[5:]].op_type for n in model.graph.node if n.op_type.startswith("REF::")]
    assert ops_used == ["Conv2D", "ReLU", "MaxPool"] * 2 + ["Reshape"] + [
        "MatMul", "BiasAdd", "ReLU"] * 2 + ["MatMul", "BiasAdd"]
    conv = prims[model.graph.node[0].op_type[5:]]
    attrs = {a.name: a for a in conv.attribute}
    assert [v.ints[0] for v in attrs["kernel_size"].values] == [5, 5]
    assert attrs["pad_mode"].s == b"valid" and attrs["out_channel"].i == 6
    for tensor, p in zip(model.graph.parameter, net.get_parameters(), strict=True):
        assert (tensor.ref_key, list(tensor.dims), tensor.data_type) == (p.name, list(p.shape), 1)
        assert tensor.raw_data == p.asnumpy().astype("<f4").tobytes()
    assert [list(t.dims) for t in model.graph.input[0].tensor] == [[2, 1, 32, 32]]


def test_wire_codec_round_trips_negative_and_packed_numbers():
    message = {"name": "a", "i": -3, "ints": [-1, 0, 2**40], "type": schema.A_INT64,
               "values": [{"f": 0.5, "type": schema.A_FLOAT}]}
    back = wire.decode(memoryview(wire.encode(schema.ATTRIBUTE, message)), schema.ATTRIBUTE)
    assert back == message
    packed = bytes([10 << 3 | 2, 3, 1, 2, 127])  # ints = [1, 2, 127], packed
    assert wire.decode(memoryview(packed), schema.ATTRIBUTE) == {"ints": [1, 2, 127]}


# -- refusals ------------------------------------------------------------------------------------
def _one_line(error, *words):
    text = str(error.value)
    assert "\n" not in text
    for word in words:
        assert word in text


def test_bad_files_are_refused_naming_the_file(tmp_path):
    path = ms.export(_net("lenet"), Tensor(N.sample("lenet", 2)), file_name=str(tmp_path / "good"),
                     file_format="MINDIR")
    raw = open(path, "rb").read()
    cases = {"missing.mindir": None, "garbage.mindir": b"\xff" * 40, "empty.mindir": b"",
             "cut.mindir": raw[: len(raw) // 2], "text.mindir": b"hello world, not a model"}
    for name, data in cases.items():
        target = tmp_path / name
        if data is not None:
            target.write_bytes(data)
        with pytest.raises(MindIRError) as error:
            ms.load(str(target))
        _one_line(error, name)
    (tmp_path / "model.onnx").write_bytes(raw)
    with pytest.raises(MindIRError) as error:
        ms.load(str(tmp_path / "model.onnx"))
    _one_line(error, "model.onnx")


def test_unknown_op_is_refused_naming_op_and_file(tmp_path):
    path = ms.export(_net("lenet"), Tensor(N.sample("lenet", 2)), file_name=str(tmp_path / "net"),
                     file_format="MINDIR")
    model = wire.decode(memoryview(open(path, "rb").read()), schema.MODEL)
    for prim in model["primitives"]:
        if prim["op_type"] == "MaxPool":
            prim["op_type"] = "FancyPool"
    (tmp_path / "odd.mindir").write_bytes(wire.encode(schema.MODEL, model))
    with pytest.raises(MindIRError) as error:
        ms.load(str(tmp_path / "odd.mindir"))
    _one_line(error, "FancyPool", "odd.mindir")


def test_control_flow_subgraphs_are_refused(tmp_path):
    path = ms.export(_net("mlp"), Tensor(N.sample("mlp", 2)), file_name=str(tmp_path / "net"),
                     file_format="MINDIR")
    model = wire.decode(memoryview(open(path, "rb").read()), schema.MODEL)
    model["functions"] = [model["graph"]]  # where MindSpore writes the branches of an `if`
    (tmp_path / "branchy.mindir").write_bytes(wire.encode(schema.MODEL, model))
    with pytest.raises(MindIRError) as error:
        ms.load(str(tmp_path / "branchy.mindir"))
    _one_line(error, "subgraphs", "branchy.mindir")


def test_graph_cell_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="framework.load"):
        nn.GraphCell("model.mindir")
    path = ms.export(_net("mlp"), Tensor(N.sample("mlp", 2)), file_name=str(tmp_path / "m"),
                     file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path))
    with pytest.raises(TypeError, match="1 input"):
        cell(Tensor(N.sample("mlp", 2)), Tensor(N.sample("mlp", 2)))


class Sorting(nn.Cell):
    def construct(self, x):
        return ops.sort(x)[0] + 1


def test_primitive_without_conversion_is_refused(tmp_path):
    with pytest.raises(ExportError) as error:
        ms.export(Sorting(), Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "s"),
                  file_format="MINDIR")
    _one_line(error, "MINDIR", "Sort")
    assert not list(tmp_path.iterdir())
