"""``FileWriter``: MindSpore's MindRecord writer (files MindSpore 2.10 reads, and the reverse).

    writer = FileWriter("data.mindrecord", shard_num=1, overwrite=True)
    writer.add_schema({"label": {"type": "int32"}, "data": {"type": "int32", "shape": [-1]}}, "desc")
    writer.add_index(["label"])             # optional; default: every scalar field
    writer.write_raw_data([{"label": 1, "data": np.array([1, 2], np.int32)}])
    writer.commit()

``shard_num`` > 1 writes ``data.mindrecord0`` ... ``data.mindrecordN-1``; each call's rows
are cut into ``shard_num`` consecutive runs (the first ones a row longer). Every data file
gets its SQLite index ``<file>.db``. Rows are checked against the schema when written
(:func:`framework.mindrecord.schema.check_row`); a bad row is an error naming the file, the
row and the field, and nothing of that call is written. Until ``commit`` the data go to
hidden ``.<name>.partial`` files beside the targets; ``commit`` writes each header and index,
then removes an old data file, renames the index and, last, the data file into place, so a
file under its own name is always complete. A failed ``commit`` removes the partial files.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import codec
from .index_db import write_index
from .layout import HEADER_SIZE, PAGE_SIZE, ShardLayout, header_json
from .schema import (
    MindRecordError,
    blob_fields,
    check_index_fields,
    check_row,
    check_schema,
    default_index_fields,
)

_MIN_HEADER, _MAX_HEADER = 1 << 14, 1 << 27
_MIN_PAGE, _MAX_PAGE = 1 << 15, 1 << 28


def shard_paths(file_name: str | os.PathLike[str], shard_num: int) -> list[str]:
    path = os.fspath(file_name)
    return [path] if shard_num == 1 else [f"{path}{i}" for i in range(shard_num)]


def _partial(path: str) -> str:
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.partial")


class FileWriter:
    """``FileWriter(file_name, shard_num=1, overwrite=False)``; see the module docstring."""

    def __init__(self, file_name: str | os.PathLike[str], shard_num: int = 1,
                 overwrite: bool = False) -> None:
        if not isinstance(shard_num, int) or isinstance(shard_num, bool) or not 1 <= shard_num <= 1000:
            raise MindRecordError(f"FileWriter: shard_num must be an int in [1, 1000], got {shard_num!r}")
        self.paths = shard_paths(file_name, shard_num)
        folder = os.path.dirname(os.path.abspath(self.paths[0]))
        if not os.path.isdir(folder):
            raise MindRecordError(f"FileWriter: folder {folder} of {self.paths[0]} does not exist")
        for path in self.paths:
            for target in (path, path + ".db"):
                if os.path.exists(target) and not overwrite:
                    raise MindRecordError(f"FileWriter: {target} already exists; pass overwrite=True "
                                          "to replace it")
        self.overwrite = overwrite
        self.schema: dict[str, dict[str, Any]] | None = None
        self.desc, self.index_fields, self.blobs = "", None, []
        self.header_size, self.page_size = HEADER_SIZE, PAGE_SIZE
        self.layouts: list[ShardLayout] = []
        self.handles: list[Any] = []
        self.index_values: list[list[Any]] = [[] for _ in self.paths]
        self.compression = 0
        self.committed = False

    # -- setup -------------------------------------------------------------------------------
    def _before_data(self, what: str) -> None:
        if self.committed:
            raise MindRecordError(f"{self.paths[0]}: {what} after commit")
        if self.layouts:
            raise MindRecordError(f"{self.paths[0]}: {what} must come before write_raw_data")

    def add_schema(self, content: dict[str, Any], desc: str | None = None) -> int:
        self._before_data("add_schema")
        if self.schema is not None:
            raise MindRecordError(f"{self.paths[0]}: add_schema was already called (one schema a file)")
        self.schema = check_schema(content, f"{self.paths[0]}: add_schema")
        self.desc = "" if desc is None else str(desc)
        self.blobs = blob_fields(self.schema)
        return 0

    def add_index(self, index_fields: Sequence[str]) -> None:
        self._before_data("add_index")
        if self.schema is None:
            raise MindRecordError(f"{self.paths[0]}: add_index needs add_schema first")
        self.index_fields = check_index_fields(index_fields, self.schema, f"{self.paths[0]}: add_index")

    def set_header_size(self, header_size: int) -> None:
        self._before_data("set_header_size")
        if not _MIN_HEADER <= header_size <= _MAX_HEADER:
            raise MindRecordError(f"set_header_size: {header_size} is outside [16 KB, 128 MB]")
        self.header_size = int(header_size)

    def set_page_size(self, page_size: int) -> None:
        self._before_data("set_page_size")
        if not _MIN_PAGE <= page_size <= _MAX_PAGE:
            raise MindRecordError(f"set_page_size: {page_size} is outside [32 KB, 256 MB]")
        self.page_size = int(page_size)

    # -- data --------------------------------------------------------------------------------
    def _open(self) -> None:
        for shard, path in enumerate(self.paths):
            self.layouts.append(ShardLayout(shard, self.header_size, self.page_size))
            self.handles.append(open(_partial(path), "w+b"))  # noqa: SIM115 (kept open until commit)

    def write_raw_data(self, raw_data: Sequence[dict[str, Any]], parallel_writer: bool = False) -> None:
        """Check and append rows (a list of dicts, one per row)."""
        if self.committed:
            raise MindRecordError(f"{self.paths[0]}: write_raw_data after commit")
        if self.schema is None:
            raise MindRecordError(f"{self.paths[0]}: write_raw_data needs add_schema first")
        if not isinstance(raw_data, list | tuple):
            raise MindRecordError(f"{self.paths[0]}: write_raw_data takes a list of dicts, got "
                                  f"{type(raw_data).__name__}")
        for i, row in enumerate(raw_data):
            check_row(row, self.schema, f"{self.paths[0]}: write_raw_data row {i}")
        n, k = len(raw_data), len(self.paths)
        bounds = [0]
        for shard in range(k):
            bounds.append(bounds[-1] + n // k + (1 if shard < n % k else 0))
        self.append_checked([raw_data[bounds[s]:bounds[s + 1]] for s in range(k)])

    def append_checked(self, shard_rows: Sequence[Sequence[dict[str, Any]]]) -> None:
        """Append rows already checked against the schema, ``shard_rows[s]`` to shard ``s``."""
        if not self.layouts:
            self._open()
        for shard, rows in enumerate(shard_rows):
            self._write_shard(shard, rows)

    def _write_shard(self, shard: int, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        encoded = [codec.encode_row(row, self.schema, self.blobs) for row in rows]
        ops = self.layouts[shard].place_rows([(raw, blob) for raw, blob, _ in encoded])
        handle = self.handles[shard]
        for op in ops:
            if op[0] == "copy":
                handle.seek(op[1])
                moved = handle.read(op[3])
                handle.seek(op[2])
                handle.write(moved)
            else:
                handle.seek(op[1])
                handle.write(op[2])
        self.compression += sum(saved for _, _, saved in encoded)
        fields = self._index_fields()
        self.index_values[shard].extend([row[f].item() if hasattr(row[f], "item") else row[f] for f in fields]
                                        for row in rows)

    def _index_fields(self) -> list[str]:
        return self.index_fields if self.index_fields is not None else default_index_fields(self.schema)

    # -- commit ------------------------------------------------------------------------------
    def commit(self) -> None:
        """Write headers and indexes and move the files into place (see the module docstring)."""
        if self.committed:
            raise MindRecordError(f"{self.paths[0]}: commit was already called")
        if self.schema is None:
            raise MindRecordError(f"{self.paths[0]}: commit needs add_schema first")
        if not self.layouts:
            self._open()
        try:
            self._finish()
        except BaseException:
            self.discard()
            raise
        self.committed = True

    def _finish(self) -> None:
        names = [os.path.basename(p) for p in self.paths]
        for shard, path in enumerate(self.paths):
            layout, handle = self.layouts[shard], self.handles[shard]
            header = header_json(layout, self.schema, self.desc, self.blobs, self._index_fields(), names,
                                 self.compression)
            handle.seek(0)
            handle.write(header)
            end = layout.file_size()
            handle.truncate(len(header) if end is None else end)
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            write_index(_partial(path) + ".db", names[shard], self._index_fields(), self.schema,
                        self.layouts[shard].locations, self.index_values[shard])
        for path in self.paths:
            if os.path.exists(path):  # never an old data file beside the new index
                os.remove(path)
            os.replace(_partial(path) + ".db", path + ".db")
            os.replace(_partial(path), path)

    def discard(self) -> None:
        for handle in self.handles:
            handle.close()
        for path in self.paths:
            for leftover in (_partial(path), _partial(path) + ".db"):
                if os.path.exists(leftover):
                    os.remove(leftover)

    def __del__(self) -> None:  # an uncommitted writer leaves no partial files behind
        if getattr(self, "handles", None) and not getattr(self, "committed", True):
            try:
                self.discard()
            except OSError:
                pass
