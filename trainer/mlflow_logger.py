"""MLflow logging: the only module that imports mlflow.

``MLflowLogger`` is a training callback: the resolved config as flattened params and
as a YAML artifact, tags (mode, device, git commit, framework and TVM versions),
metrics with their step (training loss every ``log_every`` steps, per-epoch train and
test figures, epoch time, ms/step, samples/s, graph-mode compile time), and at the
end checkpoints and IR artifacts. Metrics are buffered and sent with ``log_batch``.
If the tracking store cannot be reached, training goes on with a warning and every
record is appended to a local JSON-lines file instead (one file per run, each record
carrying the run id), so nothing is lost; ``train sync-offline`` imports them later
(:mod:`trainer.offline_sync`). Opening a store is serialized between processes with a
file lock, so concurrent first runs on a fresh SQLite store do not race on its schema.
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

from .callbacks.base import Callback
from .context import RunContext
from .run_lock import RunLock, shared_lock_path

log = logging.getLogger(__name__)
DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
FLUSH_EVERY = 200  # buffered metric records per log_batch call


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


class MLflowRun:
    """One MLflow run (optionally nested), with an offline fallback file.

    ``run_id`` continues an existing run of the store (``train sync-offline`` uses it);
    ``fallback=False`` raises :class:`StoreUnreachable` instead of writing offline.
    """

    def __init__(self, uri: str, experiment: str, run_name: str | None, *,
                 parent_run_id: str | None = None, offline_dir: str | Path = "mlruns-offline",
                 run_id: str | None = None, fallback: bool = True) -> None:
        self.uri, self.experiment, self.run_name = uri, experiment, run_name
        self.parent_run_id, self.fallback = parent_run_id, fallback
        unique = uuid.uuid4().hex
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = f"{run_name or 'run'}-{stamp}-{os.getpid()}-{unique[:8]}.jsonl"
        self.offline_path = Path(offline_dir) / name
        self.offline_id = f"offline-{unique}"  # names the run in offline records until it has one
        self.run_id: str | None = None
        self.client: Any = None
        self._buffer: list[Any] = []
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mlflow-log")
        self._pending: list[Future] = []
        # fail fast on an unreachable server instead of MLflow's minutes of retries
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "1")
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
        try:
            import mlflow
            from mlflow.tracking import MlflowClient

            lock = _store_lock(uri)
            lock.acquire(block=True)  # schema creation and migration are not safe concurrently
            try:
                self.client = MlflowClient(tracking_uri=uri)
                exp = self.client.get_experiment_by_name(experiment)
                exp_id = exp.experiment_id if exp else self.client.create_experiment(experiment)
                if run_id is not None:
                    self.run_id = self.client.get_run(run_id).info.run_id
                else:
                    tags = {"mlflow.runName": run_name} if run_name else {}
                    if parent_run_id:
                        tags["mlflow.parentRunId"] = parent_run_id
                    self.run_id = self.client.create_run(exp_id, tags=tags, run_name=run_name).info.run_id
            finally:
                lock.release()
            self._mlflow = mlflow
        except Exception as error:  # noqa: BLE001 - any store failure: keep training
            self.client = None
            if not fallback:
                raise StoreUnreachable(f"MLflow tracking store {uri}: {type(error).__name__}: "
                                       f"{str(error).splitlines()[0] if str(error) else ''}") from None
            warnings.warn(f"MLflow tracking store {uri} unreachable ({type(error).__name__}: "
                          f"{str(error).splitlines()[0] if str(error) else ''}); metrics are kept "
                          f"in {self.offline_path}", stacklevel=2)

    @property
    def online(self) -> bool:
        return self.client is not None

    def _offline(self, kind: str, payload: Any) -> None:
        record = {"run_id": self.run_id or self.offline_id, "run_name": self.run_name,
                  "experiment": self.experiment, "parent_run_id": self.parent_run_id,
                  "kind": kind, "time": time.time(), "data": payload}
        self.offline_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.offline_path, "a") as f:
            f.write(json.dumps(record, default=str) + "\n")

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

    def set_tags(self, tags: dict[str, str]) -> None:
        from mlflow.entities import RunTag

        items = [RunTag(k, str(v)) for k, v in tags.items()] if self.online else []
        self._safely("tags", tags, lambda: self.client.log_batch(self.run_id, tags=items))

    def log_metric(self, key: str, value: float, step: int, timestamp_ms: int | None = None) -> None:
        stamp = int(time.time() * 1000) if timestamp_ms is None else int(timestamp_ms)
        self._buffer.append((key, float(value), stamp, int(step)))
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
                pd.DataFrame(columns).to_json(path, orient="split", index=False, date_format="iso")
                folder = str(Path(artifact_file).parent) if Path(artifact_file).parent != Path(".") else None
                self.client.log_artifact(self.run_id, str(path), folder)
            tag = "mlflow.loggedArtifacts"
            logged = json.loads(self.client.get_run(self.run_id).data.tags.get(tag, "[]"))
            if {"path": artifact_file, "type": "table"} not in logged:
                logged.append({"path": artifact_file, "type": "table"})
                self.client.set_tag(self.run_id, tag, json.dumps(logged))

        self._safely("table", {artifact_file: columns}, write)

    def end(self, status: str = "FINISHED") -> None:
        self.flush()
        self.wait()
        self._writer.shutdown()
        self._safely("end", status, lambda: self.client.set_terminated(self.run_id, status))


class MLflowLogger(Callback):
    """Training callback that records a run (see the module docstring)."""

    order = 50  # after the monitors, before ModelCheckpoint's final save is logged at the end

    def __init__(self, run: MLflowRun, log_every: int = 50, batch_size: int | None = None,
                 artifacts: list[tuple[str, str]] = ()) -> None:
        self.run = run
        self.log_every = max(1, log_every)
        self.batch_size = batch_size
        self.artifacts = list(artifacts)  # (path, artifact folder) logged at the end
        self._window: list[float] = []

    def on_train_step_end(self, ctx: RunContext) -> None:
        if ctx.loss is None:
            return
        self._window.append(ctx.loss)
        if ctx.global_step % self.log_every == 0:
            self.run.log_metric("train_loss", sum(self._window) / len(self._window), ctx.global_step)
            self._window.clear()
        if ctx.timings.compile_seconds:
            self.run.log_metric("compile_seconds", ctx.timings.compile_seconds, ctx.global_step)

    def on_train_epoch_end(self, ctx: RunContext) -> None:
        t = ctx.timings
        step_ms = t.epoch_step_seconds / max(t.epoch_steps_run, 1) * 1000
        self.run.log_metric("epoch", ctx.epoch, ctx.global_step)
        self.run.log_metric("epoch_seconds", t.epoch_seconds, ctx.global_step)
        self.run.log_metric("ms_per_step", step_ms, ctx.global_step)
        if ctx.batch_size and step_ms > 0:
            self.run.log_metric("samples_per_second", ctx.batch_size / step_ms * 1000, ctx.global_step)
        for key, value in ctx.metrics.items():
            if key == "loss":
                name = "train_epoch_loss"
            elif key.startswith("eval_"):
                name = "test_" + key[len("eval_"):]
            else:
                name = key
            self.run.log_metric(name, value, ctx.global_step)
        self.run.flush()

    def on_train_end(self, ctx: RunContext) -> None:
        if ctx.timings.first_compile_seconds is not None:
            self.run.log_metric("first_compile_seconds", ctx.timings.first_compile_seconds,
                                ctx.global_step)
        for path, folder in self.artifacts:
            self.run.log_artifact(path, folder)
        self.run.flush()
