"""What the parent of a sweep sees of its trials while workers run them, read from the study.

The workers (on this machine or others) write everything the parent shows into the study's
storage: a trial's state and params (Optuna), the metric reported to the pruner at each
evaluation epoch (the trial's intermediate values), and user attrs: ``progress`` (the
epoch and step it trains, :class:`trainer.sweep.worker.PruningReporter`), ``error``,
``interrupted``, ``surplus``, ``retry_of`` (:mod:`trainer.sweep.study`).

:func:`read_trials` turns them into :class:`TrialView` rows (trials asked but not started,
and surplus ones, left out); :func:`changes` says, one line each, what changed between
two readings: a trial started, an epoch ended (with its reported value), a trial ended
(complete with its value and the best so far, pruned, failed, interrupted); a failed or
interrupted trial's line is marked as a problem (it goes to stderr).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .metric import Metric

# a trial's state as shown: Optuna's RUNNING is "starting" until training begins
STARTING, RUNNING, COMPLETE, PRUNED, FAILED, INTERRUPTED = (
    "starting", "running", "complete", "pruned", "failed", "interrupted")
ENDED = (COMPLETE, PRUNED, FAILED, INTERRUPTED)
COUNTED = (COMPLETE, PRUNED, FAILED)  # toward --trials (an interrupted trial is run again)


@dataclass(frozen=True)
class TrialView:
    number: int
    state: str
    params: dict[str, Any] = field(default_factory=dict)
    epoch: int | None = None  # the epoch training (1-based), or the last one trained
    epochs: int | None = None
    step: int | None = None
    steps: int | None = None
    done: int = 0  # epochs finished
    value: float | None = None  # the trial's value when complete, else the last reported one
    value_epoch: int | None = None  # the epoch of a reported value (None: the trial's value)
    reported: dict[int, float] = field(default_factory=dict)  # epoch -> the metric reported
    seconds: float | None = None  # run so far, or in all once ended
    note: str | None = None  # the error, or why it was interrupted
    retry_of: int | None = None  # the interrupted trial whose params it runs again

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    @property
    def counted(self) -> bool:
        return self.state in COUNTED


def _state(t: Any) -> str | None:
    from optuna.trial import TrialState

    if t.state == TrialState.RUNNING:
        return RUNNING if "progress" in t.user_attrs else STARTING
    if t.state == TrialState.FAIL and "surplus" in t.user_attrs:
        return None
    return {TrialState.COMPLETE: COMPLETE, TrialState.PRUNED: PRUNED,
            TrialState.FAIL: FAILED if "error" in t.user_attrs else INTERRUPTED}.get(t.state)


def view_of(t: Any, now: dt.datetime | None = None) -> TrialView | None:
    """The row of an Optuna trial (a FrozenTrial); None for one not shown."""
    state = _state(t)
    if state is None:
        return None
    progress = t.user_attrs.get("progress") or {}
    reported = t.intermediate_values
    last = max(reported) if reported else None
    value, value_epoch = (t.value, None) if state == COMPLETE else (
        (reported[last], last) if last is not None else (None, None))
    end = t.datetime_complete or (now or dt.datetime.now())
    seconds = (end - t.datetime_start).total_seconds() if t.datetime_start else None
    return TrialView(t.number, state, dict(t.params), progress.get("epoch"), progress.get("epochs"),
                     progress.get("step"), progress.get("steps"), int(progress.get("done", 0)),
                     value, value_epoch, dict(reported), seconds,
                     t.user_attrs.get("error") or t.user_attrs.get("interrupted"),
                     t.user_attrs.get("retry_of"))


def read_trials(study: Any) -> list[TrialView]:
    """Every started trial of ``study`` (a :class:`~trainer.sweep.study.SweepStudy`), by number."""
    now = dt.datetime.now()
    views = (view_of(t, now) for t in study.study.get_trials(deepcopy=False))
    return sorted((v for v in views if v is not None), key=lambda v: v.number)


def best_of(views: list[TrialView], direction: str) -> TrialView | None:
    """The complete trial with the best value (the first such, as Optuna's ``best_trial``)."""
    done = [v for v in views if v.state == COMPLETE and v.value is not None]
    if not done:
        return None
    pick = max if direction == "maximize" else min
    return pick(done, key=lambda v: v.value)


def show_value(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def show_params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={show_value(v)}" for k, v in params.items())


def _epochs(view: TrialView, epoch: int | None) -> str:
    return f"{epoch}/{view.epochs}" if view.epochs else str(epoch)


def _ended_line(view: TrialView, metric: Metric, best: TrialView | None) -> str:
    head = f"trial {view.number} {view.state}"
    took = f" ({view.seconds:.1f} s)" if view.seconds is not None else ""
    if view.state == COMPLETE:
        best_text = (f"; best so far: trial {best.number}, {best.value:.4f}" if best is not None
                     and best.number != view.number else "; the best so far")
        return f"{head}: {metric.name} {view.value:.4f}{took}{best_text}"
    if view.state == PRUNED:
        at = f" after epoch {_epochs(view, view.value_epoch)}" if view.value_epoch is not None else ""
        value = f": {metric.name} {view.value:.4f}" if view.value is not None else ""
        return f"{head}{at}{value}{took}"
    return f"{head}: {view.note or 'no reason recorded'}{took}"


class Change(NamedTuple):
    text: str
    problem: bool = False  # a trial failed or was interrupted


def announced(views: list[TrialView]) -> list[TrialView]:
    """The trials a reading can speak of: a running trial whose parameters are still being
    suggested (fewer than the widest trial's, nothing trained yet) waits for the next one."""
    width = max((len(v.params) for v in views), default=0)
    return [v for v in views if v.ended or v.done or len(v.params) >= width]


def changes(before: dict[int, TrialView], views: list[TrialView], metric: Metric,
            best: TrialView | None) -> list[Change]:
    """One line per change from ``before`` (the last reading, by number) to ``views``."""
    lines = []
    for view in announced(views):
        old = before.get(view.number)
        if old is not None and old.ended:
            continue
        if old is None:
            retry = f" (retry of trial {view.retry_of})" if view.retry_of is not None else ""
            lines.append(Change(f"trial {view.number} started: {show_params(view.params) or '(no params)'}"
                                + retry))
        for epoch in range(old.done + 1 if old else 1, view.done + 1):
            if view.state == PRUNED and epoch == view.value_epoch:
                break  # the pruned line says it
            value = f": {metric.name} {view.reported[epoch]:.4f}" if epoch in view.reported else ""
            lines.append(Change(f"trial {view.number} epoch {_epochs(view, epoch)}{value}"))
        if view.ended:
            lines.append(Change(_ended_line(view, metric, best), view.state in (FAILED, INTERRUPTED)))
    return lines
