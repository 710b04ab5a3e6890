"""Checkpoints: round trips, corrupt files, network mismatches and atomic writes."""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn
from framework import serialization as ser
from framework.serialization import CheckpointError
from trainer.models import LeNet5


class SmallNet(nn.Cell):
    def __init__(self, hidden=4):
        super().__init__()
        self.fc = nn.Dense(3, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.out = nn.Dense(hidden, 2)

    def construct(self, x):
        return self.out(self.bn(self.fc(x)))


def _x(n=5):
    return Tensor(np.random.default_rng(0).standard_normal((n, 3)).astype(np.float32))


def _header(path):
    raw = Path(path).read_bytes()
    head_len = int.from_bytes(raw[8:16], "little")
    return raw, head_len, json.loads(raw[16:16 + head_len])


def _siblings(path):
    return sorted(p.name for p in Path(path).parent.iterdir())


# -- round trips ----------------------------------------------------------------------------


def test_round_trip_lenet(tmp_path):
    ms.set_seed(1)
    net = LeNet5()
    ms.set_seed(2)
    net2 = LeNet5()
    x = Tensor(np.random.default_rng(3).standard_normal((2, 1, 32, 32)).astype(np.float32))
    assert not np.allclose(net(x).asnumpy(), net2(x).asnumpy())
    path = tmp_path / "lenet.ckpt"
    ms.save_checkpoint(net, str(path))
    param_dict = ms.load_checkpoint(str(path))
    assert list(param_dict) == [p.name for p in net.get_parameters()]
    assert all(isinstance(v, Parameter) for v in param_dict.values())
    assert param_dict["conv1.weight"].name == "conv1.weight"
    missing, unused = ms.load_param_into_net(net2, param_dict)
    assert missing == [] and unused == []
    np.testing.assert_array_equal(net2(x).asnumpy(), net(x).asnumpy())
    for p, q in zip(net.get_parameters(), net2.get_parameters(), strict=True):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())
        assert q.asnumpy().dtype == np.float32
    # loading copies: changing the loaded network leaves the source alone
    net2.fc3.bias.set_data(np.zeros(10, np.float32))
    assert not np.array_equal(net.fc3.bias.asnumpy(), net2.fc3.bias.asnumpy())


def test_round_trip_includes_untrainable_and_pathlike(tmp_path):
    net = SmallNet()
    net.set_train()
    net(_x())  # moves the BatchNorm statistics away from 0 / 1
    net.set_train(False)
    path = tmp_path / "sub" / "small.ckpt"  # the folder is created
    ms.save_checkpoint(net, path)
    net2 = SmallNet()
    ms.load_checkpoint(path, net=net2)
    np.testing.assert_array_equal(net2.bn.moving_mean.asnumpy(), net.bn.moving_mean.asnumpy())
    np.testing.assert_array_equal(net2(_x()).asnumpy(), net(_x()).asnumpy())


def test_append_dict_values_come_back(tmp_path):
    net = nn.Dense(3, 2)
    path = str(tmp_path / "meta.ckpt")
    extra = np.arange(6, dtype=np.int32).reshape(2, 3)
    ms.save_checkpoint(net, path, append_dict={
        "epoch_num": 7, "lr": 0.125, "tag": "best", "flags": [1, 2], "nested": {"a": None},
        "extra": extra, "step_t": Tensor(np.array([3.5], np.float64)),
    })
    d = ms.load_checkpoint(path)
    assert d["epoch_num"] == 7 and d["lr"] == 0.125 and d["tag"] == "best"
    assert d["flags"] == [1, 2] and d["nested"] == {"a": None}
    np.testing.assert_array_equal(d["extra"].asnumpy(), extra)
    assert d["extra"].asnumpy().dtype == np.int32
    assert d["step_t"].asnumpy().dtype == np.float64
    np.testing.assert_array_equal(d["step_t"].asnumpy(), [3.5])
    net2 = nn.Dense(3, 2)
    missing, unused = ms.load_param_into_net(net2, d)
    assert missing == []
    # as MindSpore's ckpt_not_load: every entry of the dict that went nowhere, plain values too
    assert sorted(unused) == ["epoch_num", "extra", "flags", "lr", "nested", "step_t", "tag"]
    np.testing.assert_array_equal(net2.weight.asnumpy(), net.weight.asnumpy())


def test_save_dict_and_list_forms_and_dtypes(tmp_path):
    arrays = {
        "a": np.arange(4, dtype=np.float16), "b": np.array([[1, -2]], np.int64),
        "c": np.array([True, False]), "d": np.array([[2.5]], np.float64),
        "e": np.arange(3, dtype=np.uint8),
    }
    path = tmp_path / "dict.ckpt"
    ms.save_checkpoint({k: Tensor(v) for k, v in arrays.items()}, path)
    d = ms.load_checkpoint(path)
    for k, v in arrays.items():
        assert d[k].asnumpy().dtype == v.dtype, k
        assert d[k].shape == v.shape, k
        np.testing.assert_array_equal(d[k].asnumpy(), v)
    path2 = tmp_path / "list.ckpt"
    ms.save_checkpoint([{"name": "w", "data": Tensor(np.ones((2, 2), np.float32))}], path2)
    np.testing.assert_array_equal(ms.load_checkpoint(path2)["w"].asnumpy(), np.ones((2, 2)))


def test_any_object_with_parameters_and_names_saves_like_a_cell(tmp_path):
    class Holder:  # not a Cell: serialization takes what has parameters_and_names
        def parameters_and_names(self):
            yield "w", Parameter(Tensor(np.full((2, 3), 1.5, np.float32)), name="layer.w")

    ms.save_checkpoint(Holder(), tmp_path / "holder.ckpt")
    np.testing.assert_array_equal(ms.load_checkpoint(tmp_path / "holder.ckpt")["layer.w"].asnumpy(),
                                  np.full((2, 3), 1.5, np.float32))


def test_atomic_write_lives_in_a_leaf_module():
    from framework import _io

    assert ser.atomic_write is _io.atomic_write


def test_filter_prefix_and_choice_func(tmp_path):
    net = SmallNet()
    path = tmp_path / "f.ckpt"
    ms.save_checkpoint(net, path)
    d = ms.load_checkpoint(path, filter_prefix="bn.")
    assert not any(k.startswith("bn.") for k in d) and "fc.weight" in d
    d = ms.load_checkpoint(path, filter_prefix=["fc.", "out."])
    assert all(k.startswith("bn.") for k in d) and d
    d = ms.load_checkpoint(path, choice_func=lambda name: name.endswith("weight"))
    assert sorted(d) == ["fc.weight", "out.weight"]


def test_specify_prefix_and_empty_selections_as_mindspore(tmp_path):
    path = tmp_path / "p.ckpt"
    ms.save_checkpoint(SmallNet(), path, append_dict={"epoch": 2})
    assert sorted(ms.load_checkpoint(path, specify_prefix=["out.", "epoch"])) == [
        "epoch", "out.bias", "out.weight"]
    # a prefix overrides choice_func; both prefixes apply together
    d = ms.load_checkpoint(path, specify_prefix="fc.", filter_prefix="fc.b", choice_func=lambda n: False)
    assert list(d) == ["fc.weight"]
    with pytest.raises(CheckpointError, match="no entry of .*p.ckpt passes"):
        ms.load_checkpoint(path, specify_prefix="nothing.")
    with pytest.raises(TypeError, match="specify_prefix must be a str"):
        ms.load_checkpoint(path, specify_prefix=3)
    with pytest.raises(ValueError, match="filter_prefix must not be empty"):
        ms.load_checkpoint(path, filter_prefix=[""])


def test_zero_dim_tensor_keeps_shape(tmp_path):
    path = tmp_path / "scalar.ckpt"
    ms.save_checkpoint({"s": Tensor(np.array(2.5, np.float64))}, path)
    s = ms.load_checkpoint(path)["s"]
    assert s.shape == ()
    assert float(s.asnumpy()) == 2.5


def test_optimizer_state_round_trip(tmp_path):
    net = nn.Dense(3, 1)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = _x(), Tensor(np.ones((5, 1), np.float32))
    for _ in range(2):
        train(x, y)
    path = tmp_path / "train.ckpt"
    ms.save_checkpoint(train, path)
    d = ms.load_checkpoint(path)
    assert {"weight", "bias", "global_step", "learning_rate", "moments.weight",
            "moments.bias"} <= set(d)
    assert d["global_step"].asnumpy().dtype == np.int32 and int(d["global_step"].asnumpy()) == 2

    net2 = nn.Dense(3, 1)
    opt2 = nn.Momentum(net2.trainable_params(), 0.1, 0.9)
    train2 = nn.TrainOneStepCell(nn.WithLossCell(net2, nn.MSELoss()), opt2)
    assert ms.load_param_into_net(train2, d) == ([], [])
    # resumed training continues exactly like the original
    np.testing.assert_array_equal(train2(x, y).asnumpy(), train(x, y).asnumpy())
    np.testing.assert_array_equal(net2.weight.asnumpy(), net.weight.asnumpy())
    assert int(opt2.global_step.asnumpy()) == 3


def test_file_layout_is_documented_format(tmp_path):
    path = tmp_path / "layout.ckpt"
    ms.save_checkpoint({"w": Tensor(np.array([1.0, 2.0], np.float32))}, path)
    raw, head_len, header = _header(path)
    assert raw[:8] == b"TWMCKPT1"
    assert header["tensors"] == [
        {"name": "w", "dtype": "float32", "shape": [2], "offset": 0, "nbytes": 8}
    ]
    # raw little-endian data right after the header (no pickle anywhere)
    assert raw[16 + head_len:16 + head_len + 8] == np.array([1.0, 2.0], "<f4").tobytes()


# -- broken files ---------------------------------------------------------------------------


@pytest.fixture
def good_ckpt(tmp_path):
    path = tmp_path / "good.ckpt"
    ms.save_checkpoint(SmallNet(), path, append_dict={"epoch": 5})
    return path


def _raises_naming(path, pattern, exc=CheckpointError):
    with pytest.raises(exc) as info:
        ms.load_checkpoint(str(path))
    message = str(info.value)
    assert str(path) in message
    assert re.search(pattern, message), message
    assert "\n" not in message
    return message


def test_truncated_data(good_ckpt):
    raw = good_ckpt.read_bytes()
    good_ckpt.write_bytes(raw[:-7])
    _, head_len, header = _header(good_ckpt)
    expected = header["data_bytes"]
    _raises_naming(good_ckpt, rf"truncated.*expected {expected} bytes.*found {expected - 7}")


def test_truncated_header(good_ckpt):
    raw = good_ckpt.read_bytes()
    good_ckpt.write_bytes(raw[:40])
    _raises_naming(good_ckpt, r"truncated.*header")


def test_padded_file(good_ckpt):
    good_ckpt.write_bytes(good_ckpt.read_bytes() + b"\0\0")
    _raises_naming(good_ckpt, r"padded")


def test_flipped_data_byte_fails_checksum(good_ckpt):
    raw, head_len, _ = _header(good_ckpt)
    data = bytearray(raw)
    data[16 + head_len + 5] ^= 0x01
    good_ckpt.write_bytes(bytes(data))
    _raises_naming(good_ckpt, r"corrupt.*checksum")


def test_garbage_and_empty_files(tmp_path):
    garbage = tmp_path / "garbage.ckpt"
    garbage.write_bytes(os.urandom(256))
    _raises_naming(garbage, r"not a twinmode checkpoint")
    empty = tmp_path / "empty.ckpt"
    empty.write_bytes(b"")
    _raises_naming(empty, r"not a twinmode checkpoint")
    text = tmp_path / "text.ckpt"
    text.write_text("TWMCKPT1 but not really a checkpoint")
    with pytest.raises(CheckpointError, match=re.escape(str(text))):
        ms.load_checkpoint(text)


def test_corrupt_header_json(good_ckpt):
    raw, head_len, _ = _header(good_ckpt)
    data = bytearray(raw)
    data[16] = ord("#")  # the JSON's opening brace
    good_ckpt.write_bytes(bytes(data))
    _raises_naming(good_ckpt, r"corrupt header")


def test_missing_file(tmp_path):
    path = tmp_path / "nope.ckpt"
    msg = _raises_naming(path, r"does not exist", exc=FileNotFoundError)
    assert "nope.ckpt" in msg


def _edit_header(path, old, new):
    raw, head_len, _ = _header(path)
    head = raw[16:16 + head_len]
    assert head.count(old) >= 1 and len(old) == len(new)
    path.write_bytes(raw[:16] + head.replace(old, new, 1) + raw[16 + head_len:])


@pytest.mark.parametrize("old,new", [
    (b'"epoch": 5', b'"epoch": 7'),      # metadata silently changes
    (b'"fc.weight"', b'"fc.weighu"'),    # a tensor is silently renamed
    (b'"shape": [4, 3]', b'"shape": [3, 4]'),  # same size, silently transposed
    (b'"shape": [4, 3]', b'"shape": [4, 2]'),  # raw NumPy reshape error
])
def test_edited_header_is_refused(good_ckpt, old, new):
    _edit_header(good_ckpt, old, new)
    _raises_naming(good_ckpt, r"corrupt")


def test_any_flipped_byte_is_refused(good_ckpt):
    raw, head_len, _ = _header(good_ckpt)
    positions = [0, 7, 9, 16, 16 + head_len // 2, 16 + head_len - 1, 16 + head_len,
                 16 + head_len + 17, len(raw) - 1]
    for pos in positions:
        data = bytearray(raw)
        data[pos] ^= 0x04
        good_ckpt.write_bytes(bytes(data))
        with pytest.raises(CheckpointError) as info:
            ms.load_checkpoint(good_ckpt)
        assert str(good_ckpt) in str(info.value), pos
    good_ckpt.write_bytes(raw)
    assert ms.load_checkpoint(good_ckpt)["epoch"] == 5


# -- loading into networks ------------------------------------------------------------------


def test_load_into_different_network_names_mismatches(tmp_path):
    path = tmp_path / "h4.ckpt"
    ms.save_checkpoint(SmallNet(hidden=4), path)
    net = SmallNet(hidden=6)
    before = [p.asnumpy().copy() for p in net.get_parameters()]
    with pytest.raises(CheckpointError) as info:
        ms.load_checkpoint(path, net=net)
    msg = str(info.value)
    assert "fc.weight: checkpoint (4, 3) vs network (6, 3)" in msg
    assert "fc.bias: checkpoint (4,) vs network (6,)" in msg
    assert "out.weight: checkpoint (2, 4) vs network (2, 6)" in msg
    assert "bn.gamma" in msg
    assert "out.bias" not in msg  # (2,) fits
    # nothing was half-loaded
    for b, p in zip(before, net.get_parameters(), strict=True):
        np.testing.assert_array_equal(p.asnumpy(), b)


def test_load_dtype_mismatch_is_an_error(tmp_path):
    path = tmp_path / "f64.ckpt"
    ms.save_checkpoint({"weight": np.zeros((2, 3)), "bias": np.zeros(2, np.float32)}, path)
    with pytest.raises(CheckpointError, match=r"weight: checkpoint float64 vs network float32"):
        ms.load_checkpoint(path, net=nn.Dense(3, 2), strict_load=True)
    ms.save_checkpoint({"weight": np.zeros((2, 3), np.int32), "bias": np.zeros(2, np.float32)}, path)
    with pytest.raises(CheckpointError, match=r"weight: checkpoint int32 vs network float32"):
        ms.load_checkpoint(path, net=nn.Dense(3, 2))  # another kind: never converted


def test_load_converts_float_widths_without_strict_load(tmp_path):
    """As MindSpore: without strict_load a float of another width is cast, with a warning."""
    path = tmp_path / "f64.ckpt"
    weight = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    ms.save_checkpoint({"weight": weight, "bias": np.ones(2, np.float16)}, path)
    net = nn.Dense(3, 2)
    with pytest.warns(UserWarning, match=r"converted weight \(float64 to float32\), bias"):
        assert ms.load_param_into_net(net, ms.load_checkpoint(path)) == ([], [])
    assert net.weight.asnumpy().dtype == np.float32 and net.bias.asnumpy().dtype == np.float32
    np.testing.assert_array_equal(net.weight.asnumpy(), weight.astype(np.float32))
    np.testing.assert_array_equal(net.bias.asnumpy(), np.ones(2, np.float32))


def test_load_matches_names_under_one_prefix_without_strict_load(tmp_path):
    """As MindSpore: a checkpoint of a network that held this one loads by stripping the
    prefix; strict_load matches exact names only."""
    outer = SmallNet()
    path = tmp_path / "outer.ckpt"
    ms.save_checkpoint({f"backbone.{p.name}": p for p in outer.get_parameters()},
                       path, append_dict={"epoch": 3})
    net = SmallNet()
    with pytest.warns(UserWarning, match="'backbone.'"):
        missing, unused = ms.load_param_into_net(net, ms.load_checkpoint(path))
    assert missing == [] and unused == ["epoch"]
    np.testing.assert_array_equal(net(_x()).asnumpy(), outer(_x()).asnumpy())
    with pytest.raises(CheckpointError, match="lacks 8 parameter"):
        ms.load_param_into_net(SmallNet(), ms.load_checkpoint(path), strict_load=True)


def test_strict_load_with_missing_names(tmp_path):
    path = tmp_path / "partial.ckpt"
    net = SmallNet()
    ms.save_checkpoint({"fc.weight": net.fc.weight, "fc.bias": net.fc.bias,
                        "stray": np.ones(3, np.float32)}, path)
    d = ms.load_checkpoint(path)
    net2 = SmallNet()
    with pytest.raises(CheckpointError, match=r"lacks 6 parameter\(s\).*bn\.gamma.*out\.weight"):
        ms.load_param_into_net(net2, d, strict_load=True)
    out_before = net2.out.weight.asnumpy().copy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        missing, unused = ms.load_param_into_net(net2, d)
    assert any("out.weight" in str(w.message) for w in caught)
    assert missing == ["bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
                       "out.weight", "out.bias"]
    assert unused == ["stray"]
    np.testing.assert_array_equal(net2.fc.weight.asnumpy(), net.fc.weight.asnumpy())
    np.testing.assert_array_equal(net2.out.weight.asnumpy(), out_before)


def test_save_rejects_unsupported_objects(tmp_path):
    with pytest.raises(TypeError, match="cannot save a int"):
        ms.save_checkpoint(3, tmp_path / "x.ckpt")
    with pytest.raises(TypeError, match="unsupported tensor dtype"):
        ms.save_checkpoint({"s": np.array(["a"])}, tmp_path / "x.ckpt")
    assert not (tmp_path / "x.ckpt").exists()
    assert _siblings(tmp_path / "x.ckpt") == []


@pytest.mark.parametrize("value", [np.zeros(5, np.float32), 100])
def test_append_dict_key_colliding_with_parameter_is_refused(tmp_path, value):
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    key = "weight" if isinstance(value, np.ndarray) else "global_step"
    path = tmp_path / "clash.ckpt"
    with pytest.raises(ValueError, match=repr(key)):
        ms.save_checkpoint(opt, path, append_dict={key: value})


# -- atomic writes --------------------------------------------------------------------------


def test_failed_save_keeps_old_checkpoint(tmp_path):
    path = tmp_path / "model.ckpt"
    net = SmallNet()
    ms.save_checkpoint(net, path, append_dict={"epoch": 1})
    good = path.read_bytes()
    with pytest.raises(TypeError, match=r"append_dict\['bad'\] is a object"):
        ms.save_checkpoint(SmallNet(), path, append_dict={"epoch": 2, "bad": object()})
    with pytest.raises(TypeError, match="JSON"):
        ms.save_checkpoint(SmallNet(), path, append_dict={"bad": [object()]})
    assert path.read_bytes() == good
    assert _siblings(path) == ["model.ckpt"]
    assert ms.load_checkpoint(path)["epoch"] == 1


def test_failure_mid_write_leaves_no_partial_file(tmp_path):
    path = tmp_path / "model.ckpt"
    ms.save_checkpoint(nn.Dense(2, 2), path)
    good = path.read_bytes()
    # the second chunk cannot be written: the first one already went to the temp file
    with pytest.raises(TypeError):
        ser.atomic_write(path, [b"TWMCKPT1" + b"\0" * 1000, object()])
    assert path.read_bytes() == good
    assert _siblings(path) == ["model.ckpt"]
    ms.load_checkpoint(path)
    # a fresh target is not created by a failed write either
    fresh = tmp_path / "fresh.ckpt"
    with pytest.raises(TypeError):
        ser.atomic_write(fresh, [b"partial", None])
    assert not fresh.exists()
    assert _siblings(path) == ["model.ckpt"]


def test_overwrite_replaces_content(tmp_path):
    path = tmp_path / "m.ckpt"
    ms.save_checkpoint({"w": np.zeros(2, np.float32)}, path)
    ms.save_checkpoint({"w": np.ones(3, np.float32)}, path)
    np.testing.assert_array_equal(ms.load_checkpoint(path)["w"].asnumpy(), np.ones(3))
    assert _siblings(path) == ["m.ckpt"]
