"""Reading MindRecord files: ``ShardFile`` (one data file + its ``.db``), ``MindRecordSet``
(the files of a data set), and MindSpore's ``FileReader``.

``MindRecordSet(dataset_files)``: a str names one file of a data set and brings in every
shard its header lists (from the same folder), as MindSpore does; a list names exactly the
files to read. Rows run file by file, in row-id order within a file. Every problem is a
``MindRecordError`` naming the file: missing file or ``.db``, damaged header, an index
pointing outside the file, files of different schemas, a damaged record.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from . import codec
from .index_db import read_locations
from .layout import parse_header
from .schema import MindRecordError, check_schema


class ShardFile:
    def __init__(self, path: str) -> None:
        self.path = path
        if not os.path.isfile(path):
            raise MindRecordError(f"{path}: no such MindRecord file")
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            first = f.read(8)
            n = int.from_bytes(first, "little") if len(first) == 8 else 0
            head = first + f.read(min(n, size, 1 << 27))
        self.header = parse_header(path, head, size)
        entry = self.header["schema"][0]
        try:
            self.schema = check_schema(entry["schema"], path)
        except MindRecordError as exc:
            raise MindRecordError(f"{path}: damaged MindRecord header ({exc})") from None
        self.blobs = [name for name in self.schema if name in entry.get("blob_fields", [])]
        self.locations = read_locations(path)
        self._check_locations(size)
        self.fd = os.open(path, os.O_RDONLY)

    def _check_locations(self, size: int) -> None:
        h, p = self.header["header_size"], self.header["page_size"]
        for row, (raw_page, raw_start, raw_end, blob_page, blob_start, blob_end) in enumerate(self.locations):
            for start, end in ((raw_start, raw_end), (blob_start, blob_end)):
                if not 8 <= end - start <= p or start < 0 or end > p:
                    raise MindRecordError(f"{self.path}.db: row {row} has offsets {start}..{end} outside "
                                          f"a page of {p} bytes")
            last = max(h + raw_page * p + raw_end, h + blob_page * p + blob_end)
            if last > size:
                raise MindRecordError(f"{self.path}: truncated ({size} bytes; row {row} ends at {last})")

    def __len__(self) -> int:
        return len(self.locations)

    def _item(self, page: int, start: int, end: int, row: int) -> bytes:
        offset = self.header["header_size"] + page * self.header["page_size"] + start
        data = os.pread(self.fd, end - start, offset)
        if int.from_bytes(data[:8], "little") != end - start - 8:
            raise MindRecordError(f"{self.path}: damaged record {row} (its length does not match the index)")
        return data[8:]

    def read(self, row: int, wanted: set[str] | None = None) -> dict[str, Any]:
        """Row ``row`` as a dict: scalars as MessagePack gives them, ``bytes``, arrays in shape."""
        raw_page, raw_start, raw_end, blob_page, blob_start, blob_end = self.locations[row]
        where = f"{self.path}: row {row}"
        try:
            out: dict[str, Any] = {}
            if wanted is None or any(n not in self.blobs for n in wanted):
                out.update(codec.decode_raw(self._item(raw_page, raw_start, raw_end, row), self.schema,
                                            self.blobs, where))
            if wanted is None or any(n in self.blobs for n in wanted):
                out.update(codec.decode_blob(self._item(blob_page, blob_start, blob_end, row), self.schema,
                                             self.blobs, where, wanted))
        except MindRecordError:
            raise
        except ValueError as exc:
            raise MindRecordError(str(exc)) from None
        return out

    def close(self) -> None:
        if getattr(self, "fd", None) is not None:
            os.close(self.fd)
            self.fd = None

    def __del__(self) -> None:
        self.close()


def resolve_files(dataset_files: str | os.PathLike[str] | Sequence[Any], what: str) -> list[str]:
    """The data files of ``dataset_files`` (see the module docstring)."""
    if isinstance(dataset_files, str | os.PathLike):
        path = os.fspath(dataset_files)
        first = ShardFile(path)
        first.close()
        folder = os.path.dirname(path)
        paths = [os.path.join(folder, os.path.basename(a)) for a in first.header["shard_addresses"]]
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            raise MindRecordError(f"{path}: its header lists shard files that are missing: "
                                  f"{', '.join(missing)}")
        return paths
    if not isinstance(dataset_files, list | tuple) or not dataset_files:
        raise MindRecordError(f"{what}: dataset_files must be a file name or a non-empty list of them, "
                              f"got {dataset_files!r}")
    paths = [os.fspath(p) for p in dataset_files]
    if len(set(paths)) != len(paths):
        raise MindRecordError(f"{what}: dataset_files repeats a file: {paths}")
    return paths


class MindRecordSet:
    """The rows of several shard files as one sequence."""

    def __init__(self, dataset_files: Any, what: str = "MindDataset") -> None:
        self.files = [ShardFile(p) for p in resolve_files(dataset_files, what)]
        self.schema = self.files[0].schema
        for f in self.files[1:]:
            if f.schema != self.schema:
                raise MindRecordError(f"{what}: {f.path} has schema {f.schema}, but {self.files[0].path} has "
                                      f"{self.schema}")
        self.starts = [0]
        for f in self.files:
            self.starts.append(self.starts[-1] + len(f))

    def __len__(self) -> int:
        return self.starts[-1]

    def read(self, index: int, wanted: set[str] | None = None) -> dict[str, Any]:
        shard = next(k for k in range(len(self.files)) if index < self.starts[k + 1])
        return self.files[shard].read(index - self.starts[shard], wanted)

    def close(self) -> None:
        for f in self.files:
            f.close()


class FileReader:
    """``FileReader(file_name, num_consumer=4, columns=None, operator=None)``: ``get_next()``
    yields each row as a dict (Python scalars, ``bytes``, NumPy arrays; a float field holding
    a whole number comes as an int, as in MindSpore), ``len()``, ``schema()``, ``close()``."""

    def __init__(self, file_name: Any, num_consumer: int = 4, columns: Sequence[str] | None = None,
                 operator: Any = None) -> None:
        self.set = MindRecordSet(file_name, "FileReader")
        if columns is not None:
            unknown = [c for c in columns if c not in self.set.schema]
            if not columns or unknown:
                raise MindRecordError(f"FileReader: columns {list(columns)} must be non-empty names of "
                                      f"{list(self.set.schema)}")
        self.columns = None if columns is None else list(columns)

    def get_next(self) -> Iterator[dict[str, Any]]:
        wanted = None if self.columns is None else set(self.columns)
        floats = [n for n, spec in self.set.schema.items() if spec["type"] in ("float32", "float64")
                  and "shape" not in spec]
        for i in range(len(self.set)):
            row = self.set.read(i, wanted)
            for name in floats:  # MindSpore's FileReader gives a whole float as an int (1.0 -> 1)
                value = row.get(name)
                if isinstance(value, float) and value.is_integer():
                    row[name] = int(value)
            yield row if self.columns is None else {c: row[c] for c in self.columns}

    def len(self) -> int:
        return len(self.set)

    def schema(self) -> dict[str, dict[str, Any]]:
        return {name: dict(spec) for name, spec in self.set.schema.items()}

    def close(self) -> None:
        self.set.close()
