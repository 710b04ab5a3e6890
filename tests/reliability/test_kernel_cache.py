"""Item 1: a damaged compiled-kernel cache entry or tuning database is a miss, not a crash.

Each case populates a fresh cache in one process, damages it as a disk, a full file system or
a SIGKILL would, and runs again in a new process: the run must succeed with the same numbers,
warn in one line and leave a repaired entry behind. Before the fix these runs died in
``load_module`` with SIGBUS/SIGSEGV (negative return codes) or a RuntimeError.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from framework.backend.tvm.runtime import cache

from .helpers import HERE, python

SCRIPT = HERE / "jit_script.py"


def _populate(tmp_path: Path, *args: str) -> tuple[str, Path]:
    first = python(tmp_path, SCRIPT, *args)
    assert first.returncode == 0, first.stderr
    libraries = sorted((tmp_path / "compiled").glob("*.so"))
    assert len(libraries) == 1
    return first.stdout, libraries[0]


def _rerun_ok(tmp_path: Path, expected: str, *args: str) -> str:
    again = python(tmp_path, SCRIPT, *args)
    assert again.returncode == 0, f"rc {again.returncode}: {again.stderr[-2000:]}"
    assert again.stdout == expected
    return again.stderr


def test_truncated_library_is_rebuilt(tmp_path: Path) -> None:
    expected, library = _populate(tmp_path)
    size = library.stat().st_size
    os.truncate(library, size // 2)
    stderr = _rerun_ok(tmp_path, expected)
    assert "damaged" in stderr and library.name in stderr
    assert cache.problem(library) is None and library.stat().st_size == size


def test_flipped_bytes_are_rebuilt(tmp_path: Path) -> None:
    expected, library = _populate(tmp_path)
    data = bytearray(library.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    library.write_bytes(bytes(data))
    stderr = _rerun_ok(tmp_path, expected)
    assert "do not match the checksum" in stderr
    assert cache.problem(library) is None


def test_library_without_checksum_is_a_miss(tmp_path: Path) -> None:
    """What a kill between writing the library and its checksum leaves (or an old cache)."""
    expected, library = _populate(tmp_path)
    cache.checksum_path(library).unlink()
    library.write_bytes(library.read_bytes()[:100])  # and the library itself is cut short
    _rerun_ok(tmp_path, expected)
    assert cache.problem(library) is None


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    expected, library = _populate(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    host = cache._host()
    stale = library.with_name(f".{library.name}.{host}.{dead}.tmp.so")
    alive = library.with_name(f".{library.name}.{host}.{os.getpid()}.tmp.so")
    legacy = library.with_name("tmpabc123.so")
    for path in (stale, alive, legacy):
        path.write_bytes(b"half a library")
    os.utime(legacy, (0, 0))  # written long ago
    _rerun_ok(tmp_path, expected)
    assert not stale.exists() and not legacy.exists()
    assert alive.exists()  # a live writer's file is left alone


@pytest.mark.parametrize("damage", ["garbage", "unsealed"])
def test_damaged_tuning_database_is_started_afresh(tmp_path: Path, damage: str) -> None:
    expected, library = _populate(tmp_path, "2")
    [database] = list((tmp_path / "compiled" / "tuning").iterdir())
    records = database / "database_tuning_record.json"
    assert records.is_file() and cache.problem(records) is None
    with open(records, "ab") as f:
        f.write(b"garbage{\x00\xff")
    if damage == "unsealed":  # a kill during tuning: the files changed after the last seal
        cache.checksum_path(records).unlink()
    library.unlink()  # compile again, so the database is opened
    stderr = _rerun_ok(tmp_path, expected, "2")
    assert "tuning database" in stderr and "damaged" in stderr
    assert cache.problem(records) is None
