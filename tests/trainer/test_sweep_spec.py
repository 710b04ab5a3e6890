"""`train sweep` input: grid expansion, search-space forms and their errors (file:line or the
override), metric names, pruners, and the one-line message without Optuna. No training."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import ConfigError, load_config
from trainer.sweep import space
from trainer.sweep.metric import MetricError, resolve
from trainer.sweep.spec import build_spec
from trainer.sweep.study import StudyError, parse_pruner

SMOKE = Path(__file__).resolve().parents[2] / "experiments" / "smoke.yaml"


def test_grid_is_the_product_in_hydra_order():
    spec = build_spec(SMOKE, ["optimizer.learning_rate=0.01,0.05,0.1", "dataset.batch_size=32,64",
                              "train.epochs=1"])
    assert spec.is_grid and spec.fixed == ["train.epochs=1"]
    expected = [{"optimizer.learning_rate": lr, "dataset.batch_size": bs}
                for lr, bs in itertools.product([0.01, 0.05, 0.1], [32, 64])]
    assert spec.grid() == expected
    config = spec.config_for(expected[3])
    assert (config.optimizer.learning_rate, config.dataset.batch_size, config.train.epochs) == (0.05, 64, 1)


def test_commas_inside_brackets_do_not_split():
    assert space.split_top_level("[0.1,0.3],[0.5,0.2]") == ["[0.1,0.3]", "[0.5,0.2]"]
    assert not space.is_space_text("[0.1,0.3]") and not space.is_space_text("'a,b'")
    spec = build_spec(SMOKE, ["dataset.normalize=[0.1,0.3]", "dataset.normalize=[0.1,0.3],[0.2,0.4]"])
    assert spec.dims["dataset.normalize"].values == ([0.1, 0.3], [0.2, 0.4])


@pytest.mark.parametrize("text, dim", [
    ("loguniform(1e-4, 1e-1)", space.Float(1e-4, 0.1, log=True)),
    ("uniform(0, 0.9, step=0.1)", space.Float(0.0, 0.9, step=0.1)),
    ("int(1, 8, step=2)", space.Int(1, 8, step=2)),
    ("int(16, 256, log=true)", space.Int(16, 256, log=True)),
    ("choice(32, 64, 128)", space.Choice((32, 64, 128))),
    ("choice(momentum, adam)", space.Choice(("momentum", "adam"))),
])
def test_search_space_forms(text, dim):
    assert space.parse(text) == dim
    assert space.parse(dim.text()) == dim  # the text a parent run logs reads back the same


@pytest.mark.parametrize("text, message", [
    ("loguniform(0, 1)", "low must be > 0"),
    ("uniform(1, 0.5)", "low must be below high"),
    ("int(1.5, 4)", "must be an integer"),
    ("loguniform(1e-4)", "needs a low and a high value"),
    ("choice()", "needs at least one value"),
    ("uniform(0, 1, log=true)", "has no option log"),
    ("normal(0, 1)", "unknown search space 'normal(...)'"),
])
def test_bad_search_space_on_the_command_line_names_the_override(text, message):
    with pytest.raises(ConfigError) as error:
        build_spec(SMOKE, [f"optimizer.learning_rate={text}"])
    assert str(error.value).startswith(f"override 'optimizer.learning_rate={text}'")
    assert message in str(error.value)


def test_space_values_are_checked_against_the_schema():
    with pytest.raises(ConfigError, match=r"value 0 is not valid: 'dataset.batch_size' must be >= 1"):
        build_spec(SMOKE, ["dataset.batch_size=0,32"])
    with pytest.raises(ConfigError, match="'dataset.batch_size' must be an integer"):
        build_spec(SMOKE, ["dataset.batch_size=uniform(16, 64)"])
    with pytest.raises(ConfigError, match="did you mean 'optimizer'"):
        build_spec(SMOKE, ["optimzer.learning_rate=0.1,0.2"])
    with pytest.raises(ConfigError, match="'optimizer.name' must be 'momentum' or 'sgd' or 'adam'"):
        build_spec(SMOKE, ["optimizer.name=choice(momentum, adagrad)"])


@pytest.mark.parametrize("order", [1, -1])
def test_with_two_spaces_the_error_names_the_one_whose_value_is_bad(order, tmp_path):
    """Each key is checked with the others at their first value: a bad first value of one key
    used to be blamed on the key checked before it."""
    lr, bad = "optimizer.learning_rate=loguniform(1e-3,1e-1)", "dataset.batch_size=choice(0,64)"
    with pytest.raises(ConfigError) as error:
        build_spec(SMOKE, [lr, bad][::order])
    assert str(error.value).startswith(f"override '{bad}': search space dataset.batch_size=choice(0,64): "
                                       "value 0 is not valid: 'dataset.batch_size' must be >= 1")
    exp = tmp_path / "exp.yaml"  # the same in a file: the bad key's own line
    exp.write_text("name: t\nsweep:\n  params:\n    optimizer.learning_rate: loguniform(1e-3, 1e-1)\n"
                   "    dataset.batch_size: [0, 64]\n")
    with pytest.raises(ConfigError, match=rf"^{exp}:5: search space dataset.batch_size=0,64: value 0"):
        build_spec(exp)


def test_spaces_in_the_yaml_with_file_and_line(tmp_path):
    exp = tmp_path / "exp.yaml"
    exp.write_text("name: t\noptimizer:\n  learning_rate: loguniform(1e-4, 1e-1)\n"
                   "sweep:\n  params:\n    dataset.batch_size: [32, 64]\n  trials: 5\n  metric: eval/loss\n")
    spec = build_spec(exp)
    assert spec.dims == {"optimizer.learning_rate": space.Float(1e-4, 0.1, log=True),
                         "dataset.batch_size": space.Choice((32, 64), grid=True)}
    assert spec.settings == {"trials": 5, "metric": "eval/loss"}
    assert load_config(exp, ["optimizer.learning_rate=0.01"]).dataset.batch_size == 32  # run skips sweep:
    assert build_spec(exp, ["optimizer.learning_rate=0.02"]).dims.keys() == {"dataset.batch_size"}

    with pytest.raises(ConfigError, match=rf"^{exp}:3: .*a search space is for `train sweep`"):
        load_config(exp)  # train run on a file with a space in a value says what to do
    exp.write_text("name: t\noptimizer:\n  learning_rate: loguniform(1e-1, 1e-4)\n")
    with pytest.raises(ConfigError, match=rf"^{exp}:3: 'optimizer.learning_rate': loguniform.*below high"):
        build_spec(exp)
    exp.write_text("name: t\nsweep:\n  params:\n    dataset.batch_size: [0, 32]\n")
    with pytest.raises(ConfigError, match=rf"^{exp}:4: search space dataset.batch_size=0,32: value 0"):
        build_spec(exp)
    exp.write_text("name: t\nsweep:\n  trails: 3\n")
    with pytest.raises(ConfigError, match=rf"^{exp}:3: unknown key 'sweep.trails'"):
        build_spec(exp)


@pytest.mark.parametrize("name, canonical, direction", [
    ("eval/accuracy", "eval/accuracy", "maximize"), ("test_accuracy", "eval/accuracy", "maximize"),
    ("final_test_accuracy", "eval/accuracy", "maximize"), ("test_loss", "eval/loss", "minimize"),
    ("train_epoch_loss", "train/loss", "minimize"), ("train/accuracy", "train/accuracy", "maximize"),
])
def test_metric_names_today_and_prefixed(name, canonical, direction):
    metric = resolve(name)
    assert (metric.name, metric.direction) == (canonical, direction)
    assert resolve(name, "minimize").direction == "minimize"


def test_unknown_metric_and_pruner():
    with pytest.raises(MetricError, match="unknown metric 'eval/f1'"):
        resolve("eval/f1")
    with pytest.raises(StudyError, match="unknown pruner 'asha'"):
        parse_pruner("asha", 3)
    with pytest.raises(StudyError, match="n_startup"):
        parse_pruner("median(n_startup=2)", 3)
    assert parse_pruner("median(n_startup_trials=2)", 3)._n_startup_trials == 2
    assert type(parse_pruner("hyperband", 3)).__name__ == "HyperbandPruner"


@pytest.mark.parametrize("args, message", [
    (["--sampler", "grid", "optimizer.learning_rate=loguniform(1e-4,1e-1)"], "is a range"),
    (["optimizer.learning_rate=0.1,0.2", "--trials", "3"], "the grid has only 2 points"),
    (["train.epochs=1"], "nothing to sweep"),
    (["optimizer.learning_rate=0.1,0.2", "--metric", "f1"], "unknown metric 'f1'"),
    (["optimizer.learning_rate=0.1,0.2", "--storage", "nosuchdb://x"], "cannot open the study database"),
])
def test_cli_bad_input_exits_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["sweep", str(SMOKE), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("\n") == 1


def test_without_optuna_one_line_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "optuna", None)  # as if it were not installed
    result = CliRunner().invoke(app, ["sweep", str(SMOKE), "optimizer.learning_rate=0.1,0.2"])
    assert result.exit_code == 2
    assert result.output == ("error: train sweep needs optuna: pip install -e '.[sweep]' "
                             "(Optuna + matplotlib)\n")


def test_a_grid_point_killed_before_its_params_were_suggested_is_retried(tmp_path):
    """A kill after Optuna's ask took an enqueued grid point but before its params were
    suggested leaves a trial with no params: its point must be enqueued again (seen in CI:
    the point was lost and the sampler drew a duplicate instead)."""
    import optuna
    from optuna.trial import TrialState

    from trainer.sweep.study import SweepStudy

    study = SweepStudy(f"sqlite:///{tmp_path / 'sweeps.db'}", "s", "maximize",
                       optuna.samplers.RandomSampler(seed=0), optuna.pruners.NopPruner())
    study.enqueue_grid([{"dataset.batch_size": 8}])
    orphan = study.study.ask()  # took the grid point; killed before suggesting it
    assert study.recover(locked=True) == [orphan.number]
    waiting = study.study.get_trials(states=(TrialState.WAITING,))
    assert [(t.system_attrs["fixed_params"], t.user_attrs["retry_of"]) for t in waiting] == \
        [({"dataset.batch_size": 8}, orphan.number)]
    assert study.recover(locked=True) == []  # retried once only
    assert len(study.study.get_trials(states=(TrialState.WAITING,))) == 1


def test_a_trial_whose_process_died_inside_ask_is_failed_under_the_lock(tmp_path):
    """A kill between Optuna's ask and our ``proc`` token leaves a running trial that names
    no process: the next ``ask`` (under the study lock) fails it instead of waiting forever;
    a recover without the lock leaves it (its process may still be inside ``ask``)."""
    import optuna
    from optuna.trial import TrialState

    from trainer.sweep.study import SweepStudy

    study = SweepStudy(f"sqlite:///{tmp_path / 'sweeps.db'}", "s", "maximize",
                       optuna.samplers.RandomSampler(seed=0), optuna.pruners.NopPruner())
    orphan = study.study.ask()  # created RUNNING, never given its token
    assert study.recover() == []
    assert study.study.get_trials()[orphan.number].state == TrialState.RUNNING
    assert study.recover(locked=True) == [orphan.number]
    trial = study.study.get_trials()[orphan.number]
    assert trial.state == TrialState.FAIL and "interrupted" in trial.user_attrs
