"""safetensors checkpoints (framework/checkpoint_formats/safetensors_io.py): round trips of
every dtype, appended values, MindSpore's crc_num, bad files; and PyTorch (a subprocess,
``torch_safetensors.py``, ``torch_safetensors_resnet.py``) loading our LeNet-5 and ResNet-20 by
name (a BatchNorm's through the README's mapping) to our logits, and we its.
Skipped without the ``safetensors`` package (the ``interop`` extra)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor
from framework.serialization import CheckpointError
from tests.torch_ref import needs_torch, reference
from trainer.models import LeNet5, build_model

safetensors_numpy = pytest.importorskip("safetensors.numpy")

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.uint16, np.uint32, np.uint64, np.bool_]


def _header(path):
    raw = Path(path).read_bytes()
    return json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])


def test_every_dtype_round_trips_and_the_library_reads_it(tmp_path):
    arrays = {f"t.{np.dtype(d).name}": (np.arange(-2, 4).reshape(2, 3) % 3).astype(d) for d in DTYPES}
    arrays["scalar"] = np.array(2.5, np.float32)
    arrays["empty"] = np.zeros((0, 3), np.int32)
    path = tmp_path / "all.safetensors"
    ms.save_checkpoint({k: Tensor(v) for k, v in arrays.items()}, path, format="safetensors")
    plain = safetensors_numpy.load_file(str(path))  # what any other program sees
    assert sorted(plain) == sorted(arrays)
    loaded = ms.load_checkpoint(path)
    for name, array in arrays.items():
        for got in (plain[name], loaded[name].asnumpy()):
            assert got.dtype == array.dtype and got.shape == array.shape, name
            np.testing.assert_array_equal(got, array)


def test_lenet_and_appended_values(tmp_path):
    ms.set_seed(1)
    net = LeNet5()
    ms.set_seed(2)
    net2 = LeNet5()
    path = tmp_path / "lenet.safetensors"
    ms.save_checkpoint(net, path, format="safetensors", append_dict={
        "epoch_num": 3, "lr": 0.5, "tag": "best", "cfg": {"a": [1, None]},
        "step": Tensor(np.array(12, np.int64))})
    header = _header(path)
    assert json.loads(header["__metadata__"]["twinmode.append_dict"]) == {
        "epoch_num": 3, "lr": 0.5, "tag": "best", "cfg": {"a": [1, None]}}
    assert header["step"]["dtype"] == "I64" and header["conv1.weight"]["shape"] == [6, 1, 5, 5]
    d = ms.load_checkpoint(path, net=net2)
    assert (d["epoch_num"], d["lr"], d["tag"], d["cfg"]) == (3, 0.5, "best", {"a": [1, None]})
    assert int(d["step"].asnumpy()) == 12
    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 32, 32)).astype(np.float32))
    np.testing.assert_array_equal(net2(x).asnumpy(), net(x).asnumpy())
    d = ms.load_checkpoint(path, choice_func=lambda n: n.startswith("fc3"))
    assert sorted(d) == ["fc3.bias", "fc3.weight"]


def test_crc_num_as_mindspore_writes_it(tmp_path):
    path = tmp_path / "crc.safetensors"
    arrays = {"b": np.arange(3, dtype=np.int32), "a": np.ones(2, np.float32)}
    ms.save_checkpoint(arrays, path, format="safetensors", crc_check=True)
    crc = 0
    for name in sorted(arrays):  # MindSpore's definition: name, then data, names sorted
        crc = zlib.crc32(arrays[name].tobytes(), zlib.crc32(name.encode(), crc))
    assert _header(path)["__metadata__"]["crc_num"] == str(crc)
    tampered = {**arrays, "b": np.array([0, 1, 3], np.int32)}
    path.write_bytes(safetensors_numpy.save(tampered, metadata={"crc_num": str(crc)}))
    with pytest.raises(CheckpointError, match="crc_num does not match"):
        ms.load_checkpoint(path)


def test_bfloat16_is_widened(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(safetensors_numpy.save({"w": np.array([1.0, -2.5], ml_dtypes.bfloat16)}))
    with pytest.warns(UserWarning, match="bfloat16"):
        w = ms.load_checkpoint(path)["w"].asnumpy()
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w, [1.0, -2.5])


def test_bad_files_are_refused_in_one_line(tmp_path):
    path = tmp_path / "bad.safetensors"
    ms.save_checkpoint({"w": np.arange(4, dtype=np.float32)}, path, format="safetensors")
    raw = path.read_bytes()
    for broken in (raw[:-3], raw + b"\0" * 4, raw[:20]):
        path.write_bytes(broken)
        with pytest.raises(CheckpointError) as info:
            ms.load_checkpoint(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}).encode()
    path.write_bytes(len(header).to_bytes(8, "little") + header + bytes(16))
    with pytest.raises(CheckpointError, match="not a valid safetensors file"):
        ms.load_checkpoint(path)
    ms.save_checkpoint({"w": np.zeros(1)}, path, format="safetensors")
    with pytest.raises(CheckpointError, match="is a safetensors file, not ckpt"):
        ms.load_checkpoint(path, format="ckpt")


@needs_torch
def test_pytorch_loads_our_lenet_and_we_load_its(tmp_path):
    ms.set_seed(3)
    net = LeNet5()
    ms.save_checkpoint(net, tmp_path / "ours_lenet.safetensors", format="safetensors",
                       append_dict={"epoch_num": 2})
    x = np.random.default_rng(5).standard_normal((3, 1, 32, 32)).astype(np.float32)
    out = reference(Path(__file__).with_name("torch_safetensors.py"), tmp_path, x=x)
    np.testing.assert_allclose(out["logits"], net(Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    theirs = LeNet5()
    assert ms.load_param_into_net(theirs, ms.load_checkpoint(tmp_path / "torch_lenet.safetensors"),
                                  strict_load=True) == ([], [])
    np.testing.assert_allclose(theirs(Tensor(x)).asnumpy(), out["theirs"], rtol=1e-5, atol=1e-6)


@needs_torch
def test_pytorch_loads_our_resnet20_and_we_load_its(tmp_path):
    ms.set_seed(4)
    net = build_model("resnet20", num_classes=10)
    rng = np.random.default_rng(6)
    for name, p in net.parameters_and_names():  # statistics and gammas off their 0s and 1s too
        values = rng.uniform(0.5, 1.5, p.shape) if name.endswith(("variance", "gamma")) \
            else p.asnumpy() + rng.normal(0, 0.2, p.shape)
        p.set_data(values.astype(np.float32))
    net.set_train(False)
    ms.save_checkpoint(net, tmp_path / "ours_resnet.safetensors", format="safetensors")
    assert "features.1.moving_mean" in safetensors_numpy.load_file(str(tmp_path / "ours_resnet.safetensors"))
    x = np.random.default_rng(7).standard_normal((3, 3, 32, 32)).astype(np.float32)
    out = reference(Path(__file__).with_name("torch_safetensors_resnet.py"), tmp_path, x=x)
    ours = net(Tensor(x)).asnumpy()
    assert np.isfinite(ours).all() and np.abs(ours).max() > 0.1
    np.testing.assert_allclose(out["logits"], ours, rtol=1e-5, atol=1e-5 * np.abs(ours).max())
    theirs = build_model("resnet20", num_classes=10)
    theirs.set_train(False)
    assert ms.load_param_into_net(theirs, ms.load_checkpoint(tmp_path / "torch_resnet.safetensors"),
                                  strict_load=True) == ([], [])
    np.testing.assert_allclose(theirs(Tensor(x)).asnumpy(), out["theirs"], rtol=1e-5,
                               atol=1e-5 * np.abs(out["theirs"]).max())
