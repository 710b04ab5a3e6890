"""MLflow logging (with :mod:`trainer.mlflow_record` and :mod:`trainer.mlflow_model`,
the only modules that import mlflow).

``MLflowRun`` is one run of the store: experiments it creates carry MLflow 3's
``mlflow.experimentKind`` tag (custom model development, so the UI opens its training
views), ``run_id=`` continues an existing run (a resumed training run keeps its MLflow
run), and MLflow's own ``SystemMetricsMonitor`` logs ``system/*`` (CPU, memory, disk,
network) while it is open, unless asked not to.

``MLflowLogger`` is a training callback logging the metrics below, one definition each
(the step is the global training step):

- ``train/loss``: the training loss of the step (the value LossMonitor prints and the
  progress bar shows), every ``log_every`` steps; ``lr``: the optimizer's learning rate
  (the value the step used) at those steps and at every step where it changed
  (``optimizer.schedule``);
- ``train/accuracy``: accuracy on a fixed subset of the training data, per evaluated epoch;
- ``eval/<metric>`` (``eval/accuracy``, ``eval/loss``): the test set, per evaluated epoch;
- ``perf/ms_per_step``, ``perf/samples_per_second``: per epoch, from the wall clock
  (``Timings.step_wall_seconds``: data loading included, compilation excluded);
  ``perf/epoch_seconds``: the epoch's wall time, validation included;
  ``perf/compile_s``: seconds spent tracing + compiling, at the step that compiled;
- ``epoch``: the epoch number at its last step. A run counted in steps (a language
  model: ``by_steps``) logs no ``epoch`` (its loop's "epochs" are evaluation intervals)
  and ``perf/interval_seconds`` for ``perf/epoch_seconds``.

Metrics are buffered and sent with ``log_batch``.
If the tracking store cannot be reached, training goes on with a warning and every
record is appended to a local JSON-lines file instead (one file per run, each record
carrying the run id), so nothing is lost; ``train sync-offline`` imports them later
(:mod:`trainer.offline_sync`). Opening a store is serialized between processes with a
file lock, so concurrent first runs on a fresh SQLite store do not race on its schema; a
new SQLite store is created atomically (:mod:`trainer.mlflow_store`).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import time
import uuid
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from framework.train.callbacks.base import Callback
from framework.train.context import RunContext
from framework.train.run_lock import RunLock, shared_lock_path

log = logging.getLogger(__name__)
DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
FLUSH_EVERY = 200  # buffered metric records per log_batch call
EXPERIMENT_KIND = "custom_model_development"  # MLflow 3's tag value for model-training views
SYSTEM_METRICS_SECONDS = 2.0  # sampling interval (MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL wins)


def tracking_uri(configured: str | None = None) -> str:
    """YAML value, else $MLFLOW_TRACKING_URI, else SQLite in the working directory (as an
    absolute path: MLflow caches stores by URI, so a relative one would outlive a chdir)."""
    uri = configured or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    if uri == DEFAULT_TRACKING_URI:
        uri = f"sqlite:///{os.path.abspath('mlflow.db')}"
    return uri


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def versions() -> dict[str, str]:
    import framework

    tags = {"framework_version": framework.__version__}
    try:
        from importlib.metadata import version

        tags["tvm_version"] = version("apache-tvm")
    except Exception:  # noqa: BLE001 - metadata lookups only
        tags["tvm_version"] = "unknown"
    return tags


class StoreUnreachable(RuntimeError):
    """The tracking store failed and this run may not fall back to an offline file."""


def _store_lock(uri: str) -> RunLock:
    """One lock per store URI for every process on this machine."""
    import hashlib

    key = hashlib.sha256(uri.encode()).hexdigest()[:16]
    return RunLock(shared_lock_path(f"mlflow-{key}"))


def _offline_name(run_name: str | None, unique: str) -> str:
    """The offline file's name: the run's, a time stamp, the pid and a unique suffix."""
    from .config_checks import safe_component  # a run name such as ../x stays in offline_dir

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"{safe_component(run_name or 'run')}-{stamp}-{os.getpid()}-{unique[:8]}.jsonl"


def _experiment_id(client: Any, name: str) -> str:
    """The experiment called ``name``, created with MLflow 3's ``mlflow.experimentKind`` tag
    (an older one without it is tagged now)."""
    exp = client.get_experiment_by_name(name)
    if exp is None:
        return client.create_experiment(name, tags={"mlflow.experimentKind": EXPERIMENT_KIND})
    if "mlflow.experimentKind" not in exp.tags:  # made before the kind was set
        client.set_experiment_tag(exp.experiment_id, "mlflow.experimentKind", EXPERIMENT_KIND)
    return exp.experiment_id


class MLflowRun:
    """One MLflow run (optionally nested), with an offline fallback file.

    ``run_id`` continues an existing run of the store (``train sync-offline`` uses it);
    ``fallback=False`` raises :class:`StoreUnreachable` instead of writing offline;
    ``unique_name`` names a new run ``<run_name>-<first 8 characters of its id>``, so runs
    of one experiment file tell apart in the runs table.
    """

    def __init__(self, uri: str, experiment: str, run_name: str | None, *,
                 parent_run_id: str | None = None, offline_dir: str | Path = "mlruns-offline",
                 run_id: str | None = None, fallback: bool = True,
                 system_metrics: bool = False, unique_name: bool = False) -> None:
        self.uri, self.experiment, self.run_name = uri, experiment, run_name
        self.parent_run_id, self.fallback, self.unique_name = parent_run_id, fallback, unique_name
        self.last_step = 0  # the largest step of a metric logged through this object
        unique = uuid.uuid4().hex
        self.offline_path = Path(offline_dir) / _offline_name(run_name, unique)
        self.offline_id = f"offline-{unique}"  # names the run in offline records until it has one
        self.run_id: str | None = None
        self.experiment_id: str | None = None
        self.client: Any = None
        self._system: Any = None
        self._system_first_step = 0
        self._buffer: list[Any] = []
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mlflow-log")
        self._pending: list[Future] = []
        # fail fast on an unreachable server instead of MLflow's minutes of retries
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
        try:
            self._connect(run_id)
        except Exception as error:  # noqa: BLE001 - any store failure: keep training
            self._go_offline(error)
        if system_metrics and self.online:
            self._start_system_metrics(resumed=run_id is not None)

    def _connect(self, run_id: str | None) -> None:
        """Open the store (under its lock: schema creation and migration are not safe
        concurrently), then the experiment and the run (``run_id``'s, else a new one)."""
        import mlflow

        from .mlflow_store import open_client

        lock = _store_lock(self.uri)
        lock.acquire(block=True)
        try:
            self.client = open_client(self.uri)  # a SQLite store made atomically
            self.experiment_id = _experiment_id(self.client, self.experiment)
            if run_id is not None:
                self._continue_run(run_id)
            else:
                self.run_id = self._create_run(self.experiment_id)
        finally:
            lock.release()
        self._mlflow = mlflow

    def _continue_run(self, run_id: str) -> None:
        """Continue an existing run, marked RUNNING again."""
        run = self.client.get_run(run_id)
        self.run_id = run.info.run_id
        if run.info.status != "RUNNING":
            self.client.update_run(self.run_id, status="RUNNING")

    def _create_run(self, experiment_id: str) -> str:
        """A new run (nested under ``parent_run_id`` when given)."""
        tags = {"mlflow.runName": self.run_name} if self.run_name else {}
        if self.parent_run_id:
            tags["mlflow.parentRunId"] = self.parent_run_id
        run_id = self.client.create_run(experiment_id, tags=tags, run_name=self.run_name).info.run_id
        if self.unique_name and self.run_name:
            self.run_name = f"{self.run_name}-{run_id[:8]}"
            self.client.update_run(run_id, name=self.run_name)
        return run_id

    def _go_offline(self, error: Exception) -> None:
        """The store failed: keep records in the offline file with a warning (the warning
        names the caller of ``MLflowRun(...)``), or raise :class:`StoreUnreachable` when
        this run may not fall back."""
        self.client = None
        if self.unique_name and self.run_name and self.run_id is None:  # named in the offline records
            self.run_name = f"{self.run_name}-{self.offline_id[len('offline-'):][:8]}"
        first_line = str(error).splitlines()[0] if str(error) else ""
        if not self.fallback:
            raise StoreUnreachable(f"MLflow tracking store {self.uri}: {type(error).__name__}: "
                                   f"{first_line}") from None
        warnings.warn(f"MLflow tracking store {self.uri} unreachable ({type(error).__name__}: "
                      f"{first_line}); metrics are kept in {self.offline_path}", stacklevel=3)

    def _start_system_metrics(self, resumed: bool) -> None:
        """MLflow's own monitor (psutil): ``system/cpu_utilization_percentage``,
        ``system/system_memory_usage_megabytes`` ... every few seconds while the run is open."""
        try:
            from mlflow.system_metrics.system_metrics_monitor import SystemMetricsMonitor

            logging.getLogger("mlflow.system_metrics").setLevel(logging.WARNING)  # no start/stop lines

            self._system = SystemMetricsMonitor(self.run_id, sampling_interval=SYSTEM_METRICS_SECONDS,
                                                resume_logging=resumed, tracking_uri=self.uri)
            self._system_first_step = self._system._logging_step
            self._system.start()
        except Exception as error:  # noqa: BLE001 - psutil missing and the like: train anyway
            warnings.warn(f"system metrics are not logged ({type(error).__name__}: {error}); "
                          "set mlflow.system_metrics: false to silence this", stacklevel=3)
            self._system = None

    def _finish_system_metrics(self) -> None:
        """Stop MLflow's monitor. It publishes a sample only once a sampling interval has
        passed: a run shorter than that (or whose monitor thread was starved) would have no
        system metrics at all, so one sample is taken now if none was published."""
        monitor, self._system = self._system, None
        first = self._system_first_step
        monitor.finish()
        try:
            if monitor._logging_step == first:  # MLflow's own step counter: nothing published
                monitor.collect_metrics()
                monitor.publish_metrics(monitor.aggregate_metrics())
                monitor.mlflow_logger.flush()
        except Exception as error:  # noqa: BLE001 - MLflow's internals moved: say so, go on
            warnings.warn(f"the run's last system metrics are not logged ({type(error).__name__}: "
                          f"{error})", stacklevel=3)

    @property
    def url(self) -> str | None:
        """The run's page in the UI (MLflow's model-training views): the tracking server's
        for an ``http(s)://`` store, else a running ``train ui``'s for this store, else
        ``train ui``'s default port; None offline."""
        if not self.online:
            return None
        from .ui import ui_base_url

        return (f"{ui_base_url(self.uri)}/#/experiments/{self.experiment_id}/runs/{self.run_id}"
                "?workflowType=machine_learning")

    @property
    def online(self) -> bool:
        return self.client is not None

    def _offline(self, kind: str, payload: Any) -> None:
        record = {"run_id": self.run_id or self.offline_id, "run_name": self.run_name,
                  "experiment": self.experiment, "parent_run_id": self.parent_run_id,
                  "kind": kind, "time": time.time(), "data": payload}
        try:
            self.offline_path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "artifact":
                from .offline_sync import kept_artifact

                record["data"] = kept_artifact(self.offline_path, payload)
            with open(self.offline_path, "a") as f:
                f.write(json.dumps(record, default=str) + "\n")
        except OSError as error:  # (a full disk's error names no file: it comes at the flush)
            from .preflight import InputError

            raise InputError(f"the offline MLflow record {self.offline_path} cannot be written "
                             f"({error.strerror or error}) and the store {self.uri} is not reachable: "
                             "the run's record has nowhere to go; free space there or set "
                             "MLFLOW_TRACKING_URI to a store that takes it") from None

    def _safely(self, kind: str, payload: Any, fn: Any) -> None:
        if self.online:
            try:
                fn()
                return
            except Exception as error:  # noqa: BLE001
                if not self.fallback:
                    raise StoreUnreachable(f"MLflow logging failed: {error}") from None
                warnings.warn(f"MLflow logging failed ({error}); writing to {self.offline_path}",
                              stacklevel=3)
                self.client = None
        self._offline(kind, payload)

    def log_params(self, params: dict[str, Any]) -> None:
        from mlflow.entities import Param

        items = [Param(k, str(v)[:6000]) for k, v in params.items()] if self.online else []
        self._safely("params", params, lambda: self.client.log_batch(self.run_id, params=items))

    def params(self) -> dict[str, str]:
        """The params the run already has (a continued run: MLflow params cannot change)."""
        return dict(self.client.get_run(self.run_id).data.params) if self.online else {}

    def set_tags(self, tags: dict[str, str]) -> None:
        from mlflow.entities import RunTag

        items = [RunTag(k, str(v)) for k, v in tags.items()] if self.online else []
        self._safely("tags", tags, lambda: self.client.log_batch(self.run_id, tags=items))

    def log_metric(self, key: str, value: float, step: int, timestamp_ms: int | None = None) -> None:
        stamp = int(time.time() * 1000) if timestamp_ms is None else int(timestamp_ms)
        self._buffer.append((key, float(value), stamp, int(step)))
        self.last_step = max(self.last_step, int(step))
        if len(self._buffer) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Hand the buffered metrics to the writer thread (in order, off the training loop)."""
        if not self._buffer:
            return
        records, self._buffer = self._buffer, []
        self._pending = [f for f in self._pending if not f.done()]
        self._pending.append(self._writer.submit(self._write_metrics, records))

    def _write_metrics(self, records: list[Any]) -> None:
        if self.online:
            from mlflow.entities import Metric

            metrics = [Metric(k, v, t, s) for k, v, t, s in records]
            self._safely("metrics", records, lambda: self.client.log_batch(self.run_id, metrics=metrics))
        else:
            self._offline("metrics", records)

    def wait(self) -> None:
        """Block until every handed-over metric is written."""
        for future in self._pending:
            future.result()
        self._pending.clear()

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        path = Path(path)
        if not path.exists():
            return
        if path.is_dir():
            fn = lambda: self.client.log_artifacts(self.run_id, str(path), artifact_path)  # noqa: E731
        else:
            fn = lambda: self.client.log_artifact(self.run_id, str(path), artifact_path)  # noqa: E731
        self._safely("artifact", {"path": str(path.resolve()), "artifact_path": artifact_path}, fn)

    def log_inputs(self, datasets: list[Any], payload: Any) -> None:
        """``datasets``: mlflow.entities.DatasetInput objects; ``payload`` their offline record."""
        self._safely("inputs", payload, lambda: self.client.log_inputs(self.run_id, datasets=datasets))

    def log_text(self, text: str, artifact_file: str) -> None:
        self._safely("text", {artifact_file: text},
                     lambda: self.client.log_text(self.run_id, text, artifact_file))

    def log_table(self, columns: dict[str, list[Any]], artifact_file: str) -> None:
        """A table (column name -> values) as an MLflow table artifact (the JSON of ``mlflow.log_table``,
        shown as a table in the UI). Unlike ``mlflow.log_table``, which appends to an existing
        table, this replaces it: a sweep rewrites its trial table as trials end."""
        import tempfile

        def write() -> None:
            import pandas as pd

            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / Path(artifact_file).name
                pd.DataFrame(columns).to_json(path, orient="split", index=False, date_format="iso",
                                               double_precision=15)
                folder = str(Path(artifact_file).parent) if Path(artifact_file).parent != Path(".") else None
                self.client.log_artifact(self.run_id, str(path), folder)
            tag = "mlflow.loggedArtifacts"
            logged = json.loads(self.client.get_run(self.run_id).data.tags.get(tag, "[]"))
            if {"path": artifact_file, "type": "table"} not in logged:
                logged.append({"path": artifact_file, "type": "table"})
                self.client.set_tag(self.run_id, tag, json.dumps(logged))

        self._safely("table", {artifact_file: columns}, write)

    def end(self, status: str = "FINISHED") -> None:
        if self._system is not None:
            self._finish_system_metrics()
        self.flush()
        self.wait()
        self._writer.shutdown()
        self._safely("end", status, lambda: self.client.set_terminated(self.run_id, status))


def metric_name(key: str, valid: str = "eval") -> str | None:
    """The MLflow name of a ``run_context.metrics`` key (None: not logged, see the module
    docstring): ``eval_accuracy`` -> ``eval/accuracy`` (``valid``: the task's name of its
    validation results, ``val/loss`` for a language model), ``train_accuracy`` ->
    ``train/accuracy``."""
    if key == "loss":
        return None  # the epoch's running mean: train/loss is the one training loss
    if key.startswith("eval_"):
        return f"{valid}/" + key[len("eval_"):]
    if key.startswith("train_"):
        return "train/" + key[len("train_"):]
    return key


def _step_lr(optimizer: Any) -> float | None:
    """The LR the last step used (a per-step list or schedule Cell moves with the step)."""
    for name in ("last_lr", "get_lr"):
        if hasattr(optimizer, name):
            return getattr(optimizer, name)()
    return None


class MLflowLogger(Callback):
    """Training callback that records a run's metrics (see the module docstring)."""

    phase = "log"  # after the metrics and the monitors
    state_key = "mlflow"

    def __init__(self, run: MLflowRun, log_every: int = 50, valid: str = "eval", *,
                 by_steps: bool = False) -> None:
        self.run = run
        self.by_steps = by_steps  # counted in steps: no epoch metric, the interval's seconds
        self.log_every = max(1, log_every)
        self.valid = valid  # the prefix of validation results (the task's)
        self._last_lr: float | None = None
        self._resumed_lr: tuple[float | None] | None = None  # the checkpoint's, on a resume

    def on_train_begin(self, ctx: RunContext) -> None:
        # a schedule: every step whose LR differs from the previous one's (the first too);
        # one learning rate: with the loss, every ``log_every`` steps. A resume goes on from
        # the LR the checkpointed step logged, so it logs what the uninterrupted run did.
        dynamic = getattr(ctx.optimizer, "dynamic_lr", False)
        if self._resumed_lr is not None and dynamic:
            self._last_lr = self._resumed_lr[0]
        else:
            self._last_lr = None if dynamic else _step_lr(ctx.optimizer)

    def on_train_step_end(self, ctx: RunContext) -> None:
        if ctx.timings.compile_seconds:
            self.run.log_metric("perf/compile_s", ctx.timings.compile_seconds, ctx.global_step)
        lr = _step_lr(ctx.optimizer)
        due = ctx.loss is not None and not ctx.global_step % self.log_every
        if lr is not None and (due or lr != self._last_lr):  # a schedule: every step
            self.run.log_metric("lr", lr, ctx.global_step)
            self._last_lr = lr
        if due:
            self.run.log_metric("train/loss", ctx.loss, ctx.global_step)

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        t = ctx.timings
        if self.by_steps:  # the loop's "epochs" are only evaluation intervals
            self.run.log_metric("perf/interval_seconds", t.epoch_seconds, ctx.global_step)
        else:
            self.run.log_metric("epoch", ctx.epoch, ctx.global_step)
            self.run.log_metric("perf/epoch_seconds", t.epoch_seconds, ctx.global_step)
        if t.epoch_wall_seconds > 0 and t.epoch_steps_run:
            self.run.log_metric("perf/ms_per_step", t.epoch_wall_seconds / t.epoch_steps_run * 1000,
                                ctx.global_step)
            self.run.log_metric("perf/samples_per_second", t.epoch_samples / t.epoch_wall_seconds,
                                ctx.global_step)
        for key, value in ctx.metrics.items():
            name = metric_name(key, self.valid)
            if name is not None:
                self.run.log_metric(name, value, ctx.global_step)
        for path, text in ctx.texts.items():
            self.run.log_text(text, path)
        ctx.texts.clear()
        self.run.flush()

    def state_dict(self) -> dict[str, Any]:
        """Stored in each checkpoint: a resume continues this MLflow run. Asked for as the
        checkpoint is written: every metric logged so far is written first, so a resume from
        it (logging from its next step on) leaves no step unlogged after a SIGKILL."""
        self.run.flush()
        self.run.wait()
        return {"run_id": self.run.run_id, "tracking_uri": self.run.uri, "last_lr": self._last_lr}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        # the run id was read before the run was opened (trainer.tracking.previous_run_id)
        if "last_lr" in state:
            self._resumed_lr = (state["last_lr"],)
