"""Item 7: config edge cases are bad input (exit 2, one line naming what and where).

Before the fix a binary file gave a traceback (exit 1), ``1e-3`` was a string, duplicate
keys and empty files passed silently, impossible values failed later as "training failed",
a section override replaced the whole section and ``optimizer.lr`` got no suggestion.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.config import ConfigError, ExperimentConfig, load_config

from .helpers import experiment, train


def _error(path: Path, overrides: list[str] = ()) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, list(overrides))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_binary_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    file = tmp_path / "model.bin"
    file.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary")
    done = train(tmp_path, "run", str(file))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [f"error: {file}: not a text file (byte 0 is not UTF-8); "
                                                "an experiment is a YAML text file such as "
                                                "experiments/smoke.yaml"]


@pytest.mark.parametrize("text", ["1e-3", "1E-3", "+5e-4", "2.5e+1", ".5"])
def test_yaml_1_2_floats(tmp_path: Path, text: str) -> None:
    config = load_config(experiment(tmp_path, f"optimizer:\n  learning_rate: {text}\n"))
    assert config.optimizer.learning_rate == float(text)
    assert load_config(experiment(tmp_path, "name: x\n"), [f"optimizer.learning_rate={text}"]
                       ).optimizer.learning_rate == float(text)


def test_duplicate_keys_name_both_lines(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: a\noptimizer:\n  learning_rate: 0.1\n  momentum: 0.5\n"
                                "  learning_rate: 0.2\n")
    assert _error(file) == (f"{file}:5: key 'optimizer.learning_rate' is given twice (lines 3 and 5); "
                            "keep one")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file_is_refused(tmp_path: Path, text: str) -> None:
    assert "the file is empty" in _error(experiment(tmp_path, text))


@pytest.mark.parametrize("override, message", [
    ("model.num_classes=0", "'model.num_classes' must be >= 1, got 0"),
    ("model.num_channel=0", "'model.num_channel' must be >= 1, got 0"),
    ('name=""', "'name' must be a non-empty run name"),
    ("name=..", "'name' must be a non-empty run name"),
    ("seed=-5", "'seed' must be in [0, 2**32), got -5"),
    ("checkpoint.save_steps=-3", "'checkpoint.save_steps' must be >= 0"),
    ("checkpoint.save_seconds=0", "'checkpoint.save_seconds' must be > 0 or null"),
    ("dataset.normalize=[0.1, 0]", "'dataset.normalize' must be [mean, std] with std > 0"),
    ("dataset.resize=0", "'dataset.resize' must be >= 1"),
    ("optimizer.weight_decay=-1", "'optimizer.weight_decay' must be >= 0"),
    ("checkpoint.dir=exp.yaml", "'checkpoint.dir' must be a folder (it is a file)"),
])
def test_impossible_values_are_bad_input(tmp_path: Path, monkeypatch, override: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    file = experiment(tmp_path, "name: x\n")
    assert message in _error(file, [override])
    assert _error(file, [override]).startswith(f"override '{override}'")


def test_impossible_value_in_the_file_names_its_line(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: x\nseed: 1\nmodel:\n  num_classes: 0\n")
    assert _error(file).startswith(f"{file}:4: 'model.num_classes' must be >= 1")


def test_cli_exit_2_for_an_impossible_value(tmp_path: Path) -> None:
    done = train(tmp_path, "run", str(experiment(tmp_path, "name: x\n")), "seed=-5")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "error: override 'seed=-5': 'seed' must be in [0, 2**32), got -5"


def test_section_override_merges_into_the_section(tmp_path: Path) -> None:
    file = experiment(tmp_path, "name: x\ndataset:\n  name: mnist-10k\n  batch_size: 64\n  limit: 100\n")
    config = load_config(file, ["dataset={name: fashion-mnist, shuffle: false}"])
    assert (config.dataset.name, config.dataset.batch_size, config.dataset.limit, config.dataset.shuffle) == \
        ("fashion-mnist", 64, 100, False)
    assert config.dataset.resize == ExperimentConfig().dataset.resize  # defaults still fill the rest


@pytest.mark.parametrize("key, suggestion", [("optimizer.lr", "optimizer.learning_rate"),
                                              ("dataset.bs", "dataset.batch_size"),
                                              ("train.epoch", "train.epochs"),
                                              ("model.classes", "model.num_classes"),
                                              ("optimizer.learning_rte", "optimizer.learning_rate")])
def test_aliases_and_typos_get_a_suggestion(tmp_path: Path, key: str, suggestion: str) -> None:
    message = _error(experiment(tmp_path, "name: x\n"), [f"{key}=1"])
    assert f"unknown key '{key}' (did you mean '{suggestion}'?)" in message
