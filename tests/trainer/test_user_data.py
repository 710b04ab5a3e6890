"""The user's own data from YAML: `dataset.name: npz` and `dataset.class` returning
(images, labels) arrays or a framework.dataset pipeline; the three routes give the same
training as the in-memory reference, and shapes/labels that do not fit the model stop
before the first step with exit 2 and the numbers."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import load_config
from trainer.experiment import run_experiment

MODEL = '''\
from framework import nn


class Tiny(nn.Cell):
    def __init__(self, num_classes: int = 3, side: int = 8):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(side * side, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, num_classes)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(self.flatten(x))))
'''

DATA = '''\
import numpy as np

from framework.dataset import NumpySlicesDataset


def arrays(split, n_train: int = 96):
    d = np.load("data.npz")
    return (d["x_train"][:n_train], d["y_train"][:n_train]) if split == "train" else (
        d["x_test"], d["y_test"])


def pipeline(split, batch: int = 16):
    x, y = arrays(split)
    x = (x.astype(np.float32) / 255)[:, None]  # the preprocessing the arrays route applies
    ds = NumpySlicesDataset((x, y.astype(np.int32)), column_names=["image", "label"], shuffle=False)
    return ds.batch(batch, drop_remainder=split == "train")


def wrong(split):
    return {"x": 1}


def flat_images(split):
    x, y = arrays(split)
    return x.reshape(len(x), -1)[:, :5][:, 0], y
'''

YAML = """\
name: own-data
model:
  class: models.py:Tiny
dataset:
  {source}
  batch_size: 16
  shuffle: false
  resize: null
  normalize: null
train:
  epochs: 2
checkpoint:
  save_steps: 0
"""


@pytest.fixture
def project(tmp_path, workdir):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (128, 8, 8)).astype(np.uint8)
    y = np.stack([x[:, :3].mean((1, 2)), x[:, 3:5].mean((1, 2)), x[:, 5:].mean((1, 2))], 1).argmax(1)
    np.savez(workdir / "data.npz", x_train=x[:96], y_train=y[:96], x_test=x[96:], y_test=y[96:])
    (workdir / "models.py").write_text(MODEL)
    (workdir / "mydata.py").write_text(DATA)
    return workdir


def experiment(project, source: str, name: str = "exp.yaml"):
    path = project / name
    path.write_text(YAML.format(source=source))
    return path


def losses(path, *overrides):
    config = load_config(path, list(overrides))
    result = run_experiment(config, quiet=True, log=False, checkpoint_dir=str(path.parent / "ck"))
    return result


def reference_losses(project, epochs: int = 2) -> list[float]:
    """The same training written by hand: the seeded Tiny net, Momentum 0.01/0.9, x/255."""
    import importlib.util

    import framework as ms
    from framework import Tensor, nn

    ms.set_context(mode=ms.PYNATIVE_MODE)
    spec = importlib.util.spec_from_file_location("ref_models", project / "models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_seed(0)
    net = module.Tiny()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    d = np.load(project / "data.npz")
    x = (d["x_train"].astype(np.float32) / 255)[:, None]
    out = []
    for _ in range(epochs):
        for i in range(0, 96, 16):
            out.append(float(step(Tensor(x[i:i + 16]), Tensor(d["y_train"][i:i + 16].astype(np.int32)))
                             .asnumpy()))
    return out


def test_npz_arrays_and_pipeline_train_like_the_hand_written_loop(project):
    expected = reference_losses(project)
    npz = losses(experiment(project, "name: npz\n  root: data.npz"), "mode=pynative")
    arrays = losses(experiment(project, "class: mydata.py:arrays"), "mode=pynative")
    piped = losses(experiment(project, "class: mydata.py:pipeline"), "mode=pynative")
    graph = losses(experiment(project, "name: npz\n  root: data.npz"), "mode=graph")
    assert len(expected) == 12
    for result in (npz, arrays, piped, graph):
        np.testing.assert_allclose(result.losses, expected, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(piped.metrics["accuracy"], npz.metrics["accuracy"])
    assert npz.metrics["loss"] == pytest.approx(graph.metrics["loss"], rel=1e-4)


def run_cli(path, *args):
    result = CliRunner().invoke(app, ["run", str(path), "--mode", "pynative", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("source, overrides, message", [
    ("name: npz\n  root: data.npz", ["model.args.num_classes=2"],
     "dataset (train) has labels 0..2 (3 classes) but the model"),
    ("name: npz\n  root: data.npz", ["model.args.num_classes=2"], "gives 2 outputs per sample"),
    ("name: npz\n  root: data.npz", ["model.args.side=6"],
     "cannot take the data's batches shaped (1, 8, 8) per sample"),
    ("name: npz\n  root: data.npz", ["dataset.resize=6"], "expected input (..., 64), got (2, 36)"),
    ("class: mydata.py:wrong", [], "dataset.class wrong(split='train') returned dict"),
    ("class: mydata.py:flat_images", [], "images must be numbers shaped N x H x W or N x H x W x C, "
                                         "got uint8 (96,)"),
    ("class: mydata.py:arrays", ["dataset.args.n_train=10"], "no batches: 10 samples < batch_size 16"),
    ("name: npz\n  root: missing.npz", [], "npz file missing.npz not found"),
])
def test_bad_data_exits_2_with_the_numbers(project, source, overrides, message):
    code, output = run_cli(experiment(project, source), *overrides)
    assert code == 2 and message in output, output


def test_npz_missing_arrays_and_bad_labels(project):
    np.savez(project / "bad.npz", x_train=np.zeros((32, 8, 8)), y_train=np.zeros(32))
    code, output = run_cli(experiment(project, "name: npz\n  root: bad.npz"))
    assert code == 2 and "no x_test, y_test in the .npz (it holds x_train, y_train)" in output
    np.savez(project / "bad.npz", x_train=np.zeros((32, 8, 8)), y_train=np.full(32, 0.5),
             x_test=np.zeros((32, 8, 8)), y_test=np.zeros(32))
    code, output = run_cli(experiment(project, "name: npz\n  root: bad.npz"))
    assert code == 2 and "labels must be class indices (integers), got float64" in output
    np.savez(project / "bad.npz", x_train=np.zeros((32, 8, 8)), y_train=np.zeros(31, int),
             x_test=np.zeros((32, 8, 8)), y_test=np.zeros(32, int))
    code, output = run_cli(experiment(project, "name: npz\n  root: bad.npz"))
    assert code == 2 and "labels must be 32 integers (one per image), got shape (31,)" in output


def test_dataset_function_must_take_split_and_args_are_checked(project):
    (project / "mydata.py").write_text(DATA + "\n\ndef nosplit(n: int = 1):\n    pass\n")
    code, output = run_cli(experiment(project, "class: mydata.py:nosplit"))
    assert code == 2 and "nosplit must take a `split` argument" in output
    code, output = run_cli(experiment(project, "class: mydata.py:arrays"), "dataset.args.n_trian=3")
    assert code == 2 and "did you mean 'dataset.args.n_train'" in output
    code, output = run_cli(experiment(project, "class: mydata.py:arrays\n  name: npz"))
    assert code == 2 and "not both" in output
    # an override of the name replaces the file's class (issue 27: back to a built-in source)
    code, output = run_cli(experiment(project, "class: mydata.py:arrays"), "dataset.name=npz")
    assert code == 2 and "dataset.name npz needs dataset.root" in output
