"""Atomic file writes, and what a full disk means for optional files (a leaf module: it
imports nothing from the framework)."""

from __future__ import annotations

import errno
import os
import re
import socket
import tempfile
import warnings
from collections.abc import Iterable
from pathlib import Path

_FULL = {errno.ENOSPC: "No space left on device", errno.EDQUOT: "Disk quota exceeded"}
_skipped: set[str] = set()


class OptionalWriteWarning(UserWarning):
    """An optional artifact (a cached kernel library, an IR dump) was not written: its
    disk is full. ``what``, ``place``, ``reason``: as the message names them (a caller for
    which the artifact is not optional turns the warning into an error)."""

    def __init__(self, what: str, place: str | os.PathLike, reason: str, consequence: str) -> None:
        super().__init__(f"{what} {place}: {reason}; {consequence}")
        self.what, self.place, self.reason = what, str(place), reason


def disk_full(error: BaseException) -> str | None:
    """Why ``error`` is a full disk or an exceeded quota (``No space left on device``), else
    None; also for a tool's error that says so (the linker writing a library)."""
    if isinstance(error, OSError) and error.errno in _FULL:
        return _FULL[error.errno]
    return next((reason for reason in _FULL.values() if reason in str(error)), None)


def skip_optional(what: str, place: str | os.PathLike, reason: str, consequence: str) -> None:
    """Warn, once per process and kind of artifact (``what``), that it is not written."""
    if what in _skipped:
        return
    _skipped.add(what)
    warnings.warn(OptionalWriteWarning(what, place, reason, consequence), stacklevel=3)


# a temporary's writer: ``.<name>.w<pid>@<host>.<random>.tmp`` (a killed writer's file is
# recognised by its pid, on its host, without a lock)
_TEMP = re.compile(r"^\..+\.w(?P<pid>\d+)@(?P<host>[^.]+)\.[^.]+\.tmp$")


def _host() -> str:
    return socket.gethostname().replace(".", "-").replace("@", "-") or "host"


def writer_gone(name: str) -> bool:
    """Whether the temporary named ``name`` was left by a writer that no longer runs: one
    of this host whose process is dead (a live one, another host's, or an unnamed one's
    file is not ours to judge)."""
    match = _TEMP.match(name)
    if match is None or match["host"] != _host() or int(match["pid"]) == os.getpid():
        return False
    try:
        os.kill(int(match["pid"]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def remove_stale_temps(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporaries in ``folder`` whose writers died mid-write (a SIGKILL): they
    are never renamed and would stay forever. Returns what was removed."""
    removed: list[Path] = []
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.is_file(follow_symlinks=False)]
    except OSError:
        return removed
    for name in names:
        if name.endswith(".tmp") and writer_gone(name):
            path = Path(folder) / name
            try:
                path.unlink(missing_ok=True)
            except OSError:
                continue
            removed.append(path)
    return removed


def atomic_write(path: str | os.PathLike, chunks: Iterable[bytes] | bytes) -> None:
    """Write ``chunks`` to ``path`` via a synced temp file and a rename; the temp file names
    its writer (:func:`remove_stale_temps` deletes it if the writer is killed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tag = f"w{os.getpid()}@{_host()}"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{tag}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in [chunks] if isinstance(chunks, bytes) else chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def shared_temp_folder(name: str) -> Path:
    """``<tmp>/<name>``, made writable by every user (sticky, as /tmp itself): a place every
    process on this machine finds (run locks, ``train ui``'s ports)."""
    folder = Path(tempfile.gettempdir()) / name
    if not folder.is_dir():
        folder.mkdir(exist_ok=True)
        folder.chmod(0o1777)
    return folder
