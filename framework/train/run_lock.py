"""Who may write where in a checkpoint folder: one prefix per run, held with a lock.

Several runs may share a folder (same experiment name, concurrent or one after another).
Each claims a prefix (``lenet``, then ``lenet_1``, ``lenet_2`` ... as MindSpore names them)
by taking an exclusive ``flock`` for as long as it trains; the kernel drops the lock when
the process dies, so a killed run never blocks the next one. A prefix with files of an
earlier run is not reused unless the new run resumes from one of them; a resume whose
prefix a running process holds is refused (:class:`RunBusy`). Holding the lock
also proves that temporaries of this prefix are stale (their writer died). The lock files
live in ``<tmp>/twinmode-locks`` (named by a hash of the folder), not among the
checkpoints; the shared ``latest`` pointer is written under a ``flock`` of the folder itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import chain, count
from pathlib import Path

from .._io import shared_temp_folder
from ..serialization import CheckpointError
from .checkpoint_names import prefix_of


class RunLock:
    """An exclusive, non-blocking ``flock`` on one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, block: bool = False) -> bool:
        flags = os.O_RDONLY if self.path.is_dir() else os.O_RDONLY | os.O_CREAT
        fd = os.open(self.path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def run_prefixes(base: str) -> Iterator[str]:
    yield base
    for i in count(1):
        yield f"{base}_{i}"


def in_family(prefix: str, base: str) -> bool:
    """``lenet`` and ``lenet_3`` are runs of ``lenet``."""
    return prefix == base or (prefix.startswith(base + "_") and prefix[len(base) + 1:].isdigit())


def _has_files(directory: Path, prefix: str) -> bool:
    return any(prefix_of(name) == prefix for name in os.listdir(directory))


class RunBusy(CheckpointError):
    """The run a checkpoint belongs to is being trained by a running process: resuming it
    now would fork one run into two writers of the same files (and MLflow run)."""


def busy_message(checkpoint: Path) -> str:
    return (f"{checkpoint} belongs to a run that another process is training now (it holds the "
            "run's lock); wait for that process to end, then resume again")


def hold_run(checkpoint: Path) -> RunLock | None:
    """The lock of the run that wrote ``checkpoint`` (its folder and prefix), taken for a
    resume that is being prepared; :class:`RunBusy` when a running process holds it. None
    for a file not named as a run's checkpoint (nothing to hold)."""
    prefix = prefix_of(checkpoint.name)
    if prefix is None:
        return None
    lock = RunLock(lock_path(checkpoint.parent, prefix))
    if not lock.acquire():
        raise RunBusy(busy_message(checkpoint))
    return lock


def claim_prefix(directory: Path, base: str, resumed: Path | None = None,
                 held: RunLock | None = None) -> tuple[str, RunLock]:
    """The prefix this run writes under, and the lock that holds it (release at the end).
    A resume continues its checkpoint's prefix; :class:`RunBusy` when a running process
    holds it. ``held``: that prefix's lock, already taken by this process (``hold_run``)."""
    wanted = None
    if resumed is not None and resumed.parent.resolve() == directory.resolve():
        prefix = prefix_of(resumed.name)
        if prefix and in_family(prefix, base):
            wanted = prefix
    if wanted and held is not None and held.path == lock_path(directory, wanted):
        clean_stale(directory, wanted)
        return wanted, held
    candidates = chain([wanted] if wanted else [], (p for p in run_prefixes(base) if p != wanted))
    for prefix in candidates:  # (run_prefixes is endless: a free prefix always comes)
        lock = RunLock(lock_path(directory, prefix))
        if not lock.acquire():
            if prefix == wanted:
                raise RunBusy(busy_message(resumed))
            continue  # a running process holds it
        if prefix != wanted and _has_files(directory, prefix):
            lock.release()
            continue  # an earlier run's files: not ours to overwrite or prune
        clean_stale(directory, prefix)
        return prefix, lock
    raise AssertionError("unreachable")


def clean_stale(directory: Path, prefix: str) -> None:
    """Remove temporaries a killed writer left: this prefix's (we hold its lock) and the
    pointer's (under the pointer lock)."""
    for stale in directory.glob(f".{prefix}-*.tmp"):
        stale.unlink(missing_ok=True)
    with pointer_lock(directory):
        for stale in directory.glob(".latest.*.tmp"):
            stale.unlink(missing_ok=True)


def shared_lock_path(name: str) -> Path:
    """``<tmp>/twinmode-locks/<name>.lock``: a lock every process on this machine finds."""
    return shared_temp_folder("twinmode-locks") / f"{name}.lock"


def lock_path(directory: Path, prefix: str) -> Path:
    key = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    return shared_lock_path(f"{key}-{prefix}")


@contextmanager
def pointer_lock(directory: Path) -> Iterator[None]:
    lock = RunLock(Path(directory))
    lock.acquire(block=True)
    try:
        yield
    finally:
        lock.release()
