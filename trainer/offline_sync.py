"""``train sync-offline``: import runs logged offline (``mlruns-offline/*.jsonl``) into a store.

Every offline record names its run (``run_id``: the store's id when the run started online
and lost the store later, else ``offline-<uuid>``). Records of a run that exists in the
store are appended to it; the others become new runs with the recorded name, experiment,
parent, params, tags, metrics (with their original times and steps), texts, artifacts
(copied beside the record when logged: only files inside the offline folder are imported)
and final status. A file whose runs were all imported is renamed to
``*.jsonl.synced``, so a second sync imports nothing twice. Replaying goes through
:class:`~trainer.mlflow_logger.MLflowRun` without its offline fallback: if the store fails,
the sync stops and the file stays.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .mlflow_logger import MLflowRun

SYNCED = ".synced"


class OfflineRecordError(ValueError):
    """An offline file that cannot be read (not JSON lines of records)."""


@dataclass
class SyncReport:
    files: int = 0
    runs: int = 0
    metrics: int = 0
    run_ids: dict[str, str] = field(default_factory=dict)  # offline id -> store id


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of an offline file, each checked for what replaying it reads (a file
    edited by hand, or not ours, is one line naming the line, before anything is imported)."""
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise OfflineRecordError(f"{path}: not a readable offline file ({error})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            if number == len(lines):
                continue  # a last line cut short by a kill: the records before it stand
            raise OfflineRecordError(f"{path}:{number}: not an offline MLflow record") from None
        problem = record_problem(record)
        if problem:
            raise OfflineRecordError(f"{path}:{number}: not an offline MLflow record ({problem})")
        records.append(record)
    return records


def _names(data: Any) -> bool:
    return isinstance(data, dict) and all(isinstance(k, str) for k in data)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _metric(row: Any) -> bool:
    return (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and _number(row[1])
            and all(isinstance(v, int) and not isinstance(v, bool) for v in row[2:]))


_DATA = {  # what each kind's data must be (as MLflowRun._offline writes it)
    "params": ("a mapping of names", _names),
    "tags": ("a mapping of names", _names),
    "metrics": ("a list of [key, value, time, step]", lambda d: isinstance(d, list) and all(map(_metric, d))),
    "text": ("a mapping of file names to text", lambda d: _names(d) and all(isinstance(v, str)
                                                                            for v in d.values())),
    "table": ("a mapping of file names to columns", lambda d: _names(d) and all(_names(v)
                                                                                for v in d.values())),
    "artifact": ("a file path", lambda d: isinstance(d, str) or (
        isinstance(d, dict) and isinstance(d.get("path"), str)
        and isinstance(d.get("artifact_path"), str | None))),
    "inputs": ("anything", lambda d: True),
    "end": ("a run status", lambda d: isinstance(d, str)),
}


def record_problem(record: Any) -> str | None:
    """What in one offline record replaying could not use, or None."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    for key in ("run_id", "run_name", "experiment", "parent_run_id"):
        if not isinstance(record.get(key), str | None):
            return f"{key} is {record[key]!r:.40}, not text"
    kind = record.get("kind")
    if kind not in _DATA:
        return f"kind {kind!r:.40} is none of {', '.join(_DATA)}"
    if "data" not in record:
        return "no data"
    what, ok = _DATA[kind]
    if not ok(record["data"]):
        return f"{kind!r} data must be {what}, got {record['data']!r:.60}"
    return None


def kept_artifact(record_file: Path, payload: dict[str, Any]) -> dict[str, Any]:
    """An artifact logged offline, copied beside its record file (``<record>.files/<n>/<name>``,
    hard links where the disk allows) and named relative to the offline folder: the record
    stays true when the original goes (a temporary IR folder, a checkpoint rotated out),
    and ``sync-offline`` imports files inside its folder only."""
    source = Path(payload["path"])
    folder = record_file.with_name(record_file.stem + ".files")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / str(sum(1 for _ in folder.iterdir())) / source.name
    target.parent.mkdir()
    if source.is_dir():
        shutil.copytree(source, target, copy_function=_link_or_copy)
    else:
        _link_or_copy(source, target)
    return {**payload, "path": target.relative_to(record_file.parent).as_posix()}


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # another disk, or links not allowed there
        shutil.copy2(source, target)


def _inside(folder: Path, name: str) -> Path | None:
    """The file ``name`` (relative to ``folder``, or absolute) when it is inside ``folder``
    once links are resolved, else None: a record (edited, or not ours) must not send any
    file of this machine to the store."""
    path = (folder / name).resolve()
    return path if path.is_relative_to(folder.resolve()) else None


def _replay(run: MLflowRun, records: list[dict[str, Any]], file: Path) -> tuple[int, str]:
    """Send ``records`` (of the offline ``file``) to ``run``; returns (metric count, final status)."""
    metrics, status = 0, "FINISHED"
    for record in records:
        kind, data = record["kind"], record["data"]
        if kind == "params":
            run.log_params(data)
        elif kind == "tags":
            run.set_tags(data)
        elif kind == "metrics":
            for key, value, stamp, step in data:
                run.log_metric(key, value, step, timestamp_ms=stamp)
            metrics += len(data)
        elif kind == "text":
            for name, text in data.items():
                run.log_text(text, name)
        elif kind == "table":
            for name, rows in data.items():
                run.log_table(rows, name)
        elif kind == "artifact":
            name, under = ((data["path"], data.get("artifact_path")) if isinstance(data, dict)
                           else (data, None))
            path = _inside(file.parent, name)
            if path is None:
                warnings.warn(f"{file}: artifact {name} is outside {file.parent}: not imported "
                              "(sync-offline imports files inside the offline folder only)", stacklevel=2)
            else:
                run.log_artifact(path, under)
        elif kind == "end":
            status = str(data)
    return metrics, status


def sync_file(path: Path, uri: str, report: SyncReport) -> None:
    runs: dict[str, list[dict[str, Any]]] = {}
    for record in read_records(path):
        runs.setdefault(str(record.get("run_id") or f"file:{path.name}"), []).append(record)
    for offline_id, records in runs.items():
        first = records[0]
        existing = None if offline_id.startswith(("offline-", "file:")) else offline_id
        parent = first.get("parent_run_id")
        run = MLflowRun(uri, first.get("experiment") or "twinmode", first.get("run_name"),
                        parent_run_id=report.run_ids.get(parent, parent), run_id=existing,
                        fallback=False)
        metrics, status = _replay(run, records, path)
        run.end(status)
        report.run_ids[offline_id] = run.run_id or ""
        report.runs += 1
        report.metrics += metrics
    path.rename(path.with_name(path.name + SYNCED))
    report.files += 1


def sync_offline(folder: str | Path, uri: str) -> SyncReport:
    """Import every ``*.jsonl`` in ``folder`` into the store at ``uri`` (oldest first)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of offline runs (runs logged while the "
                                "store was unreachable go to mlruns-offline/)")
    report = SyncReport()
    files = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    for path in files:  # every file checked before any is imported
        read_records(path)
    for path in files:
        sync_file(path, uri, report)
    return report
