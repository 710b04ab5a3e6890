"""MindSpore's parameter names in its ``.ckpt``: a BatchNorm's statistics are ``bn.moving_mean``
and ``bn.moving_variance`` there (MindSpore 2.10 names a nested parameter after its attribute),
``bn.mean``/``bn.variance`` here. ``save_checkpoint(..., format="mindspore")`` writes MindSpore's
names and ``load_param_into_net`` takes either, checked against the protobuf reference
(``ckpt_proto_ref``) and, with ``MINDSPORE_PYTHON``, against MindSpore 2.10 itself on a
ResNet-20 both ways (``mindspore_resnet_script.py``), its safetensors file too.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from tests.mindspore_ref import ckpt_proto_ref as ref
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore
from trainer.models import build_model

# what MindSpore 2.10 calls the parameters of Net (printed by MindSpore for the same Net)
MINDSPORE_NAMES = ["conv.weight", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
                   "seq.0.moving_mean", "seq.0.moving_variance", "seq.0.gamma", "seq.0.beta"]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.seq = nn.SequentialCell([nn.BatchNorm2d(4)])

    def construct(self, x):
        return self.seq(self.bn(self.conv(x)))


def randomized(net, seed=0):
    """Every parameter (statistics included) set to values a mix-up would change."""
    rng = np.random.default_rng(seed)
    for p in net.get_parameters():
        values = rng.uniform(0.5, 1.5, p.shape) if "variance" in p.name or "gamma" in p.name \
            else rng.standard_normal(p.shape) * 0.2
        p.set_data(Tensor(values.astype(np.float32)))
    return net


def test_the_mindspore_format_holds_mindspore_names(tmp_path):
    net = randomized(Net())
    ms.save_checkpoint(net, tmp_path / "ms.ckpt", format="mindspore")
    values, _ = ref.decode((tmp_path / "ms.ckpt").read_bytes())
    assert sorted(v[0] for v in values) == sorted(MINDSPORE_NAMES)
    by_name = {v[0]: np.frombuffer(v[3], "<f4").reshape(v[1]) for v in values}
    np.testing.assert_array_equal(by_name["bn.moving_variance"], net.bn.moving_variance.asnumpy())
    np.testing.assert_array_equal(by_name["seq.0.moving_mean"], net.seq[0].moving_mean.asnumpy())
    # our own format holds the same names (parameters are named after their paths)
    ms.save_checkpoint(net, tmp_path / "ours.ckpt")
    assert sorted(ms.load_checkpoint(tmp_path / "ours.ckpt")) == sorted(MINDSPORE_NAMES)
    again = Net()
    loaded = ms.load_checkpoint(tmp_path / "ms.ckpt")
    assert ms.load_param_into_net(again, loaded, strict_load=True) == ([], [])
    for mine, theirs in zip(net.get_parameters(), again.get_parameters(), strict=True):
        np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy())


def test_a_reference_file_with_mindspore_names_loads_strictly(tmp_path):
    net = build_model("resnet8", num_classes=10)
    rng = np.random.default_rng(1)
    # MindSpore's name of a nested parameter is its attribute path
    expected = {path: rng.standard_normal(p.shape).astype(np.float32)
                for path, p in net.parameters_and_names()}
    assert "features.1.moving_mean" in expected and "features.1.mean" not in expected
    (tmp_path / "r.ckpt").write_bytes(ref.encode(
        [(k, list(a.shape), "Float32", a.tobytes()) for k, a in expected.items()], crc=True))
    assert ms.load_param_into_net(net, ms.load_checkpoint(tmp_path / "r.ckpt"), strict_load=True) == ([], [])
    for path, p in net.parameters_and_names():
        np.testing.assert_array_equal(p.asnumpy(), expected[path], err_msg=path)


def test_a_top_level_batchnorm_keeps_its_given_names(tmp_path):
    bn = nn.BatchNorm2d(3)  # MindSpore: mean, variance, gamma, beta (never nested, never renamed)
    (tmp_path / "bn.ckpt").write_bytes(ref.encode(
        [(k, [3], "Float32", np.full(3, i, np.float32).tobytes())
         for i, k in enumerate(["mean", "variance", "gamma", "beta"])]))
    assert ms.load_param_into_net(bn, ms.load_checkpoint(tmp_path / "bn.ckpt"), strict_load=True) == ([], [])
    assert bn.moving_variance.asnumpy().tolist() == [1.0] * 3 and bn.beta.asnumpy().tolist() == [3.0] * 3
    ms.save_checkpoint(bn, tmp_path / "ours.ckpt", format="mindspore")
    assert [v[0] for v in ref.decode((tmp_path / "ours.ckpt").read_bytes())[0]] == [
        "mean", "variance", "gamma", "beta"]


def test_a_prefix_and_both_names(tmp_path):
    net = randomized(Net(), 2)
    # a checkpoint of a network that held Net as ``backbone``, with MindSpore's names
    held = {f"backbone.{k}": Tensor(np.full(net.conv.weight.shape if k == "conv.weight" else 4, 7,
                                            np.float32)) for k in MINDSPORE_NAMES[:5]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        missing, unused = ms.load_param_into_net(net, held)
    said = " | ".join(str(w.message) for w in caught)
    assert "loading checkpoint names 'backbone.'" in said and "left unchanged: seq.0.moving_mean" in said
    assert missing == ["seq.0.moving_mean", "seq.0.moving_variance", "seq.0.gamma", "seq.0.beta"]
    assert unused == []
    assert float(net.bn.moving_mean.asnumpy()[0]) == 7.0
    # the name and the former name (our files before paths named parameters) both there:
    # the name is loaded, the former one reported unused
    both = {"bn.mean": np.zeros(4, np.float32), "bn.moving_mean": np.ones(4, np.float32)}
    with pytest.warns(UserWarning, match="not in the checkpoint"):
        assert ms.load_param_into_net(net, both)[1] == ["bn.mean"]
    assert float(net.bn.moving_mean.asnumpy().sum()) == 4.0


def test_our_former_names_still_load(tmp_path):
    """Files of ours written before parameters were named after their paths held BatchNorm's
    statistics as ``bn.mean``/``bn.variance``: they load strictly into today's network."""
    net = randomized(Net(), 3)
    values = {}
    for path, p in net.parameters_and_names():
        head, last = path.rsplit(".", 1) if "." in path else ("", path)
        last = {"moving_mean": "mean", "moving_variance": "variance"}.get(last, last)
        values[f"{head}.{last}" if head else last] = p.asnumpy() + 1
    assert "bn.mean" in values and "seq.0.variance" in values
    ms.save_checkpoint(values, tmp_path / "former.ckpt")
    again = Net()
    assert ms.load_param_into_net(again, ms.load_checkpoint(tmp_path / "former.ckpt"),
                                  strict_load=True) == ([], [])
    for mine, theirs in zip(net.get_parameters(), again.get_parameters(), strict=True):
        np.testing.assert_array_equal(mine.asnumpy() + 1, theirs.asnumpy())


@needs_mindspore
def test_mindspore_loads_our_resnet20_and_we_load_its(tmp_path):
    pytest.importorskip("safetensors")
    net = randomized(build_model("resnet20", num_classes=10), 3)
    net.set_train(False)
    x = np.random.default_rng(4).standard_normal((2, 3, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ms.save_checkpoint(net, tmp_path / "ours_resnet.ckpt", format="mindspore", crc_check=True)
    done = subprocess.run([MINDSPORE_PYTHON, str(Path(__file__).with_name("mindspore_resnet_script.py")),
                           str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "GLOG_v": "3", "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = dict(np.load(tmp_path / "ms_resnet.npz"))
    names = [v[0] for v in ref.decode((tmp_path / "ours_resnet.ckpt").read_bytes())[0]]
    assert sorted(names) == sorted(found["names"].tolist())  # MindSpore's own names, all of them
    assert found["not_loaded"].size == 0 and found["unused"].size == 0
    ours = net(Tensor(x)).asnumpy()
    assert np.isfinite(ours).all() and np.abs(ours).max() > 0.1
    np.testing.assert_allclose(found["logits_of_ours"], ours, rtol=1e-5, atol=1e-5 * np.abs(ours).max())

    for name in ("ms_resnet.ckpt", "ms_resnet.safetensors"):
        mine = build_model("resnet20", num_classes=10)
        mine.set_train(False)
        assert ms.load_param_into_net(mine, ms.load_checkpoint(tmp_path / name), strict_load=True) == ([], [])
        theirs = found["ms_logits"]
        assert np.isfinite(theirs).all() and np.abs(theirs).max() > 0.1
        np.testing.assert_allclose(mine(Tensor(x)).asnumpy(), theirs, rtol=1e-5,
                                   atol=1e-5 * np.abs(theirs).max(), err_msg=name)
