"""``train run --profile``: time the graph-mode train step's kernels by source line
(:mod:`framework.profiler`), print the hot lines after the run and log them to MLflow.

Contracts: :func:`start` resets the profiler and turns profiling on for the run (each
compiled function: first call untimed, the next ``CALLS`` timed, later ones untimed, so
the run's speed figures cover mostly untimed steps); :func:`stop` turns it off whatever
happened; :func:`finish` returns the hot-lines table of the train step (the compiled
function named after the model's train network) and logs ``profile/profile.json`` and
``profile/profile.svg`` (all the compiled functions timed: the train step, evaluation)
to the run when there is one. Profiling covers graph mode only (the CLI refuses
``--profile`` with PyNative).
"""

from __future__ import annotations

import tempfile
from typing import Any

import framework as ms
from framework import profiler

CALLS = profiler.DEFAULT_CALLS
TOP = 10


def start() -> None:
    profiler.reset()
    ms.set_context(profile=CALLS)


def stop() -> None:
    ms.set_context(profile=False)


def finish(model: Any, record: Any) -> str:
    """The train step's hot-lines table; the profile's files logged to ``record`` (if any)."""
    stop()
    report = profiler.report()
    if record is not None:
        with tempfile.TemporaryDirectory(prefix="twinmode-profile-") as folder:
            for path in report.save(folder):
                record.log_artifact(path, "profile")
    step = type(model.train_network).__name__ if getattr(model, "train_network", None) else None
    return report.table(step if report.function(step) else None, top=TOP)
