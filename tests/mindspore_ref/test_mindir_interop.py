"""MindIR against MindSpore 2.10 itself (needs ``MINDSPORE_PYTHON``; a subprocess runs
``mindir_script.py``): MindSpore's ``load`` + ``nn.GraphCell`` runs the files twinmode writes
and gives twinmode's outputs (at the exported batch and another), and twinmode's
``load`` + ``nn.GraphCell`` runs the files MindSpore writes, in both modes, and gives
MindSpore's outputs. The networks (``mindir_nets``: the tutorial MLP, LeNet-5, and two with
many more primitives) are built from one source in both engines with the same weights; our
exports of the trainer's ResNet-20 and MobileNetV2 are run by MindSpore too.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from tests.mindspore_ref import mindir_nets as N
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore
from trainer.models import build_model

SCRIPT = Path(__file__).with_name("mindir_script.py")
OURS = [*N.NETWORKS, "resnet20", "mobilenet_v2"]
pytestmark = needs_mindspore


def _tuple(out):
    return out if isinstance(out, tuple) else (out,)


def _assert_close(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    # float32 sums of up to 784 products in another order: relative to the output's scale
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6 * max(1.0, np.abs(want).max()))


def _ours(name):
    """Our network ``name`` (mindir_nets, or the trainer's zoo) with set weights, and its inputs."""
    if name in N.NETWORKS:
        net = N.NETWORKS[name][0](ms)
        inputs = [N.sample(name, 2), N.sample(name, 3, seed=3)]
    else:
        net = build_model(name, num_classes=10, num_channel=3)
        inputs = [N.sample("mixed", 2, seed=4).repeat(4, 2).repeat(4, 3)]  # (2, 3, 32, 32)
    net = N.set_weights(net, Tensor)
    net.set_train(False)
    return net, inputs


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Our files and inputs written, then MindSpore's script run once over them."""
    where = tmp_path_factory.mktemp("mindir")
    for name in OURS:
        net, inputs = _ours(name)
        ms.export(net, Tensor(inputs[0]), file_name=str(where / f"ours_{name}"), file_format="MINDIR")
        for j, x in enumerate(inputs):
            np.save(where / f"ours_{name}_in{j}.npy", x)
    env = {**os.environ, "GLOG_v": "3"}
    done = subprocess.run([MINDSPORE_PYTHON, str(SCRIPT), str(where)], cwd=where, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return where


@pytest.mark.parametrize("name", OURS)
def test_mindspore_runs_our_files(folder, name):
    error = folder / f"ms_on_ours_{name}.err"
    assert not error.is_file(), error.read_text() if error.is_file() else ""
    net, inputs = _ours(name)
    for j, x in enumerate(inputs):  # j = 1: another batch size than the exported one
        ours = _tuple(net(Tensor(x)))
        for k, o in enumerate(ours):
            theirs = np.load(folder / f"ms_on_ours_{name}_in{j}_{k}.npy")
            assert theirs.dtype == o.asnumpy().dtype
            _assert_close(theirs, o.asnumpy())
        assert not (folder / f"ms_on_ours_{name}_in{j}_{len(ours)}.npy").exists()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", list(N.NETWORKS))
def test_we_run_mindspore_files(folder, name, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    cell = nn.GraphCell(ms.load(str(folder / f"ms_{name}.mindir")))
    got = _tuple(cell(Tensor(N.sample(name, 2))))
    want = sorted(folder.glob(f"ms_{name}_[0-9]*.npy"))
    assert len(got) == len(want)
    for k, g in enumerate(got):
        theirs = np.load(folder / f"ms_{name}_{k}.npy")
        assert g.asnumpy().dtype == theirs.dtype
        _assert_close(g.asnumpy(), theirs)
