"""Opening the MLflow tracking store; a local SQLite store is created atomically.

MLflow creates a SQLite store in place: its tables, then a chain of schema migrations,
for a second or two. A process killed meanwhile left a half-made file that every later
open fails on (``table _alembic_tmp_tags already exists``), so every later run logged
offline and ``train sync-offline`` failed. Here:

- a new SQLite store is made in ``<file>.creating-<pid>`` next to it and renamed into
  place when complete (``os.replace``: the store is whole or absent); leftovers of killed
  creations are removed;
- an existing file that MLflow cannot open and that holds no runs (a half-made store) is
  moved aside to ``<file>.damaged-<time>`` and made again, with a one-line warning;
- one that holds runs is left alone: :class:`StoreDamaged` says in one line what to do.

The caller holds the store's lock (:func:`trainer.mlflow_logger._store_lock`).
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from pathlib import Path
from typing import Any


class StoreDamaged(RuntimeError):
    """A SQLite store with runs in it that MLflow cannot open."""


def sqlite_file(uri: str) -> Path | None:
    """The file of a ``sqlite:///path`` URI (None for other stores and in-memory ones)."""
    if not uri.startswith("sqlite:///"):
        return None
    path = uri[len("sqlite:///"):].split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


def _forget(uri: str) -> None:
    """Drop MLflow's cached engine for ``uri`` (it would keep the old file open)."""
    try:
        from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

        with SqlAlchemyStore._engine_map_lock:
            engine = SqlAlchemyStore._engine_map.pop(uri, None)
        if engine is not None:
            engine.dispose()
    except Exception:  # noqa: BLE001 - MLflow's internals moved: nothing cached to drop
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove_leftovers(path: Path) -> None:
    """``<file>.creating-<pid>[-journal]`` files of creations killed before their rename."""
    for part in path.parent.glob(f"{path.name}.creating-*"):  # -journal, -wal too
        pid = part.name[len(path.name) + len(".creating-"):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            part.unlink(missing_ok=True)


def _create(path: Path) -> None:
    """A complete new store at ``path``, made elsewhere and renamed into place."""
    from mlflow.tracking import MlflowClient

    part = path.with_name(f"{path.name}.creating-{os.getpid()}")
    part.unlink(missing_ok=True)
    uri = f"sqlite:///{part}"
    try:
        MlflowClient(tracking_uri=uri).search_experiments(max_results=1)
    finally:
        _forget(uri)
    os.replace(part, path)


def _holds_runs(path: Path) -> bool:
    """Whether the SQLite file has a ``runs`` table with rows (or cannot be read at all)."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "runs" not in tables:
                return False
            return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] > 0
    except sqlite3.DatabaseError:
        return True  # not a SQLite file: not ours to move


def open_client(uri: str) -> Any:
    """``MlflowClient(uri)``, its SQLite store created atomically or repaired when half-made."""
    from mlflow.tracking import MlflowClient

    path = sqlite_file(uri)
    if path is None:
        return MlflowClient(tracking_uri=uri)
    path = path.absolute()
    if path.parent.is_dir():
        _remove_leftovers(path)
        if not path.exists() or path.stat().st_size == 0:
            _create(path)
    try:
        client = MlflowClient(tracking_uri=uri)
        client.search_experiments(max_results=1)
        return client
    except Exception as error:  # noqa: BLE001 - any failure to open: half-made, or not ours to fix
        _forget(uri)
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        if not path.is_file():
            raise  # no folder for it, or not a file: MLflow's own error says which
        if _holds_runs(path):
            raise StoreDamaged(
                f"MLflow store {path} cannot be opened ({first}); try `mlflow db upgrade {uri}`, else "
                f"move it aside (mv {path} {path}.bad) and import the offline runs into a new one "
                "with `train sync-offline`") from None
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, aside)
    warnings.warn(f"MLflow store {path} was half-made (a run was killed while creating it; {first}); "
                  f"moved to {aside}, a new one is made", stacklevel=3)
    _create(path)
    return MlflowClient(tracking_uri=uri)
