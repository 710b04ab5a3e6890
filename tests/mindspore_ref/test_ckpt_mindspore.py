"""MindSpore's ``.ckpt`` both ways (framework/checkpoint_formats/mindspore_ckpt.py).

Against an independent reference (``ckpt_proto_ref``: ``protobuf`` built from the ``.proto``
definition): files it writes load here, files written here parse there, for every dtype,
scalars, strings, sliced tensors and the CRC trailer; bad files are refused in one line.
Against MindSpore 2.10 itself when ``MINDSPORE_PYTHON`` names its Python (a subprocess:
``mindspore_ckpt_script.py``): it loads our LeNet-5 and gives our logits, and we load its.
"""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor
from framework.checkpoint_formats import mindspore_ckpt
from framework.serialization import CheckpointError
from tests.mindspore_ref import ckpt_proto_ref as ref
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore
from trainer.models import LeNet5

# MindSpore's tensor_type names (as MindSpore 2.10 writes them) and the NumPy dtype of each
MS_TYPES = {"Int8": np.int8, "UInt8": np.uint8, "Int16": np.int16, "UInt16": np.uint16,
            "Int32": np.int32, "UInt32": np.uint32, "Int64": np.int64, "UInt64": np.uint64,
            "Float16": np.float16, "Float32": np.float32, "Float64": np.float64, "Bool": np.bool_}


def _lenet(seed=1):
    ms.set_seed(seed)
    return LeNet5()


def _x():
    return np.random.default_rng(3).standard_normal((2, 1, 32, 32)).astype(np.float32)


def _sample(ttype, shape=(2, 3)):
    values = np.arange(-3, -3 + int(np.prod(shape))).reshape(shape) % 5
    return values.astype(MS_TYPES[ttype]) if ttype != "Bool" else values % 2 == 1


def test_lenet_round_trip_and_reference_parses_it(tmp_path):
    net, net2 = _lenet(1), _lenet(2)
    path = tmp_path / "lenet.ckpt"
    ms.save_checkpoint(net, path, format="mindspore", append_dict={"epoch_num": 3, "note": "hi"})
    values, crc = ref.decode(path.read_bytes())
    assert crc is None
    names = [p.name for p in net.get_parameters()]
    assert [v[0] for v in values] == [*names, "epoch_num", "note"]
    for (tag, dims, ttype, content), p in zip(values, net.get_parameters(), strict=False):
        assert (tag, dims, ttype) == (p.name, list(p.shape), "Float32")
        assert content == p.asnumpy().astype("<f4").tobytes()
    assert values[-2][1:] == ([], "Int64", np.int64(3).tobytes())  # as MindSpore: Tensor(3)
    assert values[-1][1:] == ([0], "str", "hi".encode("utf-32-le"))
    loaded = ms.load_checkpoint(path, net=net2)
    assert loaded["note"] == "hi" and isinstance(loaded["epoch_num"], Parameter)
    assert int(loaded["epoch_num"].asnumpy()) == 3
    np.testing.assert_array_equal(net2(Tensor(_x())).asnumpy(), net(Tensor(_x())).asnumpy())
    assert ms.load_param_into_net(net2, loaded) == ([], ["epoch_num", "note"])


@pytest.mark.parametrize("ttype", sorted(MS_TYPES))
def test_every_dtype_both_ways(tmp_path, ttype):
    arrays = {"m": _sample(ttype), "s": _sample(ttype, ()), "e": _sample(ttype, (0, 4))}
    ours = tmp_path / "ours.ckpt"
    ms.save_checkpoint(arrays, ours, format="ckpt")
    values, _ = ref.decode(ours.read_bytes())
    assert [(tag, dims, t) for tag, dims, t, _ in values] == [
        ("m", [2, 3], ttype), ("s", [], ttype), ("e", [0, 4], ttype)]
    for (_, _, _, content), array in zip(values, arrays.values(), strict=True):
        assert content == array.astype(array.dtype.newbyteorder("<")).tobytes()
    theirs = tmp_path / "theirs.ckpt"
    theirs.write_bytes(ref.encode([(k, list(a.shape), ttype, a.tobytes()) for k, a in arrays.items()]))
    for path in (ours, theirs):
        loaded = ms.load_checkpoint(path)
        for name, array in arrays.items():
            got = loaded[name].asnumpy()
            assert got.dtype == array.dtype and got.shape == array.shape, (path.name, name)
            np.testing.assert_array_equal(got, array)


def test_reference_file_with_scalar_dims_zero_strings_bfloat16_and_crc(tmp_path):
    bf16 = np.array([1.0, -2.5, 3.140625], np.float32).view(np.uint32) >> 16
    path = tmp_path / "ref.ckpt"
    path.write_bytes(ref.encode([
        ("w", [3], "BFloat16", bf16.astype("<u2").tobytes()),
        ("legacy_scalar", [0], "Float32", np.float32(1.5).tobytes()),  # MindSpore reads [0] as ()
        ("empty", [0], "Int32", b""),
        ("name", [0], "str", "résumé ✓".encode("utf-32-le")),
        ("step", [], "Int64", np.int64(-7).tobytes()),
    ], crc=True))
    with pytest.warns(UserWarning, match="bfloat16"):
        d = ms.load_checkpoint(path)
    np.testing.assert_array_equal(d["w"].asnumpy(), [1.0, -2.5, 3.140625])
    assert d["w"].asnumpy().dtype == np.float32
    assert d["legacy_scalar"].shape == () and float(d["legacy_scalar"].asnumpy()) == 1.5
    assert d["empty"].shape == (0,) and d["empty"].asnumpy().dtype == np.int32
    assert d["name"] == "résumé ✓" and int(d["step"].asnumpy()) == -7


def test_large_tensors_are_sliced_and_joined(tmp_path, monkeypatch):
    monkeypatch.setattr(mindspore_ckpt, "SLICE_BYTES", 40)
    big = np.arange(25, dtype=np.float32).reshape(5, 5)  # 100 bytes: slices of 40, 40, 20
    path = tmp_path / "sliced.ckpt"
    ms.save_checkpoint({"a": np.ones(2, np.int8), "big": big, "z": np.zeros(1, np.float64)}, path,
                       format="mindspore", crc_check=True)
    values, crc = ref.decode(path.read_bytes())
    assert crc is not None
    assert [(v[0], v[1], len(v[3])) for v in values] == [
        ("a", [2], 2), ("big", [5, 5], 40), ("big", [5, 5], 40), ("big", [5, 5], 20), ("z", [1], 8)]
    assert b"".join(v[3] for v in values[1:4]) == big.tobytes()
    np.testing.assert_array_equal(ms.load_checkpoint(path)["big"].asnumpy(), big)


def test_append_dict_values_follow_mindspore(tmp_path):
    path = tmp_path / "append.ckpt"
    ms.save_checkpoint({"w": np.zeros(2, np.float32)}, path, format="mindspore",
                       append_dict={"epoch": 2, "lr": 0.5, "best": True, "ids": [1, 2], "tag": "x"})
    types = {v[0]: (v[1], v[2]) for v in ref.decode(path.read_bytes())[0]}
    assert types == {"w": ([2], "Float32"), "epoch": ([], "Int64"), "lr": ([], "Float32"),
                     "best": ([], "Bool"), "ids": ([2], "Int64"), "tag": ([0], "str")}
    with pytest.raises(TypeError, match=r"append_dict\['cfg'\] is a dict"):
        ms.save_checkpoint({"w": np.zeros(2)}, path, format="mindspore", append_dict={"cfg": {}})
    assert len(ref.decode(path.read_bytes())[0]) == 6  # the failed save left the file alone


def test_crc_trailer_is_checked(tmp_path):
    path = tmp_path / "crc.ckpt"
    ms.save_checkpoint({"w": np.arange(4, dtype=np.float32)}, path, format="mindspore", crc_check=True)
    raw = path.read_bytes()
    assert raw[-17:-10] == b"crc_num" and int.from_bytes(raw[-10:], "big") == zlib.crc32(raw[:-17])
    bad = bytearray(raw)
    bad[-20] ^= 1  # a data byte
    path.write_bytes(bytes(bad))
    with pytest.raises(CheckpointError, match=r"crc\.ckpt is corrupt: its CRC32"):
        ms.load_checkpoint(path)


def _refused(path, pattern):
    with pytest.raises(CheckpointError) as info:
        ms.load_checkpoint(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message, message
    error = info.value
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__), \
        "a chained traceback"
    assert pattern in message, message
    return message


@pytest.mark.parametrize("values,pattern", [
    ([("w", [2], "Int4", b"\0")], "dtype 'Int4'"),
    ([("w", [2, 3], "Float32", b"\0" * 20)], "holds 20 bytes of data, but Float32 [2, 3] needs 24"),
    ([("w", [-1], "Float32", b"")], "negative dimension"),
    ([("m", "map")], "MapParameter"),
    ([("w", [1], "Int8", b"\0"), ("v", [1], "Int8", b"\0"), ("w", [1], "Int8", b"\0")],
     "'w' appears twice"),
    ([("w", [1], "Int8", b"\0"), ("w", [2], "Int8", b"\0\0")], "slices of 'w' disagree"),
    ([("s", [0], "str", b"abc")], "not a multiple of 4"),
])
def test_bad_contents_are_refused(tmp_path, values, pattern):
    path = tmp_path / "bad.ckpt"
    path.write_bytes(ref.encode(values))
    _refused(path, pattern)


def test_every_truncation_is_refused_or_ends_on_a_value(tmp_path):
    path = tmp_path / "cut.ckpt"
    arrays = {"a": np.arange(3, dtype=np.float32), "bb": np.ones((2, 2), np.int64)}
    ms.save_checkpoint(arrays, path, format="mindspore")
    raw = path.read_bytes()
    first = len(ref.encode([("a", [3], "Float32", arrays["a"].tobytes())]))
    for cut in range(1, len(raw)):
        path.write_bytes(raw[:cut])
        if cut == first:  # the format has no length: a cut between values is a valid file
            assert list(ms.load_checkpoint(path)) == ["a"]
            continue
        _refused(path, "")


def test_foreign_and_malformed_files(tmp_path):
    path = tmp_path / "x.ckpt"
    path.write_bytes(b"\x0a\x05\x0a\x03abc\xff\xff")  # the look of a .ckpt, then nonsense
    _refused(path, "not a valid MindSpore checkpoint")
    path.write_bytes(b"\x0a\x04\x0a\x02\xc3\x28")  # a tag that is not UTF-8
    _refused(path, "tag is not UTF-8")
    path.write_bytes(ref.encode([("w", [1], "Int8", b"\0")]) + b"\x0b\x01")  # a group: wire type 3
    _refused(path, "wire type 3")
    path.write_bytes(b"PK\x03\x04" + bytes(60))  # a zip (what torch.save writes)
    _refused(path, "not a twinmode checkpoint, a MindSpore .ckpt or a safetensors file")
    ms.save_checkpoint({"w": np.zeros(2, np.float32)}, path, format="mindspore")
    with pytest.raises(CheckpointError, match="is a mindspore file, not safetensors"):
        ms.load_checkpoint(path, format="safetensors")
    assert list(ms.load_checkpoint(path, format="ckpt")) == ["w"]


def test_unknown_fields_are_skipped_as_protobuf_does(tmp_path):
    path = tmp_path / "extra.ckpt"
    extra = b"\x10\x05" + b"\x1d\x00\x00\x00\x00"  # field 2 (varint) and field 3 (fixed32)
    path.write_bytes(ref.encode([("w", [2], "Int16", np.int16([1, 2]).tobytes())]) + extra)
    np.testing.assert_array_equal(ms.load_checkpoint(path)["w"].asnumpy(), [1, 2])


def test_unsupported_save_requests(tmp_path):
    with pytest.raises(ValueError, match="unknown format 'onnx'"):
        ms.save_checkpoint({"w": np.zeros(1)}, tmp_path / "a", format="onnx")
    with pytest.raises(ValueError, match="enc_key"):
        ms.save_checkpoint({"w": np.zeros(1)}, tmp_path / "a", enc_key=b"k" * 16)
    with pytest.raises(TypeError, match="no dtype for complex64"):
        ms.save_checkpoint({"w": np.zeros(1, np.complex64)}, tmp_path / "a", format="mindspore")
    assert not (tmp_path / "a").exists()


# -- against MindSpore itself -------------------------------------------------------------------

@needs_mindspore
def test_mindspore_reads_ours_and_we_read_its(tmp_path):
    pytest.importorskip("safetensors")
    net = _lenet(4)
    np.save(tmp_path / "x.npy", _x())
    ms.save_checkpoint(net, tmp_path / "ours_lenet.ckpt", format="mindspore",
                       append_dict={"epoch_num": 9, "note": "twinmode"})
    ms.save_checkpoint(net, tmp_path / "ours_lenet_crc.ckpt", format="mindspore", crc_check=True)
    ms.save_checkpoint(net, tmp_path / "ours_lenet.safetensors", format="safetensors")
    dtypes = {f"t_{t}": _sample(t) for t in MS_TYPES}
    ms.save_checkpoint(dtypes, tmp_path / "ours_dtypes.ckpt", format="mindspore", append_dict={"s": "ok"})
    done = subprocess.run([MINDSPORE_PYTHON, str(Path(__file__).with_name("mindspore_ckpt_script.py")),
                           str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GLOG_v": "3", "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-3000:]

    found = dict(np.load(tmp_path / "ms_read.npz"))
    ours = net(Tensor(_x())).asnumpy()
    for name in ("ours_lenet.ckpt", "ours_lenet_crc.ckpt", "ours_lenet.safetensors"):
        np.testing.assert_allclose(found[f"{name}:logits"], ours, rtol=1e-5, atol=1e-6)
    assert list(found["ours_lenet.ckpt:unused"]) == ["epoch_num", "note"]
    assert str(found["dtypes:s:str"]) == "ok"
    for ttype, array in ((t, _sample(t)) for t in MS_TYPES):
        np.testing.assert_array_equal(found[f"dtypes:t_{ttype}:{ttype}"], array)

    theirs = ms.load_checkpoint(tmp_path / "ms_lenet.ckpt")
    assert theirs["note"] == "ms" and int(theirs["epoch_num"].asnumpy()) == 4
    mine = _lenet(8)
    assert ms.load_param_into_net(mine, theirs) == ([], ["epoch_num", "note"])
    logits = np.load(tmp_path / "ms_logits.npy")
    np.testing.assert_allclose(mine(Tensor(_x())).asnumpy(), logits, rtol=1e-5, atol=1e-6)
    crc = ms.load_checkpoint(tmp_path / "ms_lenet_crc.ckpt")
    for p in mine.get_parameters():
        np.testing.assert_array_equal(crc[p.name].asnumpy(), p.asnumpy())
    with pytest.warns(UserWarning, match="bfloat16"):
        all_types = ms.load_checkpoint(tmp_path / "ms_dtypes.ckpt")
    expected = np.arange(-3, 3).reshape(2, 3) % 3
    for i, ttype in enumerate([*MS_TYPES, "BFloat16"]):
        got = all_types[f"t_{i}"].asnumpy()
        assert got.dtype == MS_TYPES.get(ttype, np.float32), ttype
        np.testing.assert_array_equal(got, expected.astype(got.dtype))
