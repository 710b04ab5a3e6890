"""The SQLite index beside each MindRecord file (``<file>.db``), as MindSpore 2.10 lays it out.

Table ``INDEXES`` has one row per record: ``ROW_ID``, the raw and blob page ids with the
record's start/end offsets inside each page (the 8-byte length prefix included),
``ROW_GROUP_ID`` (the blob page's number among blob pages), then for each index field
``INC_k INT`` (always 0) and ``<field>_0`` holding its value. Table ``SHARD_NAME`` holds the
data file's base name. ``write_index`` writes one such file; ``read_locations`` gives the
locations ordered by row id, raising ``MindRecordError`` naming the file when the index is
missing or unreadable.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from .schema import INDEX_SQL_TYPES, MindRecordError

_FIXED = ("ROW_ID", "PAGE_ID_RAW", "PAGE_OFFSET_RAW", "PAGE_OFFSET_RAW_END", "ROW_GROUP_ID",
          "PAGE_ID_BLOB", "PAGE_OFFSET_BLOB", "PAGE_OFFSET_BLOB_END")


def _create_sql(fields: Sequence[str], schema: dict[str, dict[str, Any]]) -> str:
    fixed = "".join(f"{name:<20} INT  NOT NULL, " for name in _FIXED)
    extra = "".join(f",INC_{k} INT, {name}_0 {INDEX_SQL_TYPES[schema[name]['type']]}"
                    for k, name in enumerate(fields))
    keys = "".join(f",INC_{k}" for k in range(len(fields)))
    return f"CREATE TABLE INDEXES(  {fixed[:-2]}{extra}, PRIMARY KEY(ROW_ID{keys}))"


def write_index(path: str, data_name: str, fields: Sequence[str], schema: dict[str, dict[str, Any]],
                locations: Sequence[tuple[int, ...]], values: Sequence[Sequence[Any]]) -> None:
    """Write ``path`` afresh: ``locations[i]`` are the 8 fixed columns of row ``i`` and
    ``values[i]`` its index field values."""
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    try:
        con.execute(_create_sql(fields, schema))
        con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        con.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?)", (data_name,))
        width = len(_FIXED) + 2 * len(fields)
        rows = ([*loc, *[x for v in vals for x in (0, v)]]
                for loc, vals in zip(locations, values, strict=True))
        con.executemany(f"INSERT INTO INDEXES VALUES ({','.join('?' * width)})", rows)
        con.commit()
    finally:
        con.close()


def read_locations(data_path: str) -> list[tuple[int, ...]]:
    """``(page_id_raw, raw_start, raw_end, page_id_blob, blob_start, blob_end)`` per row, by row id."""
    db = data_path + ".db"
    if not os.path.isfile(db):
        raise MindRecordError(f"{data_path}: its index file {os.path.basename(db)} is missing "
                              "(a MindRecord file needs both)")
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                               "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                               "ORDER BY ROW_ID").fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise MindRecordError(f"{db}: not a readable MindRecord index ({exc})") from None
    if [r[0] for r in rows] != list(range(len(rows))):
        raise MindRecordError(f"{db}: row ids are not 0..{len(rows) - 1}")
    for row, r in enumerate(rows):  # SQLite keeps any value in an INT column: text, a float
        bad = next((x for x in r[1:] if not isinstance(x, int) or x < 0), None)
        if bad is not None:
            raise MindRecordError(f"{db}: row {row} has a page id or offset {bad!r:.40}, not a whole "
                                  "number >= 0")
    return [tuple(r[1:]) for r in rows]
