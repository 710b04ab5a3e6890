"""A pipeline whose third batch holds label 15 of 10 classes (past the pre-flight check of
the first batch): both modes stop at that step with exit 2 and the same one line; graph
mode trained on to exit 0 before (issue 28, item 2)."""

from __future__ import annotations

import pytest

from .helpers import experiment, train

DATA = """\
import numpy as np
import framework.dataset as ds


def make_dataset(split="train"):
    rng = np.random.default_rng(0)
    x = rng.random((64, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, 64).astype(np.int32)
    if split == "train":
        y[40] = 15
    return ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=False).batch(16)
"""


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_an_out_of_range_label_in_a_later_batch_stops_both_modes(tmp_path, mode):
    (tmp_path / "mydata.py").write_text(DATA)
    exp = experiment(tmp_path, "name: badlabel\nmodel:\n  name: lenet5\ndataset:\n"
                               "  class: mydata.py:make_dataset\ntrain:\n  epochs: 1\n"
                               "mlflow:\n  log_model: false\n  system_metrics: false\n")
    done = train(tmp_path, "run", str(exp), "--mode", mode, "--quiet")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == (
        "error: SoftmaxCrossEntropyWithLogits: label 15 is out of range for logits with 10 classes "
        "(labels must be in [0, 9]); give the network as many outputs as the data has classes")
