"""The on-disk cache of compiled kernels: where it is, how entries are written and verified.

An entry is a shared library ``<key>.so`` plus ``<key>.so.sha256``, the library's SHA-256
and size. Both are written to unique temporary files, fsynced and renamed into place (the
checksum last), so a kill at any moment leaves either no entry, the old one, or a
complete new one. Before a library is loaded its bytes are checked against the checksum:
a truncated or edited library would crash the process in ``dlopen`` (SIGBUS, SIGSEGV),
which no ``except`` can catch. A bad entry is a miss: one warning line, then the caller
rebuilds and replaces it. The same rules guard the tuning database (:func:`verify_files`,
:func:`seal_files`).

Temporary files carry the host name and process id of their writer; those of processes
that no longer run are deleted when a cache directory is next used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

SUFFIX = ".sha256"
_TMP = ".tmp"
_checked_dirs: set[Path] = set()


class CacheWarning(UserWarning):
    """A damaged cache entry was found and will be rebuilt."""


def cache_dir() -> Path:
    """``$TWINMODE_CACHE_DIR``, else ``$XDG_CACHE_HOME/twinmode/compiled`` (``~/.cache``)."""
    root = os.environ.get("TWINMODE_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinmode" / "compiled"


# -- temporaries ---------------------------------------------------------------------------
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]+)\.(?P<pid>\d+)\.tmp(\.\w+)?$")
LEGACY_AGE = 600.0  # seconds after which an old-style ``tmpXXXX.so`` is surely abandoned


def _host() -> str:
    return socket.gethostname().replace(".", "-") or "host"


def temp_path(target: Path, suffix: str = "") -> Path:
    """A temporary sibling of ``target`` naming this host and process (``suffix`` kept last,
    for writers that choose the format by it)."""
    return target.with_name(f".{target.name}.{_host()}.{os.getpid()}{_TMP}{suffix}")


def _owner_gone(path: Path) -> bool:
    match = _TEMP_NAME.match(path.name)
    if match is None or match["host"] != _host():
        return False
    try:
        os.kill(int(match["pid"]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, owned by another user
        return False
    return False


def clean_stale(directory: Path) -> list[Path]:
    """Delete the temporaries of writers that no longer run (a SIGKILL mid-write)."""
    removed: list[Path] = []
    if not directory.is_dir():
        return removed
    now = time.time()
    for entry in directory.iterdir():
        stale = _owner_gone(entry) if entry.name.startswith(".") else (
            entry.name.startswith("tmp") and entry.suffix == ".so"
            and now - entry.stat().st_mtime > LEGACY_AGE)
        if not stale:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


def prepare(directory: Path) -> Path:
    """Create ``directory`` and, once per process, remove stale temporaries in it."""
    directory.mkdir(parents=True, exist_ok=True)
    if directory not in _checked_dirs:
        clean_stale(directory)
        _checked_dirs.add(directory)
    return directory


# -- checksums -----------------------------------------------------------------------------
def _digest(path: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def _fsync(path: Path) -> None:
    """Flush a file's (or a directory's entries') writes to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def checksum_path(path: Path) -> Path:
    return path.with_name(path.name + SUFFIX)


def problem(path: Path) -> str | None:
    """Why ``path`` may not be used (no checksum, size or checksum differ), or None."""
    try:
        record = json.loads(checksum_path(path).read_text())
        expected, size = str(record["sha256"]), int(record["size"])
    except FileNotFoundError:
        return "it has no checksum file (written by an older version or cut short)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"its checksum file {checksum_path(path).name} is damaged"
    try:
        actual, actual_size = _digest(path)
    except OSError as error:
        return f"it cannot be read ({error.strerror or error})"
    if actual_size != size:
        return f"it has {actual_size} bytes, {size} were written"
    if actual != expected:
        return "its contents do not match the checksum written with it"
    return None


def discard(path: Path, reason: str, what: str = "compiled-kernel cache entry") -> None:
    """Warn in one line and remove a bad entry so that it is rebuilt."""
    warnings.warn(f"{what} {path} is damaged ({reason}); rebuilding it", CacheWarning, stacklevel=3)
    for p in (path, checksum_path(path)):
        try:
            p.unlink(missing_ok=True)
        except IsADirectoryError:
            shutil.rmtree(p, ignore_errors=True)


def verified(path: Path, what: str = "compiled-kernel cache entry") -> bool:
    """True when ``path`` exists and matches its checksum; a bad entry is discarded."""
    if not path.exists() and not checksum_path(path).exists():
        return False
    reason = problem(path) if path.is_file() else "the file is missing"
    if reason is None:
        return True
    discard(path, reason, what)
    return False


def seal(path: Path) -> None:
    """Write ``path``'s checksum file (after fsyncing ``path`` itself)."""
    _fsync(path)
    digest, size = _digest(path)
    _write_synced(checksum_path(path), json.dumps({"sha256": digest, "size": size}).encode())
    _fsync(path.parent)


def store(path: Path, write: Callable[[str], None]) -> None:
    """Write an entry: ``write(tmp)`` creates the file, which is fsynced, checksummed and
    renamed to ``path``; the checksum file follows. A kill at any point leaves no
    entry that passes :func:`verified` unless it is complete."""
    prepare(path.parent)
    checksum_path(path).unlink(missing_ok=True)  # from here on the old entry is a miss
    tmp = temp_path(path, path.suffix)  # export_library picks the format by the suffix
    try:
        write(str(tmp))
        _fsync(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    seal(path)


# -- groups of files (the tuning database) -------------------------------------------------
def verify_files(directory: Path, names: Iterable[str], what: str) -> bool:
    """Check files written by another library against the checksums :func:`seal_files` left;
    on a mismatch warn, delete them and return False (start afresh)."""
    bad = []
    for name in names:
        path = directory / name
        if path.exists() or checksum_path(path).exists():
            reason = problem(path) if path.is_file() else "the file is missing"
            if reason is not None:
                bad.append(f"{name}: {reason}")
    if not bad:
        return True
    warnings.warn(f"{what} in {directory} is damaged ({'; '.join(bad)}); starting it afresh",
                  CacheWarning, stacklevel=2)
    for name in names:
        for p in (directory / name, checksum_path(directory / name)):
            p.unlink(missing_ok=True)
    return False


def seal_files(directory: Path, names: Iterable[str]) -> None:
    for name in names:
        if (directory / name).is_file():
            seal(directory / name)
