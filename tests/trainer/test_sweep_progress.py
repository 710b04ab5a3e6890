"""The sweep's piped progress lines (trainer/sweep/progress.py): a trial is announced once
its parameters are all suggested, never with half of them."""

from __future__ import annotations

from trainer.sweep.metric import Metric
from trainer.sweep.progress import RUNNING, STARTING, TrialView, changes

METRIC = Metric("train/loss", "loss", None, "minimize")


def test_a_trial_read_between_two_suggestions_is_announced_whole_on_the_next_reading():
    first = [TrialView(0, STARTING, {"optimizer.learning_rate": 0.05})]
    whole = {"optimizer.learning_rate": 0.05, "dataset.batch_size": 32}
    # a reading that also sees a fuller trial knows how many parameters there are
    early = [TrialView(0, STARTING, dict(first[0].params)), TrialView(1, RUNNING, dict(whole))]
    lines = [c.text for c in changes({}, early, METRIC, None)]
    assert lines == ["trial 1 started: optimizer.learning_rate=0.05, dataset.batch_size=32"]
    later = [TrialView(0, RUNNING, dict(whole)), TrialView(1, RUNNING, dict(whole))]
    lines = [c.text for c in changes({1: early[1]}, later, METRIC, None)]
    assert lines == ["trial 0 started: optimizer.learning_rate=0.05, dataset.batch_size=32"]
