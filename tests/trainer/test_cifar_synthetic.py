"""`dataset.name: cifar10|cifar100|synthetic` from YAML as a user runs it: a CIFAR-10 archive
in the official format under $TRAIN_DATA_DIR trains through the CLI (3 x 32 x 32,
per-channel normalisation), a damaged one exits 2 with one line; the synthetic data is
deterministic, trains equally in both modes, and bad settings stop at load with file:line;
`optimizer.name: rmsprop|lamb` train equally in both modes."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from datasets import make_synthetic
from tests.datasets.test_cifar import cifar10_members, write_tar
from tests.trainer.cli_env import ROOT
from trainer.cli import app
from trainer.config import ConfigError, load_config
from trainer.experiment import run_experiment
from trainer.tasks.classification import loaders

SYNTHETIC = """\
name: synth
model:  # the zoo's MLP, small (a module path: trainer.models.mlp:MLP)
  class: trainer.models.mlp:MLP
  args: {num_channel: 3, image_size: 8, hidden: 16, num_classes: 4}
dataset:
  name: synthetic
  args: {shape: [3, 8, 8], classes: 4, train_size: 64, test_size: 32}
  batch_size: 16
  resize: null
  normalize: [[0.5, 0.5, 0.5], [0.25, 0.25, 0.25]]
optimizer: {learning_rate: 0.05}
train: {epochs: 2}
checkpoint: {save_steps: 0}
"""


def test_synthetic_data_is_deterministic_balanced_and_cifar_shaped():
    x, y = make_synthetic("train", train_size=50, seed=3)
    again = make_synthetic("train", train_size=50, seed=3)
    np.testing.assert_array_equal(x, again[0])
    np.testing.assert_array_equal(y, again[1])
    assert x.shape == (50, 32, 32, 3) and x.dtype == np.uint8 and y.dtype == np.int32
    assert np.bincount(y).tolist() == [5] * 10
    other, _ = make_synthetic("train", train_size=50, seed=4)
    test, _ = make_synthetic("test", test_size=50, seed=3)
    assert not np.array_equal(x, other) and not np.array_equal(x, test)
    # a class's images are closer to each other than to other classes' (learnable)
    flat = x.reshape(50, -1).astype(np.float64)
    same = np.linalg.norm(flat[y == 0][0] - flat[y == 0][1])
    other_class = np.linalg.norm(flat[y == 0][0] - flat[y == 1][0])
    assert same < other_class


def test_synthetic_trains_equally_in_both_modes(workdir):
    (workdir / "exp.yaml").write_text(SYNTHETIC)
    config = load_config(workdir / "exp.yaml")
    train, test, _ = loaders(config)
    assert train.images.shape[1:] == (3, 8, 8)
    np.testing.assert_allclose(train.images.mean((0, 2, 3)), (make_synthetic(
        shape=(3, 8, 8), train_size=64, classes=4)[0].mean((0, 1, 2)) / 255 - 0.5) / 0.25,
        atol=1e-5)
    eager = run_experiment(load_config(workdir / "exp.yaml", ["mode=pynative"]), quiet=True,
                           log=False, checkpoint_dir="ck-e")
    graph = run_experiment(load_config(workdir / "exp.yaml", ["mode=graph"]), quiet=True,
                           log=False, checkpoint_dir="ck-g")
    np.testing.assert_allclose(graph.losses, eager.losses, rtol=1e-4, atol=1e-6)
    assert len(graph.losses) == 8


@pytest.mark.parametrize("override, message", [
    ("dataset.args.seeds=10", "unknown key 'dataset.args.seeds': synthetic has no parameter "
                              "'seeds' (did you mean 'dataset.args.seed'?)"),
    ("dataset.args.shape=[3, 32]", "'dataset.args.shape' must be tuple[int, int, int]"),
    ("dataset.args.shape=[3, 0, 8]", "shape must be [channels, height, width], each >= 1"),
    ("dataset.args.classes=0", "classes must be >= 1"),
    ("dataset.args.train_size='many'", "'dataset.args.train_size' must be an integer"),
    ("dataset.normalize=[[0.5, 0.5], [0.2]]", "'dataset.normalize' must be [mean, std]"),
])
def test_bad_synthetic_settings_name_the_key(workdir, override, message):
    (workdir / "exp.yaml").write_text(SYNTHETIC)
    with pytest.raises(ConfigError) as info:
        load_config(workdir / "exp.yaml", [override])
    assert message in str(info.value) and f"override '{override}'" in str(info.value)


def test_bad_synthetic_args_in_the_file_name_the_line(workdir):
    (workdir / "exp.yaml").write_text(SYNTHETIC.replace("classes: 4, train", "classes: -1, train"))
    with pytest.raises(ConfigError, match=r"exp.yaml:7: dataset.args: synthetic: classes must"):
        load_config(workdir / "exp.yaml")


CIFAR = """\
name: cifar
model:
  class: trainer.models.mlp:MLP
  args: {num_channel: 3, image_size: 32, hidden: 16}
dataset:
  name: cifar10
  batch_size: 8
  resize: null
  normalize: [[0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]]
train: {epochs: 1, log_every: 1}
checkpoint: {save_steps: 0}
mlflow: {log_model: false, system_metrics: false}
"""


@pytest.fixture
def cifar_dir(workdir, monkeypatch):
    data = workdir / "data"
    (data / "cifar10").mkdir(parents=True)
    monkeypatch.setenv("TRAIN_DATA_DIR", str(data))
    monkeypatch.setenv("XDG_CACHE_HOME", str(workdir / "cache"))
    monkeypatch.setattr("datasets.sources.SYSTEM_DIR", workdir / "no-system")
    (workdir / "exp.yaml").write_text(CIFAR)
    return data / "cifar10"


def test_cifar10_trains_from_the_cli(cifar_dir, workdir):
    members, expected = cifar10_members(8)
    write_tar(cifar_dir / "cifar-10-python.tar.gz", members)
    config = load_config(workdir / "exp.yaml")
    train, test, _ = loaders(config)
    rows = expected["train"][0].reshape(-1, 3, 32, 32).astype(np.float64) / 255
    mean, std = np.array(config.dataset.normalize)
    reference = (rows - mean[:, None, None]) / std[:, None, None]
    np.testing.assert_allclose(np.sort(train.images.ravel()), np.sort(reference.ravel()),
                               rtol=1e-5, atol=1e-5)
    assert train.num_samples == 40 and test.num_samples == 8
    result = CliRunner().invoke(app, ["run", str(workdir / "exp.yaml"), "--mode", "pynative",
                                      "mlflow.tracking_uri=sqlite:///" + str(workdir / "m.db")])
    assert result.exit_code == 0, result.output
    assert "cifar [pynative]: eval/accuracy" in result.output


def test_damaged_cifar_archive_exits_2_with_one_line(cifar_dir, workdir):
    members, _ = cifar10_members(8)
    path = write_tar(cifar_dir / "cifar-10-python.tar.gz", members)
    path.write_bytes(path.read_bytes()[:3000])
    result = CliRunner().invoke(app, ["run", str(workdir / "exp.yaml"), "--mode", "pynative"])
    assert result.exit_code == 2, result.output
    line = [t for t in result.output.splitlines() if "truncated or corrupt archive" in t]
    assert len(line) == 1 and str(path) in line[0]


def test_missing_cifar_without_download_says_where_it_looked(cifar_dir, workdir, monkeypatch):
    monkeypatch.setattr("datasets.cifar.CifarSpec.url", "file:///nonexistent/")
    result = CliRunner().invoke(app, ["run", str(workdir / "exp.yaml"), "--mode", "pynative"])
    assert result.exit_code == 2, result.output
    assert str(cifar_dir) in result.output and "cifar-10-python.tar.gz" in result.output


def test_rmsprop_and_lamb_from_yaml_build_mindspores_optimizers(workdir):
    from framework import nn
    from trainer.build import build_model_for

    (workdir / "exp.yaml").write_text(SYNTHETIC)
    config = load_config(workdir / "exp.yaml", ["optimizer={name: rmsprop, learning_rate: 0.01, "
                                                "centered: true, decay: 0.8}"])
    opt = build_model_for(config)[0].optimizer
    assert isinstance(opt, nn.RMSProp) and opt.centered and opt.decay == 0.8
    assert opt.momentum == 0.0 == config.optimizer.momentum  # MindSpore's default, not 0.9
    config = load_config(workdir / "exp.yaml", ["optimizer={name: lamb, weight_decay: 0.01}"])
    opt = build_model_for(config)[0].optimizer
    assert isinstance(opt, nn.Lamb) and opt.weight_decay == 0.01
    with pytest.raises(ConfigError, match="'optimizer.decay' must be in"):
        load_config(workdir / "exp.yaml", ["optimizer.decay=1.0"])


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["{name: rmsprop, learning_rate: 0.01, centered: true}",
                                       "{name: lamb, learning_rate: 0.02, weight_decay: 0.01}"])
def test_rmsprop_and_lamb_from_yaml_train_equally_in_both_modes(workdir, optimizer):
    (workdir / "exp.yaml").write_text(SYNTHETIC)
    over = [f"optimizer={optimizer}", "train.epochs=1"]
    eager = run_experiment(load_config(workdir / "exp.yaml", [*over, "mode=pynative"]), quiet=True,
                           log=False, checkpoint_dir="ck-e")
    graph = run_experiment(load_config(workdir / "exp.yaml", [*over, "mode=graph"]), quiet=True,
                           log=False, checkpoint_dir="ck-g")
    np.testing.assert_allclose(graph.losses, eager.losses, rtol=1e-4, atol=1e-6)


EXPERIMENTS = sorted(p.name for p in (ROOT / "experiments").glob("*.yaml"))


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_shipped_experiment_loads(name):
    config = load_config(ROOT / "experiments" / name)
    if "cifar" in name:
        smoke = load_config(ROOT / "experiments" / name.replace(
            "_cifar100", "_synthetic").replace("_cifar10", "_synthetic"))
        assert smoke.model.name == config.model.name and smoke.dataset.name == "synthetic"
        assert config.model.num_classes == (100 if "cifar100" in name else 10)


@pytest.mark.parametrize("name", ["resnet8_cifar10.yaml", "resnet20_cifar100.yaml"])
def test_cifar_experiment_with_the_synthetic_override_fits_the_model(name):
    from trainer.build import build_model_for
    from trainer.data import check_model_takes_data

    config = load_config(ROOT / "experiments" / name, [
        "dataset={name: synthetic, args: {train_size: 8, test_size: 4, classes: 10}}",
        "dataset.batch_size=4"])
    train, test, _ = loaders(config)
    assert train.images.shape == (8, 3, 32, 32)
    _, net = build_model_for(config)
    assert check_model_takes_data(net, {"train": train, "test": test}, name) == \
        config.model.num_classes


def test_args_on_a_dataset_that_takes_none(workdir):
    (workdir / "exp.yaml").write_text(SYNTHETIC.replace("name: synthetic", "name: cifar10"))
    with pytest.raises(ConfigError, match=r"exp.yaml:7: 'dataset.args' is for dataset.class .*"
                                          r"only synthetic takes args"):
        load_config(workdir / "exp.yaml")
