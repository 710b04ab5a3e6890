"""A user's own model class named from YAML (`model.class`, `model.args`): it trains in
both modes with the same losses; bad args and errors in the user's code exit 2 naming the
file and line."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import ConfigError, load_config
from trainer.experiment import run_experiment

from .cli_env import needs_data

MODEL = '''\
from typing import Literal

from framework import nn


class SmallCNN(nn.Cell):
    """A user's network: conv, pool, dense."""

    def __init__(self, channels: int, num_classes: int = 10, kernel: tuple[int, int] = (3, 3),
                 act: Literal["relu", "tanh"] = "relu", scale=1.0):
        super().__init__()
        if channels > 64:
            raise ValueError("channels must be <= 64")
        self.conv = nn.Conv2d(1, channels, kernel[0], pad_mode="same")
        self.act = nn.ReLU() if act == "relu" else nn.Tanh()
        self.pool = nn.MaxPool2d(kernel_size=4, stride=4)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(channels * 8 * 8, num_classes)

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.act(self.conv(x)))))
'''

EXPERIMENT = """\
name: mine
model:
  class: mymodels.py:SmallCNN
  args:
    channels: 4
    num_classes: 10
dataset:
  name: mnist-10k
  limit: 192
  test_limit: 64
train:
  epochs: 1
  log_every: 2
checkpoint:
  save_steps: 0
"""


@pytest.fixture
def experiment(tmp_path):
    folder = tmp_path / "project"  # the model file sits next to the YAML, not in the cwd
    folder.mkdir()
    (folder / "mymodels.py").write_text(MODEL)
    (folder / "exp.yaml").write_text(EXPERIMENT)
    return folder / "exp.yaml"


def error_of(path, *overrides) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, list(overrides))
    return str(caught.value)


def test_class_resolves_next_to_the_yaml_and_args_are_kept(experiment, workdir):
    config = load_config(experiment)
    assert config.model.class_ == f"{experiment.parent / 'mymodels.py'}:SmallCNN"
    assert config.model.args == {"channels": 4, "num_classes": 10}
    assert config.to_dict()["model"]["class"] == config.model.class_
    assert config.flat()["model.args.channels"] == 4


@needs_data
def test_user_model_trains_with_equal_losses_in_both_modes(experiment, workdir):
    results = {}
    for mode in ("pynative", "graph"):
        config = load_config(experiment, [f"mode={mode}"])
        results[mode] = run_experiment(config, quiet=True, log=False,
                                       checkpoint_dir=str(workdir / mode))
    eager, graph = results["pynative"], results["graph"]
    assert len(eager.losses) == 6 and eager.steps == graph.steps
    np.testing.assert_allclose(graph.losses, eager.losses, rtol=1e-4, atol=1e-5)
    assert eager.losses[-1] < eager.losses[0]  # it learns
    np.testing.assert_allclose(graph.metrics["loss"], eager.metrics["loss"], rtol=1e-4)


def test_unknown_argument_names_line_and_suggests(experiment):
    text = experiment.read_text().replace("    channels: 4", "    chanels: 4")
    experiment.write_text(text)
    assert error_of(experiment) == (
        f"{experiment}:5: unknown key 'model.args.chanels': SmallCNN has no parameter 'chanels' "
        "(did you mean 'model.args.channels'?)")


@pytest.mark.parametrize("line, message", [
    ("    channels: 4.5", "'model.args.channels' must be an integer, got 4.5"),
    ("    channels: '4'", "'model.args.channels' must be an integer, got '4'"),
    ("    channels: [4]", "'model.args.channels' must be an integer"),
    ("    kernel: [3, x]", "'model.args.kernel' must be tuple[int, int], got [3, 'x'] (at 1)"),
    ("    act: gelu", "'model.args.act' must be"),
])
def test_wrong_type_names_line(experiment, line, message):
    text = experiment.read_text().replace("    channels: 4\n", "    channels: 4\n" if "channels" not in line
                                          else "")
    lines = text.splitlines()
    lines.insert(4, line)
    experiment.write_text("\n".join(lines) + "\n")
    error = error_of(experiment)
    assert error.startswith(f"{experiment}:5: ") and message in error, error


def test_untyped_parameter_takes_any_value_and_lists_fill_tuples(experiment):
    config = load_config(experiment, ["model.args.scale=[1, 2]", "model.args.kernel=[5, 5]"])
    assert config.model.args["kernel"] == [5, 5]


def test_missing_required_argument(experiment):
    text = experiment.read_text().replace("    channels: 4\n", "")
    experiment.write_text(text)
    assert error_of(experiment) == (f"{experiment}:4: SmallCNN needs 'channels'; add it under "
                                    "model.args: {channels: ...}")


@pytest.mark.parametrize("value, message", [
    ("mymodels.py:SmallCNX", "has no 'SmallCNX' (did you mean 'SmallCNN'?)"),
    ("nothere.py:SmallCNN", "file nothere.py not found"),
    ("SmallCNN", "must be 'FILE.py:NAME' or 'package.module:NAME'"),
    ("no_such_pkg.mod:Net", "no module named 'no_such_pkg.mod'"),
])
def test_bad_class_names_the_line(experiment, value, message):
    experiment.write_text(experiment.read_text().replace("mymodels.py:SmallCNN", value))
    error = error_of(experiment)
    assert error.startswith(f"{experiment}:3: 'model.class'") and message in error, error


def test_module_path_class_and_name_with_class_is_refused(experiment, monkeypatch):
    monkeypatch.syspath_prepend(str(experiment.parent))
    config = load_config(experiment, ["model.class=mymodels:SmallCNN"])
    assert config.model.class_ == "mymodels:SmallCNN"
    back = load_config(experiment, ["model.name=lenet5"])  # an override of the name replaces
    assert back.model.name == "lenet5" and back.model.class_ is None and back.model.args == {}
    both = experiment.parent / "both.yaml"  # the class and its args (issue 27)
    both.write_text(experiment.read_text().replace("model:\n", "model:\n  name: lenet5\n", 1))
    assert "not both" in error_of(both)
    back = load_config(experiment, ["model.class=null"])  # the file's class and its args go
    assert back.model.name == "lenet5" and back.model.class_ is None and back.model.args == {}
    assert "'model.args' is for model.class" in error_of(
        experiment.parent / "exp.yaml", "model.class=null", "model.args.channels=4")


def test_built_in_name_still_works(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("name: x\nmodel: {name: lenet5, num_classes: 7}\n")
    config = load_config(path)
    assert config.model.class_ is None and config.model.num_classes == 7
    from trainer.models import LeNet5, network_for

    net = network_for(config.model)
    assert isinstance(net, LeNet5) and net.fc3.weight.shape == (7, 84)


def run_cli(*args) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@needs_data
def test_error_inside_user_init_names_user_file_and_line(experiment, workdir):
    code, output = run_cli("run", experiment, "model.args.channels=100", "--mode", "pynative")
    line = MODEL.splitlines().index('            raise ValueError("channels must be <= 64")') + 1
    assert code == 2, output
    assert f"{experiment.parent / 'mymodels.py'}:{line}: SmallCNN(...) raised ValueError: " \
           "channels must be <= 64" in output


def test_error_while_importing_user_file_names_its_line(experiment):
    (experiment.parent / "mymodels.py").write_text(MODEL + "\nundefined_name + 1\n")
    code, output = run_cli("run", experiment)
    assert code == 2
    line = len(MODEL.splitlines()) + 2
    assert f"{experiment.parent / 'mymodels.py'}:{line}: importing" in output
    assert "NameError" in output


@pytest.mark.parametrize("override, message", [
    ("model.args.chanels=3", "did you mean 'model.args.channels'"),
    ("model.args.channels=abc", "'model.args.channels' must be an integer, got 'abc'"),
])
def test_cli_exits_2_for_bad_args(experiment, workdir, override, message):
    code, output = run_cli("run", experiment, override)
    assert code == 2 and message in output and f"override '{override}'" in output, output


@pytest.mark.parametrize("old, new, message", [
    ("    channels: 4", "    chanels: 4", ":5: unknown key 'model.args.chanels'"),
    ("    channels: 4", "    channels: four", ":5: 'model.args.channels' must be an integer"),
    ("    channels: 4\n", "", ":4: SmallCNN needs 'channels'"),
])
def test_cli_exits_2_with_file_and_line(experiment, workdir, old, new, message):
    experiment.write_text(experiment.read_text().replace(old, new))
    code, output = run_cli("run", experiment)
    assert code == 2 and f"error: {experiment}{message}" in output, output


def test_print_config_shows_the_class_key(experiment, workdir):
    code, output = run_cli("run", experiment, "--print-config")
    assert code == 0 and "class: " in output and "mymodels.py:SmallCNN" in output
    assert "class_" not in output


def test_user_file_imports_its_siblings_and_runs_once(experiment):
    folder = experiment.parent
    (folder / "blocks_for_test.py").write_text("WIDTH = 6\n")
    (folder / "mymodels.py").write_text("import blocks_for_test\nRUNS = []\nRUNS.append(1)\n" + MODEL)
    config = load_config(experiment)
    from trainer.models import network_for

    net = network_for(config.model)
    module = __import__("sys").modules[type(net).__module__]
    assert module.blocks_for_test.WIDTH == 6 and module.RUNS == [1]


def test_syntax_error_names_file_and_line(experiment):
    (experiment.parent / "mymodels.py").write_text("class A(:\n    pass\n")
    error = error_of(experiment)
    assert error.startswith(f"{experiment.parent / 'mymodels.py'}:1: importing"), error
    assert textwrap.dedent(error).count("\n") == 0
