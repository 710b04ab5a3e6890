"""Callbacks by named phase (``phase``), their checkpointed state by ``state_key``, and the
``Monitor`` base early stopping and keep-best share."""

from __future__ import annotations

import pytest

from framework.train import Callback, CallbackList, EarlyStopping, History, ModelCheckpoint, RunContext
from framework.train.callbacks import BestCheckpoint
from framework.train.callbacks.base import PHASES
from framework.train.callbacks.monitor import Monitor, direction_of

from . import tiny


class Mark(Callback):
    def __init__(self, name, phase="default", log=None):
        self.name, self.phase, self.log = name, phase, log

    def on_train_epoch_end(self, ctx):
        self.log.append(self.name)


def test_callbacks_run_by_phase_then_in_list_order(tmp_path):
    log = []
    given = [Mark("save", "save", log), Mark("user1", log=log), Mark("log", "log", log),
             Mark("lr", "lr", log), Mark("monitor", "monitor", log), Mark("metrics", "metrics", log),
             Mark("user2", log=log)]
    tiny.model(mode="pynative").train(1, tiny.loader(), callbacks=given)
    assert log == ["lr", "user1", "user2", "metrics", "monitor", "log", "save"]
    assert PHASES == ("lr", "default", "metrics", "monitor", "log", "save")


def test_an_unknown_phase_is_refused_with_the_names():
    with pytest.raises(ValueError, match="Mark.phase must be one of lr, default, metrics, monitor, log"):
        CallbackList([Mark("x", "late", [])])


def test_state_keys_are_stable_and_old_checkpoints_load(tmp_path):
    saver = ModelCheckpoint("k", tmp_path)
    stop, hist, hist2 = EarlyStopping(patience=3), History(), History()
    cbs = CallbackList([saver, stop, hist, hist2])
    assert set(cbs.state_dict()) == {"checkpoint", "early_stopping", "history", "history#2"}
    # written before state keys: "<class>#<n>"
    cbs.load_state_dict({"EarlyStopping#1": {"best": 0.5, "best_epoch": 2, "wait": 1},
                         "History#2": {"history": {"loss": [1.0]}, "epochs": [1]}})
    assert (stop.best, stop.best_epoch, stop.wait) == (0.5, 2, 1)
    assert hist2.history == {"loss": [1.0]} and hist.history == {}


@pytest.mark.parametrize("monitor, mode, want", [("eval_accuracy", "auto", "max"), ("loss", "auto", "min"),
                                                 ("val_acc", "min", "min"), ("eval_loss", "max", "max")])
def test_direction_of_a_metric(monitor, mode, want):
    assert direction_of(monitor, mode) == want


def test_monitor_reads_the_metric_or_its_eval_name_and_improves_by_min_delta():
    m = Monitor("accuracy", min_delta=0.1)
    ctx = RunContext(metrics={"eval_accuracy": 0.5})
    assert m.value(ctx) == 0.5 and m.improves(0.5)
    m.record(0.5, 1)
    assert not m.improves(0.55) and m.improves(0.61)
    assert Monitor("loss").value(RunContext(metrics={"loss": float("nan")})) is None
    assert isinstance(EarlyStopping(), Monitor) and issubclass(BestCheckpoint, Monitor)
    assert EarlyStopping().phase == BestCheckpoint.phase == "monitor"


def test_keys_added_to_the_schema_at_their_defaults_are_no_config_change():
    from framework.train.checkpoint import config_changes

    old = {"train": {"epochs": 1}, "seed": 0}
    new = {"train": {"epochs": 2, "max_steps": None}, "seed": 0, "task": "classification"}
    defaults = {"train": {"epochs": 3, "max_steps": None}, "seed": 0, "task": "classification"}
    assert config_changes(old, new, defaults) == ["train.epochs: 1 -> 2"]
    assert config_changes(old, {**new, "task": "language_model"}, defaults) == [
        "task: added ('language_model')", "train.epochs: 1 -> 2"]
    assert "task: added ('classification')" in config_changes(old, new)  # without defaults: listed
