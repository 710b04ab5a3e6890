"""File layout of one MindRecord shard: header block, then fixed-size pages.

The file starts with an 8-byte little-endian length and the header JSON, in a block of
``header_size`` bytes; page ``p`` starts at ``header_size + p * page_size``. The file ends
where the last page's data ends (earlier pages are whole, holes read as zeros). A page is
``BLOB_DATA`` or ``RAW_DATA``; pages are numbered in the order they open, as MindSpore's
writer opens them: for each ``write_raw_data`` call the blob items go first (into the last
blob page while they fit, else a new one), then the raw items. Rows of one blob page form a
row group, whose raw items stay together in one raw page (moved whole to a new raw page
when the group grows past the page); a raw page lists where each row group begins. ``ShardLayout`` does this
bookkeeping and gives each item's place; ``header_json``/``parse_header`` write and read
the header (MindSpore's key order; version "3.0"; ``page`` and ``index_fields`` null when
empty, and a shard without rows ends right after its header JSON, as MindSpore writes it).
"""

from __future__ import annotations

import json
import struct
from typing import Any

from .schema import MindRecordError

HEADER_SIZE = 1 << 24  # MindSpore's defaults
PAGE_SIZE = 1 << 25
VERSION = "3.0"
_HEADER_KEYS = ("header_size", "page", "page_size", "schema", "shard_addresses", "version")


class ShardLayout:
    """Pages of one shard, placed as MindSpore's writer places them (see the module docstring).

    ``place_rows(items)`` takes one call's ``(raw, blob)`` byte pairs (without their length
    prefixes) and returns the file operations to do in order: ``("write", offset, data)`` and
    ``("copy", source, target, size)`` (a row group moved whole to a new raw page).
    ``locations`` holds each row's 8 index columns (``ROW_ID``, raw page, start, end, row
    group, blob page, start, end), kept up to date when a row group moves.
    """

    def __init__(self, shard_id: int, header_size: int, page_size: int) -> None:
        self.shard_id, self.header_size, self.page_size = shard_id, header_size, page_size
        self.pages: list[dict[str, Any]] = []
        self.blob: dict[str, Any] | None = None  # the last blob page
        self.raw: dict[str, Any] | None = None  # the last raw page
        self.locations: list[list[int]] = []

    def _new_page(self, kind: str, type_id: int, start_row: int, end_row: int, groups: list[dict[str, int]],
                  size: int) -> dict[str, Any]:
        page = {"end_row_id": end_row, "page_id": len(self.pages), "page_size": size, "page_type": kind,
                "page_type_id": type_id, "row_group_ids": groups, "shard_id": self.shard_id,
                "start_row_id": start_row}
        self.pages.append(page)
        return page

    def _at(self, page: dict[str, Any], offset: int) -> int:
        return self.header_size + page["page_id"] * self.page_size + offset

    def _cut(self, sizes: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Row groups: the first continues the last blob page (maybe empty), each other one
        opens a blob page; a group never outgrows a page in blob or raw bytes."""
        n_blob = self.blob["page_size"] if self.blob else 0
        n_raw = self.raw["page_size"] - self.raw["row_group_ids"][-1]["offset"] if self.raw else 0
        groups, first = [], 0
        for i, (raw, blob) in enumerate(sizes):
            if n_blob == 0 or n_blob + blob > self.page_size or n_raw + raw > self.page_size:
                groups.append((first, i))
                first, n_blob, n_raw = i, blob, raw
            else:
                n_blob, n_raw = n_blob + blob, n_raw + raw
        groups.append((first, len(sizes)))
        return groups

    def _shift(self, ops: list[tuple[Any, ...]]) -> None:
        """Move the last raw page's last row group whole to a new raw page."""
        old = self.raw
        moved = old["row_group_ids"].pop()
        size = old["page_size"] - moved["offset"]
        new = self._new_page("RAW_DATA", old["page_id"] + 1, 0, 0, [{"id": moved["id"], "offset": 0}], size)
        ops.append(("copy", self._at(old, moved["offset"]), self._at(new, 0), size))
        for loc in self.locations:
            if loc[1] == old["page_id"] and loc[2] >= moved["offset"]:
                loc[1:4] = [new["page_id"], loc[2] - moved["offset"], loc[3] - moved["offset"]]
        self.raw = new

    def place_rows(self, items: list[tuple[bytes, bytes]]) -> list[tuple[Any, ...]]:
        data = [(struct.pack("<Q", len(r)) + r, struct.pack("<Q", len(b)) + b) for r, b in items]
        too_big = max(max(len(r), len(b)) for r, b in data)
        if too_big > self.page_size:
            raise MindRecordError(f"a row needs {too_big} bytes, more than the page size {self.page_size}; "
                                  "call set_page_size with a larger size")
        groups = self._cut([(len(r), len(b)) for r, b in data])
        ops: list[tuple[Any, ...]] = []
        base = len(self.locations)
        for g, (first, stop) in enumerate(groups):
            if first == stop:
                continue
            if g:
                start_row = self.blob["end_row_id"] if self.blob else 0
                type_id = self.blob["page_type_id"] + 1 if self.blob else 0
                self.blob = self._new_page("BLOB_DATA", type_id, start_row, start_row,
                                           [{"id": 0, "offset": 0}], 0)
            for k in range(first, stop):
                offset = self.blob["page_size"]
                ops.append(("write", self._at(self.blob, offset), data[k][1]))
                self.blob["page_size"] += len(data[k][1])
                self.blob["end_row_id"] += 1
                self.locations.append([base + k, 0, 0, 0, self.blob["page_type_id"], self.blob["page_id"],
                                       offset, offset + len(data[k][1])])
        self._place_raw(groups, data, base, ops)
        return ops

    def _place_raw(self, groups: list[tuple[int, int]], data: list[tuple[bytes, bytes]], base: int,
                   ops: list[tuple[Any, ...]]) -> None:
        first, stop = groups[0]
        continued = sum(len(data[k][0]) for k in range(first, stop))
        if stop > first and self.raw["page_size"] + continued > self.page_size:
            self._shift(ops)
        last_group = self.raw["row_group_ids"][-1]["id"] if self.raw and self.raw["row_group_ids"] else -1
        for g, (first, stop) in enumerate(groups):
            if first == stop:
                continue
            size = sum(len(data[k][0]) for k in range(first, stop))
            if self.raw is None or self.raw["page_size"] + size > self.page_size:
                type_id = self.raw["page_id"] + 1 if self.raw else 0  # as MindSpore numbers them
                self.raw = self._new_page("RAW_DATA", type_id, 0, 0, [], 0)
            if g:
                last_group += 1
                self.raw["row_group_ids"].append({"id": last_group, "offset": self.raw["page_size"]})
            for k in range(first, stop):
                offset = self.raw["page_size"]
                ops.append(("write", self._at(self.raw, offset), data[k][0]))
                self.raw["page_size"] += len(data[k][0])
                self.locations[base + k][1:4] = [self.raw["page_id"], offset, self.raw["page_size"]]

    def file_size(self) -> int | None:
        """Where the file ends; None for a shard without rows (it ends after its header JSON)."""
        if not self.pages:
            return None
        last = self.pages[-1]
        return self.header_size + last["page_id"] * self.page_size + last["page_size"]


def header_json(layout: ShardLayout, schema: dict[str, Any], desc: str, blobs: list[str],
                index_fields: list[str], addresses: list[str], compression: int) -> bytes:
    header = {"header_size": layout.header_size,
              "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
              "page": layout.pages or None, "page_size": layout.page_size, "compression_size": compression,
              "schema": [{"blob_fields": blobs, "desc": desc, "schema": schema}],
              "shard_addresses": addresses, "shard_id": layout.shard_id, "statistics": None,
              "version": VERSION}
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if 8 + len(text) > layout.header_size:
        raise MindRecordError(f"the header needs {8 + len(text)} bytes, more than the header size "
                              f"{layout.header_size}; call set_header_size with a larger size")
    return struct.pack("<Q", len(text)) + text


def parse_header(path: str, head: bytes, file_size: int) -> dict[str, Any]:
    """The header of ``path`` from its first bytes, or ``MindRecordError`` saying what is wrong
    (every key the reader uses is checked for its type here: a header written by hand or by
    another tool must not fail later with a ``TypeError``)."""
    if len(head) < 8:
        raise MindRecordError(f"{path}: too short for a MindRecord file ({file_size} bytes)")
    n = struct.unpack("<Q", head[:8])[0]
    if not 0 < n <= len(head) - 8:
        raise MindRecordError(f"{path}: damaged MindRecord header (length {n} in a {file_size}-byte file)")
    try:
        header = json.loads(head[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MindRecordError(f"{path}: damaged MindRecord header ({exc})") from None
    except RecursionError:  # JSON nested past Python's stack
        raise MindRecordError(f"{path}: damaged MindRecord header (nested too deeply)") from None
    missing = [k for k in _HEADER_KEYS if not isinstance(header, dict) or k not in header]
    if missing:
        raise MindRecordError(f"{path}: damaged MindRecord header (no {', '.join(missing)})")
    if header["version"] != VERSION:
        raise MindRecordError(f"{path}: MindRecord version {header['version']!r:.40} is not supported "
                              f"(only {VERSION})")
    problem = _wrong_type(header)
    if problem:
        raise MindRecordError(f"{path}: damaged MindRecord header ({problem})")
    if 8 + n > header["header_size"] or header["page_size"] <= 0:
        raise MindRecordError(f"{path}: damaged MindRecord header (header_size {header['header_size']}, "
                              f"page_size {header['page_size']})")
    return header


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _wrong_type(header: dict[str, Any]) -> str | None:
    """What in ``header`` has the wrong type for the reader, or None."""
    for key in ("header_size", "page_size"):
        if not _is_int(header[key]):
            return f"{key} is {header[key]!r:.40}, not a whole number"
    schema = header["schema"]
    if (not isinstance(schema, list) or not schema or not isinstance(schema[0], dict)
            or not isinstance(schema[0].get("schema"), dict)):
        return "no schema"
    blobs = schema[0].get("blob_fields", [])
    if not isinstance(blobs, list) or not all(isinstance(b, str) for b in blobs):
        return f"blob_fields is {blobs!r:.40}, not a list of names"
    addresses = header["shard_addresses"]
    if not isinstance(addresses, list) or not all(isinstance(a, str) for a in addresses):
        return f"shard_addresses is {addresses!r:.40}, not a list of file names"
    return None
