"""The sweep's parent MLflow run and what a sweep leaves behind when it stops.

One parent run per study (its id is kept in the study's user attrs, ``twinmode.mlflow_parent``,
so a restarted sweep, or one on another machine with the same tracking store, nests its
trials under the same parent). The parent gets:

- params: the search space (``space.<key>``), sampler, metric, direction, pruner; once the
  requested trials are done, the best trial's values as params ``best.<key>``;
- tags ``best.<key>``, ``best_trial``, ``best_run_id`` (updated whenever the best changes:
  MLflow params cannot change once written), and trial counts;
- metric ``best/<metric>`` (e.g. ``best/eval/accuracy``) with the number of counted trials as step;
- ``trials.json``, an MLflow table of all trials (trial, state, the metric, one column per
  swept key, seconds, child run id, note), shown as a table in the run's Artifacts tab,
  and ``trials.csv``, the same with the keys as written (``optimizer.learning_rate``). The
  table's key columns are named with ``/`` (``optimizer/learning_rate``): MLflow's table
  view reads a column named ``a.b`` as the path ``row.a.b`` and shows it empty;
- figures drawn with matplotlib by Optuna: ``optimization_history.png``,
  ``param_importances.png``, ``parallel_coordinate.png`` (each skipped with a warning when
  the study cannot draw it yet, e.g. fewer than two finished trials);
- ``best.yaml``: the experiment file with the sweep's fixed overrides and the best trial's
  values applied (its ``sweep:`` section left out), which ``train run`` accepts: what the
  user wrote plus what won, not every default spelt out.
"""

from __future__ import annotations

import csv
import io
import tempfile
import warnings
from pathlib import Path
from typing import Any

import yaml

from .metric import Metric
from .spec import SweepSpec
from .study import SweepStudy, with_lock

FIGURES = {"optimization_history": "plot_optimization_history",
           "param_importances": "plot_param_importances",
           "parallel_coordinate": "plot_parallel_coordinate"}


def parent_run(study: SweepStudy, uri: str, experiment: str, run_name: str,
               params: dict[str, Any], tags: dict[str, str]) -> Any:
    """The sweep's parent run in store ``uri``: the study's, else a new one recorded in the study."""
    from ..mlflow_logger import MLflowRun

    def open_or_create() -> Any:
        known = dict(study.attr("twinmode.mlflow_parent", {}))
        if uri in known:
            return MLflowRun(uri, experiment, run_name, run_id=known[uri])
        run = MLflowRun(uri, experiment, run_name)
        run.log_params(params)
        if run.online:
            known[uri] = run.run_id
            study.set_attr("twinmode.mlflow_parent", known)
        return run

    run = with_lock(study.locked(), open_or_create)
    run.set_tags(tags)
    return run


def best_trial(study: SweepStudy) -> Any | None:
    try:
        return study.study.best_trial
    except ValueError:  # no complete trial yet
        return None


def trial_table(study: SweepStudy, metric: Metric) -> dict[str, list[Any]]:
    """Every trial asked (not those waiting): column name -> values, the keys as written."""
    from optuna.trial import TrialState

    trials = [t for t in study.study.get_trials(deepcopy=False) if t.state != TrialState.WAITING]
    keys = list(dict.fromkeys(k for t in trials for k in t.params))
    columns: dict[str, list[Any]] = {name: [] for name in (
        "trial", "state", metric.name, *keys, "seconds", "mlflow_run_id", "note")}
    for t in trials:
        columns["trial"].append(t.number)
        columns["state"].append(t.state.name)
        columns[metric.name].append(t.value)
        for key in keys:
            columns[key].append(t.params.get(key))
        seconds = (t.datetime_complete - t.datetime_start).total_seconds() if (
            t.datetime_complete and t.datetime_start) else None
        columns["seconds"].append(round(seconds, 2) if seconds is not None else None)
        columns["mlflow_run_id"].append(t.user_attrs.get("mlflow_run_id"))
        note = t.user_attrs.get("error") or t.user_attrs.get("interrupted") or t.user_attrs.get("surplus")
        if t.user_attrs.get("retry_of") is not None:
            note = f"retry of trial {t.user_attrs['retry_of']}" + (f"; {note}" if note else "")
        columns["note"].append(note)
    return columns


def mlflow_table(columns: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The columns as MLflow's table view shows them: no ``.`` in a name (it would be read as
    a path into the row, and the column shown empty); ``a.b`` becomes ``a/b``."""
    return {name.replace(".", "/"): values for name, values in columns.items()}


def _csv(columns: dict[str, list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    writer.writerows(zip(*columns.values()))
    return out.getvalue()


def figures(study: SweepStudy, folder: Path) -> list[Path]:
    """PNG figures of the study (those it can draw now)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import optuna.visualization.matplotlib as vis

    made = []
    for name, function in FIGURES.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Optuna marks its matplotlib plots experimental
                ax = getattr(vis, function)(study.study)
            figure = (ax.flat[0] if hasattr(ax, "flat") else ax).figure
            figure.set_size_inches(9, 5)
            figure.tight_layout()
            path = folder / f"{name}.png"
            figure.savefig(path, dpi=100)
            plt.close(figure)
            made.append(path)
        except Exception as error:  # noqa: BLE001 - a figure the study cannot draw yet is skipped
            warnings.warn(f"sweep figure {name} skipped ({type(error).__name__}: "
                          f"{str(error).splitlines()[0] if str(error) else ''})", stacklevel=2)
            plt.close("all")
    return made


def best_config_yaml(spec: SweepSpec, best: Any) -> str:
    from ..config import OTHER_COMMANDS_SECTIONS, apply_overrides, read_yaml

    spec.config_for(dict(best.params))  # a config that loads (the trial ran it)
    data, _ = read_yaml(spec.file)
    data = {k: v for k, v in (data or {}).items() if k not in OTHER_COMMANDS_SECTIONS}
    apply_overrides(data, spec.overrides(dict(best.params)))
    head = (f"# best trial {best.number} of sweep over {spec.file}: "
            + ", ".join(f"{k}={v}" for k, v in best.params.items()) + "\n")
    return head + yaml.safe_dump(data, sort_keys=False)


def summarize(study: SweepStudy, spec: SweepSpec, metric: Metric, run: Any, target: int,
              best_out: Path | None) -> Any | None:
    """Record the study's state in the parent run (and ``best_out``); returns the best trial."""
    from framework._io import atomic_write

    census = study.census()
    best = best_trial(study)
    columns = trial_table(study, metric)
    states = columns["state"]
    run.set_tags({"trials_counted": census.counted, "trials_requested": target,
                  "trials_complete": states.count("COMPLETE"), "trials_pruned": states.count("PRUNED"),
                  "trials_failed": states.count("FAIL")})
    if best is not None:
        run.log_metric(metric.mlflow_name, float(best.value), census.counted)
        run.set_tags({"best_trial": best.number, "best_run_id": best.user_attrs.get("mlflow_run_id", ""),
                      **{f"best.{k}": v for k, v in best.params.items()}})
        if census.counted >= target and not study.attr("twinmode.best_params_logged"):
            run.log_params({f"best.{k}": v for k, v in best.params.items()})
            study.set_attr("twinmode.best_params_logged", best.number)
        text = best_config_yaml(spec, best)
        run.log_text(text, "best.yaml")
        if best_out is not None:
            atomic_write(best_out, text.encode())
    if states:
        run.log_table(mlflow_table(columns), "trials.json")
        run.log_text(_csv(columns), "trials.csv")
        with tempfile.TemporaryDirectory() as tmp:
            for path in figures(study, Path(tmp)):
                run.log_artifact(path)
    return best
