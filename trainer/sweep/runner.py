"""``train sweep``: resolve the options, open the study and its parent run, run the workers,
summarize. The CLI (trainer/cli.py) is a thin layer over :func:`run_sweep`.

Options come from the command line, else the file's ``sweep:`` section, else defaults:
sampler ``grid`` when every dimension is a list of values (else ``tpe``); trials = the
grid's size (else 20); metric ``eval/accuracy`` (a language model's ``val/loss``);
direction from the metric; pruner ``none``; storage ``sqlite:///sweeps.db``; study
``<name>-sweep-<hash of the search>``, so running the same command again continues the same study.

While workers run, :class:`~trainer.sweep.live.SweepView` shows the trials (a table redrawn
in place on a terminal, a line per change otherwise); the sweep ends with the trials table
and the parent run's MLflow address (the CLI then prints the best trial).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..tasks import task_of
from .metric import MetricError, resolve
from .spec import SweepSpec, build_spec
from .study import (
    SAMPLERS,
    StudyError,
    SweepStudy,
    default_study_name,
    make_sampler,
    parse_pruner,
    storage_url,
)
from .worker import WorkerJob

DEFAULT_TRIALS = 20


@dataclass
class SweepOptions:
    trials: int | None = None
    sampler: str | None = None
    metric: str | None = None
    direction: str | None = None
    pruner: str | None = None
    workers: int = 1
    storage: str | None = None
    study: str | None = None
    seed: int | None = None
    best_out: Path | None = None


@dataclass
class SweepOutcome:
    study: str
    storage: str
    counted: int
    target: int
    best: Any
    metric: str
    parent_run_id: str | None
    seconds: float
    exit_code: int
    best_out: Path | None = None
    parent_url: str | None = None  # the parent run's page in the MLflow UI (None offline)


_FILE_SETTINGS = ("trials", "sampler", "metric", "direction", "pruner", "storage", "study")


def _merged(spec: SweepSpec, options: SweepOptions) -> SweepOptions:
    """A copy of ``options`` with each option not given filled from the file's ``sweep:``."""
    merged = dataclasses.replace(options)
    for key in _FILE_SETTINGS:
        if getattr(merged, key) is None and spec.settings.get(key) is not None:
            setattr(merged, key, spec.settings[key])
    return merged


def _checked_sampler(spec: SweepSpec, sampler: Any) -> str:
    """The sampler's name (default ``grid`` for an all-lists space, else ``tpe``), checked."""
    name = str(sampler or ("grid" if spec.is_grid else "tpe")).lower()
    if name not in SAMPLERS:
        raise StudyError(f"--sampler: unknown sampler '{name}'; use {', '.join(SAMPLERS)}")
    if name == "grid":
        make_sampler("grid", spec, None, False)  # says which key is a range, if one is
    return name


def _checked_trials(spec: SweepSpec, sampler: str, trials: Any) -> int:
    """The trial count (default: the grid's size for ``grid``, else 20), checked against it."""
    grid = len(spec.grid()) if spec.is_grid else None
    if trials is None:
        trials = grid if sampler == "grid" else DEFAULT_TRIALS
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise StudyError(f"--trials must be an integer >= 1, got {trials!r}")
    if sampler == "grid" and grid is not None and trials > grid:
        raise StudyError(f"--trials {trials}: the grid has only {grid} points; ask for at most "
                         f"{grid} or use --sampler tpe/random")
    return trials


def _default_metric(spec: SweepSpec) -> str:
    """``eval/accuracy``; a language model's ``val/loss`` (it has no accuracy)."""
    from ..config import read_yaml

    data, _ = read_yaml(spec.file)
    task = data.get("task") if isinstance(data, dict) else None
    overridden = [o.split("=", 1)[1] for o in spec.fixed if o.startswith("task=")]
    return "val/loss" if (overridden[-1] if overridden else task) == "language_model" else "eval/accuracy"


def _settings(spec: SweepSpec, options: SweepOptions) -> SweepOptions:
    """CLI options over the file's ``sweep:`` section over defaults, checked."""
    merged = _merged(spec, options)
    if not spec.dims:
        raise StudyError("nothing to sweep: give KEY=V1,V2 (a grid), KEY=loguniform(LOW,HIGH), "
                         "KEY=choice(A,B), or a sweep.params section in the file")
    merged.sampler = _checked_sampler(spec, merged.sampler)
    merged.trials = _checked_trials(spec, merged.sampler, merged.trials)
    if merged.workers < 1:
        raise StudyError(f"--workers must be >= 1, got {merged.workers}")
    merged.metric = str(merged.metric or _default_metric(spec))
    merged.pruner = str(merged.pruner or "none")
    return merged


def run_sweep(file: str | Path, overrides: list[str], options: SweepOptions,
              echo: Any = print) -> SweepOutcome:
    """Run (or continue) the sweep; ConfigError/StudyError/MetricError are bad input."""
    from ..mlflow_logger import git_commit, tracking_uri
    from .live import SweepView
    from .pool import run_workers, thread_share
    from .report import parent_run, summarize

    start = time.perf_counter()
    spec = build_spec(file, overrides)
    opts = _settings(spec, options)
    base = spec.config_for({k: _first(d) for k, d in spec.dims.items()})
    try:
        metric = resolve(opts.metric, opts.direction, task_of(base).metric_prefix)
    except MetricError as error:
        raise StudyError(str(error)) from None
    pruner = parse_pruner(opts.pruner, base.train.epochs)
    url = storage_url(opts.storage)
    name = opts.study or default_study_name(spec, base.name, metric.name, metric.direction, opts.sampler)
    study = SweepStudy(url, name, metric.direction, make_sampler(opts.sampler, spec, opts.seed, False),
                       pruner)
    study.check_same_search({"space": spec.space_texts(), "fixed": spec.fixed, "metric": metric.name,
                             "sampler": opts.sampler})
    if opts.sampler == "grid":
        from .study import with_lock

        with_lock(study.locked(), lambda: study.enqueue_grid(spec.grid()))
    with_recover = study.recover()
    uri = tracking_uri(base.mlflow.tracking_uri)
    run = parent_run(
        study, uri, base.mlflow.experiment, name if name.startswith(f"{base.name}-sweep-") else
        f"{base.name}-sweep-{name}",
        params={**{f"space.{k}": t for k, t in spec.space_texts().items()}, "sweep.sampler": opts.sampler,
                "sweep.metric": metric.name, "sweep.direction": metric.direction,
                "sweep.pruner": opts.pruner, "sweep.file": str(spec.file)},
        tags={"sweep.study": name, "sweep.storage": url, "git_commit": git_commit(),
              "experiment": base.name, "sweep.workers": opts.workers})
    census = study.census()
    echo(f"sweep '{name}' in {url}: {opts.trials} trials ({census.counted} done"
         + (f", {len(with_recover)} interrupted to retry" if with_recover else "")
         + f"), sampler {opts.sampler}, {metric.direction} {metric.name}, pruner {opts.pruner}, "
         f"{opts.workers} worker(s) x {thread_share(opts.workers)} thread(s); MLflow parent run "
         f"{run.run_id or '(offline)'}")
    job = WorkerJob(str(spec.file), list(overrides), url, name, metric.name, metric.direction,
                    opts.sampler, opts.pruner, opts.trials, base.train.epochs, run.run_id, opts.seed,
                    prefix=task_of(base).metric_prefix)
    view = SweepView(study, metric, list(spec.dims), opts.trials, echo)
    with view:
        code = run_workers(job, opts.workers, study, view)
    best = summarize(study, spec, metric, run, opts.trials, opts.best_out)
    counted = study.census().counted
    status = "KILLED" if code == 130 else ("FINISHED" if counted >= opts.trials else "FAILED")
    run.end(status)
    view.final(run.url)
    return SweepOutcome(name, url, counted, opts.trials, best, metric.name, run.run_id,
                        time.perf_counter() - start, code, opts.best_out if best is not None else None,
                        run.url)


def _first(dim: Any) -> Any:
    from .space import bounds

    return bounds(dim)[0]
