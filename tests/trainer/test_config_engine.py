"""The config engine: pydantic over the schema's dataclasses (strict YAML types, one-line
errors in file order), checks without side effects, and the one config hash."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

import framework as ms
from framework.train import config_hash
from trainer.config import ConfigError, ExperimentConfig, build_config, load_config, resolve_defaults
from trainer.config_checks import check_values, first_problem


def _load(tmp_path: Path, text: str, overrides: list[str] = ()) -> ExperimentConfig:
    path = tmp_path / "e.yaml"
    path.write_text(text)
    return load_config(path, list(overrides))


def _error(tmp_path: Path, text: str, overrides: list[str] = ()) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text, overrides)
    message = str(caught.value)
    assert "\n" not in message
    return message.replace(str(tmp_path / "e.yaml"), "F")


def test_integers_are_numbers_and_stay_floats(tmp_path):
    config = _load(tmp_path, "optimizer:\n  learning_rate: 1\ndataset:\n  normalize: [0, 1]\n")
    assert config.optimizer.learning_rate == 1.0 and type(config.optimizer.learning_rate) is float
    assert config.dataset.normalize == [0.0, 1.0] and all(type(v) is float for v in config.dataset.normalize)
    per_channel = _load(tmp_path, "dataset:\n  normalize: [[0, 0, 0], [1, 1, 1]]\n").dataset.normalize
    assert per_channel == [[0.0] * 3, [1.0] * 3] and type(per_channel[1][0]) is float


@pytest.mark.parametrize("text, message", [
    ("train:\n  epochs: 3.0\n", "F:2: 'train.epochs' must be an integer, got 3.0"),
    ("train:\n  epochs: '3'\n", "F:2: 'train.epochs' must be an integer, got '3'"),
    ("train:\n  epochs: true\n", "F:2: 'train.epochs' must be an integer, got True"),
    ("optimizer:\n  learning_rate: '0.1'\n", "F:2: 'optimizer.learning_rate' must be a number, got '0.1'"),
    ("optimizer:\n  momentum: true\n", "F:2: 'optimizer.momentum' must be a number or null, got True"),
    ("dataset:\n  shuffle: 1\n", "F:2: 'dataset.shuffle' must be true/false, got 1"),
    ("dataset:\n  shuffle: 'yes'\n", "F:2: 'dataset.shuffle' must be true/false, got 'yes'"),
    ("name: 12\n", "F:1: 'name' must be a string, got 12"),
    ("dataset:\n  normalize: [0.1, x]\n",
     "F:2: 'dataset.normalize' must be a list of numbers or lists of numbers or null, got [0.1, 'x']"),
    ("graph:\n  tuning: 1.5\n", "F:2: 'graph.tuning' must be a string or an integer, got 1.5"),
    ("model:\n  args: [1]\n", "F:2: 'model.args' must be a mapping of names to values, got [1]"),
    ("dist:\n  hosts: a\n", "F:2: 'dist.hosts' must be a list of strings or null, got 'a'"),
    ("optimizer:\n  schedule:\n    milestones: [1.5]\n",
     "F:3: 'optimizer.schedule.milestones' must be a list of integers or null, got [1.5]"),
    ("train: 3\n", "F:1: train must be a mapping of keys, got 3"),
    ("train:\n", "F:1: train must be a mapping of keys, got None"),
    ("optimizer:\n  schedule: [1]\n", "F:2: optimizer.schedule must be a mapping of keys, got [1]"),
    ("model:\n  class_: x.py:Net\n", "F:2: unknown key 'model.class_' (did you mean 'model.class'?)"),
    ("model:\n  class: 3\n", "F:2: 'model.class' must be a string or null, got 3"),
    ("train:\n  1: 2\n", "unknown key 'train.1'; valid keys: epochs, eval_every, log_every, "
                          "early_stopping, accumulate_grad_batches"),
    ("optimizer:\n  learning_rate: loguniform(1e-4, 1e-1)\n",
     "; a search space is for `train sweep`, or give one value: optimizer.learning_rate=VALUE"),
    ("train:\n  early_stopping:\n    patience: x\n",
     "F:3: 'train.early_stopping.patience' must be an integer, got 'x'"),
    ("train:\n  early_stopping:\n    patiense: 2\n",
     "F:3: unknown key 'train.early_stopping.patiense' (did you mean 'train.early_stopping.patience'?)"),
])
def test_type_errors_name_line_key_type_and_value(tmp_path, text, message):
    assert message in _error(tmp_path, text)


def test_the_first_error_in_file_order_is_reported(tmp_path):
    assert _error(tmp_path, "name: x\ntrain:\n  epochs: x\noptimizer:\n  lr: 0.1\n").startswith(
        "F:3: 'train.epochs' must be an integer")
    assert _error(tmp_path, "name: x\noptimizer:\n  lr: 0.1\ntrain:\n  epochs: x\n").startswith(
        "F:3: unknown key 'optimizer.lr' (did you mean 'optimizer.learning_rate'?)")
    assert _error(tmp_path, "seed: 1\ntrain:\n  epochs: x\n  log_every: y\n").startswith(
        "F:3: 'train.epochs'")


def test_an_override_error_names_the_override(tmp_path):
    message = _error(tmp_path, "name: x\n", ["train={epochs: x}"])
    assert message == "override 'train={epochs: x}': 'train.epochs' must be an integer, got 'x'"


def test_build_config_types_a_mapping():
    config = build_config({"name": "n", "model": {"class": "a.py:Net", "args": {"k": 1}}})
    assert config.model.class_ == "a.py:Net" and config.model.args == {"k": 1}
    assert config.optimizer.momentum is None  # resolve_defaults fills it, not the typing
    with pytest.raises(ConfigError, match=r"^config: 'seed' must be an integer, got 'x'$"):
        build_config({"seed": "x"})


def test_resolve_defaults_returns_a_new_config():
    typed = build_config({"optimizer": {"name": "rmsprop"}})
    resolved = resolve_defaults(typed)
    assert resolved.optimizer.momentum == 0.0 and typed.optimizer.momentum is None
    assert resolve_defaults(build_config({})).optimizer.momentum == 0.9
    assert resolve_defaults(resolved) is resolved


def test_checks_change_neither_the_config_nor_the_context():
    config = build_config({"graph": {"tuning": 2}})
    before = copy.deepcopy(config)
    ms.set_context(tuning="60s")
    try:
        check_values(config, lambda path: "f")
        assert ms.get_context("tuning") == "60s"
    finally:
        ms.set_context(tuning="off")
    assert config == before and config.optimizer.momentum is None


@pytest.mark.parametrize("tuning, ok", [("off", True), (0, True), (16, True), ("60s", True),
                                        ("1.5s", True), ("lots", False), (-1, False), ("s", False)])
def test_tuning_is_checked_without_setting_the_context(tuning, ok):
    found = first_problem(build_config({"graph": {"tuning": tuning}}))
    assert (found is None) == ok
    if not ok:
        assert found[0] == ("graph", "tuning") and found[1].startswith("'graph.tuning' must be 'off'")


def test_one_config_hash_for_runs_ranks_and_checkpoints():
    config = load_config(Path(__file__).resolve().parents[2] / "experiments" / "lenet.yaml")
    data = config.to_dict()
    assert config.hash() == config_hash(data)  # what Model(config=config.to_dict()) stores
    # the digest checkpoints written before the change hold: resuming them warns of nothing
    legacy = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    assert config.hash() == hashlib.sha256(legacy.encode()).hexdigest()[:16]
    changed = dataclasses.replace(config, train=dataclasses.replace(config.train, epochs=1))
    assert changed.hash() != config.hash()
