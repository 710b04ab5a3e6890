"""Experiment YAML schema: defaults, overrides, and one-line errors with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.config import ConfigError, ExperimentConfig, load_config

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


@pytest.mark.parametrize("name", ["lenet.yaml", "lenet_fashion.yaml", "smoke.yaml"])
def test_shipped_experiments_are_valid(name):
    config = load_config(EXPERIMENTS / name)
    assert isinstance(config, ExperimentConfig) and config.model.name == "lenet5"


def test_lenet_matches_the_mindspore_tutorial():
    config = load_config(EXPERIMENTS / "lenet.yaml")
    assert (config.dataset.batch_size, config.optimizer.name, config.optimizer.learning_rate,
            config.optimizer.momentum, config.train.epochs) == (32, "momentum", 0.01, 0.9, 3)


def test_defaults_fill_missing_keys(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("name: tiny\n")
    config = load_config(path)
    assert config.name == "tiny" and config.mode == "graph" and config.train.epochs == 3
    assert config.checkpoint_dir == str(Path("checkpoints") / "tiny")


def test_overrides_are_typed_and_validated():
    config = load_config(EXPERIMENTS / "lenet.yaml", ["train.epochs=1", "dataset.limit=2000",
                                                      "mode=pynative", "optimizer.learning_rate=0.1"])
    assert (config.train.epochs, config.dataset.limit, config.mode) == (1, 2000, "pynative")
    assert config.optimizer.learning_rate == 0.1
    assert config.hash() != load_config(EXPERIMENTS / "lenet.yaml").hash()


@pytest.mark.parametrize("text, message", [
    ("name: x\noptimizer:\n  learnin_rate: 0.1\n",
     ":3: unknown key 'optimizer.learnin_rate' (did you mean 'optimizer.learning_rate'?)"),
    ("name: x\ntrian:\n  epochs: 1\n", ":2: unknown key 'trian' (did you mean 'train'?)"),
    ("name: x\ntrain:\n  epochs: three\n", ":3: 'train.epochs' must be an integer, got 'three'"),
    ("mode: fast\n", ":1: 'mode' must be 'graph' or 'pynative', got 'fast'"),
    ("dataset:\n  shuffle: 3\n", ":2: 'dataset.shuffle' must be true/false, got 3"),
    ("train:\n  epochs: 0\n", ":2: 'train.epochs' must be >= 1, got 0"),
    ("train: [\n", ": invalid YAML"),
    ("- a\n- b\n", "must be a mapping"),
])
def test_bad_files_name_file_line_and_key(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("override, message", [
    ("train.epochs=abc", "override 'train.epochs=abc': 'train.epochs' must be an integer"),
    ("optimzer.learning_rate=0.1", "unknown key 'optimzer' (did you mean 'optimizer'?)"),
    ("epochs", "expected KEY=VALUE"),
    ("graph.tuning=lots", "'graph.tuning'"),
])
def test_bad_overrides(override, message):
    with pytest.raises(ConfigError, match=None) as info:
        load_config(EXPERIMENTS / "lenet.yaml", [override])
    assert message in str(info.value)


def test_missing_file():
    with pytest.raises(ConfigError, match="experiment file not found"):
        load_config("nope.yaml")
