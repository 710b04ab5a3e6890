"""Atomic file writes, and what a full disk means for optional files (a leaf module: it
imports nothing from the framework)."""

from __future__ import annotations

import errno
import os
import tempfile
import warnings
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


def atomic_write(path: str | os.PathLike, chunks: list[bytes] | bytes) -> None:
    """Write ``chunks`` to ``path`` via a synced temp file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
