"""A run's MLflow record: the run opened (or continued, for a resume), its inputs (params,
data, tags, config.yaml), its files at the end, the trained model. The executor
(trainer/executor.py) calls these; MLflow itself is reached through mlflow_logger.

A new run with the default name (no ``mlflow.run_name``) is named
``<name>-<mode>[-<what differs from the experiment file>]-<first 8 characters of its id>``
(trainer/run_names.py). Its experiment gets a saved runs-table
view, ``twinmode`` (MLflow 3's saved views: the experiment tag
``mlflow.sharedViewState.twinmode``, listed in the runs page's view menu and opened by
``#/experiments/<id>/runs?viewStateShareKey=twinmode``), whose columns are the key
metrics (``eval/accuracy``, ``val/loss``, ``perf/ms_per_step``) and the tags ``mode``,
``precision``, ``task``, ``model``, ``dataset``; a view of that name edited in the UI is kept.
MLflow 3's runs table takes its columns from the browser's storage, else its fixed defaults
(no metric): no store setting makes the view the default, so a run's summary ends with the
link that opens it (``runs:``)."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
import yaml

import datasets
from framework.train.callbacks import ModelCheckpoint
from framework.train.checkpoint import CheckpointRead

from .config import ExperimentConfig

VIEW_ID = "twinmode"
VIEW_TAG = f"mlflow.sharedViewState.{VIEW_ID}"
VIEW_COLUMNS = [("attributes", "Source"), ("attributes", "Models"), ("metrics", "eval/accuracy"),
                ("metrics", "val/loss"), ("metrics", "perf/ms_per_step"), ("tags", "mode"),
                ("tags", "precision"), ("tags", "task"), ("tags", "model"), ("tags", "dataset")]


def log_trained_model(run: Any, config: ExperimentConfig, resolved: dict[str, Any], checkpoint: str,
                      test: Any, classes: int) -> str | None:
    """The pyfunc model (``runs:/<id>/<experiment name>``); a failure to log it warns, training stands.
    Not for a ``framework.dataset`` pipeline (its preprocessing is the user's code)."""
    import warnings

    from .mlflow_model import log_model

    if hasattr(test, "create_tuple_iterator"):
        warnings.warn("the trained model was not logged to MLflow: dataset.class gives a pipeline, "
                      "whose preprocessing the logged model cannot repeat", stacklevel=2)
        return None
    try:
        d = config.dataset
        raw = getattr(test, "raw_examples", None)
        if raw is None:
            raw = datasets.load(d.name, "test", d.root, download=False)[0][:2]  # as the files hold them
        from .mlflow_model import class_names

        return log_model(run, resolved, checkpoint, np.asarray(raw), classes, config.mlflow.register,
                         class_names(config, classes))
    except Exception as error:  # noqa: BLE001 - the run and its checkpoints are already logged
        warnings.warn(f"the trained model was not logged to MLflow ({type(error).__name__}: {error})",
                      stacklevel=2)
        return None


def open_run(config: ExperimentConfig, uri: str, name: str, parent_run_id: str | None,
             resume: CheckpointRead | None, unique: bool = False) -> Any:
    """A new MLflow run, or, for a resume, the run its checkpoint was logged to (tagged
    ``resumes``: each resume's checkpoint and time). ``unique``: a default name (not
    ``mlflow.run_name``, nor a sweep trial's), completed with the run id's first characters."""
    from .mlflow_logger import MLflowRun, StoreUnreachable

    previous = previous_run_id(resume, uri) if resume is not None else None
    common = {"parent_run_id": parent_run_id, "system_metrics": config.mlflow.system_metrics}
    if previous:
        try:
            run = MLflowRun(uri, config.mlflow.experiment, name, run_id=previous, fallback=False,
                            **common)
            earlier = run.client.get_run(previous).data.tags.get("resumes", "")
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            run.set_tags({"resumes": "; ".join(filter(None, [earlier, f"{stamp} from {resume.path}"]))})
            add_runs_view(run.client, run.experiment_id)
            return run
        except StoreUnreachable:
            pass  # the run is gone (or the store is): a new run, or the offline file
    run = MLflowRun(uri, config.mlflow.experiment, name, unique_name=unique, **common)
    if run.online:
        add_runs_view(run.client, run.experiment_id)
    return run


def runs_view() -> str:
    """The ``twinmode`` saved view as MLflow's UI stores one: an envelope whose ``state``
    is the runs table's state (columns as ``<type>.`<name>```)."""
    state = {"selectedColumns": [f"{kind}.`{name}`" for kind, name in VIEW_COLUMNS],
             "orderByKey": "attributes.start_time", "orderByAsc": False}
    stamp = int(time.time() * 1000)
    return json.dumps({"name": "twinmode: key metrics", "createdAt": stamp, "updatedAt": stamp,
                       "state": json.dumps(state)})


def view_url(run: Any) -> str | None:
    """The experiment's runs table in the ``twinmode`` view (None offline)."""
    if not run.online:
        return None
    from .ui import ui_base_url

    return f"{ui_base_url(run.uri)}/#/experiments/{run.experiment_id}/runs?viewStateShareKey={VIEW_ID}"


def add_runs_view(client: Any, experiment_id: str) -> None:
    """The experiment's ``twinmode`` view, unless it has one; a failure only warns."""
    try:
        if VIEW_TAG not in client.get_experiment(experiment_id).tags:
            client.set_experiment_tag(experiment_id, VIEW_TAG, runs_view())
    except Exception as error:  # noqa: BLE001 - a UI convenience: the run goes on
        import warnings

        warnings.warn(f"the runs-table view was not saved ({type(error).__name__}: {error})", stacklevel=2)


def previous_run_id(resume: CheckpointRead, uri: str) -> str | None:
    """The MLflow run a checkpoint was logged to, when it was logged to ``uri``."""
    from .mlflow_logger import MLflowLogger

    callbacks = resume.state.callbacks
    # (checkpoints written before state keys name it "MLflowLogger#1")
    logged = callbacks.get(MLflowLogger.state_key) or callbacks.get("MLflowLogger#1") or {}
    return logged.get("run_id") if logged.get("tracking_uri") == uri else None


def record_inputs(run: Any, config: ExperimentConfig, resolved: dict[str, Any], task: Any, data: Any,
                  source: str | None, commit: str, tags: dict[str, str], resumed: dict[str, str]) -> None:
    """Params (the resolved config; a continued run keeps its first values and lists the
    changed ones in the ``resume_changed_params`` tag), the data read (the task's record),
    tags, config.yaml."""
    from framework.train.dotted import flatten

    from .mlflow_logger import versions
    from .mlflow_record import source_tags

    params = flatten(resolved)
    existing = run.params() if run.online else {}
    changed = {k: v for k, v in params.items() if k in existing and existing[k] != str(v)[:6000]}
    run.log_params({k: v for k, v in params.items() if k not in existing})
    task.record_data(run, config, data)
    extra = {"resume_changed_params": ", ".join(f"{k}={v}" for k, v in changed.items())} if changed else {}
    run.set_tags({**tags, "git_commit": commit, **versions(), **source_tags(source, commit),
                  **resumed, **extra})
    run.log_text(yaml.safe_dump(resolved, sort_keys=False), "config.yaml")


def finish_run(run: Any, ckpt: ModelCheckpoint, ir_dir: str | None) -> None:
    """Log exactly this run's checkpoint files (its prefix, the final save included) and IR."""
    from framework.train.checkpoint import find_checkpoints

    from .mlflow_record import log_run_files

    files = find_checkpoints(ckpt.directory, ckpt.prefix)[::-1]
    best = ckpt.directory / f"{ckpt.prefix}-best.ckpt"  # checkpoint.keep_best
    if best.is_file():
        files.append(best)
    log_run_files(run, files, ir_dir)
    run.flush()
