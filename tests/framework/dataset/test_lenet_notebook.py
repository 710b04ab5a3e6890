"""The MindSpore LeNet notebook (``lenet_notebook.py``) on real MNIST digits, in both modes:
3 epochs of ``Model.train`` then 2 of ``Model.fit``, at least 95% test accuracy."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

import framework as ms
from datasets import read_idx, write_idx

from . import lenet_notebook

SOURCE = Path(os.environ.get("TRAIN_DATA_DIR", "/nonexistent")) / "mnist-10k"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not SOURCE.is_dir(), reason=(
    "TRAIN_DATA_DIR with mnist-10k/ is not set (point it at shared/datasets)"))]


@pytest.fixture(scope="module")
def mnist_raw(tmp_path_factory):
    """mnist-10k as MindSpore's MNIST_Data folder: train/ and test/ holding raw IDX files."""
    root = tmp_path_factory.mktemp("MNIST_Data")
    for split, prefix in (("train", "train"), ("test", "t10k")):
        (root / split).mkdir()
        for kind in ("images-idx3-ubyte", "labels-idx1-ubyte"):
            write_idx(root / split / f"{prefix}-{kind}", read_idx(SOURCE / f"{prefix}-{kind}.gz"))
    return root


@pytest.fixture(scope="module")
def results(mnist_raw, tmp_path_factory):
    out = {}
    for name, mode in (("graph", ms.GRAPH_MODE), ("pynative", ms.PYNATIVE_MODE)):
        log = io.StringIO()
        acc, records = lenet_notebook.run(mnist_raw, tmp_path_factory.mktemp(f"ckpt_{name}"), mode, file=log)
        out[name] = (acc, records, log.getvalue())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return out


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_lenet_notebook_reaches_95_percent(results, mode):
    acc, records, log = results[mode]
    assert acc["Accuracy"] >= 0.95, log
    assert len(records) == 5 and all(r["steps"] == 10000 // 32 for r in records)
    assert re.search(r"^epoch: 3 step: \d+, loss is \d\.\d+$", log, re.M)
    assert re.search(r"^Eval result: epoch 2, metrics: \{'Accuracy': 0\.9\d+\}$", log, re.M)
    assert re.search(r"^Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms$", log, re.M)


def test_graph_steps_are_faster(results):
    graph = sorted(r["step_ms"] for r in results["graph"][1])[2]
    eager = sorted(r["step_ms"] for r in results["pynative"][1])[2]
    assert graph < eager
