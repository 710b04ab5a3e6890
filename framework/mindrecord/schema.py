"""MindRecord schemas: checking a schema, sorting fields into raw and blob ones, checking rows.

A schema maps field names (``[A-Za-z_][A-Za-z0-9_]*``) to ``{"type": T}`` or, for numeric
arrays, ``{"type": T, "shape": [d, ...]}`` with ``T`` one of ``int32 int64 float32 float64
string bytes`` and at most one ``-1`` in the shape. Blob fields (``bytes`` and arrays) go
to blob pages, the others to raw pages as MessagePack. ``check_row`` accepts what
MindSpore 2.10's writer accepts: a Python int / float / str / bytes or a NumPy scalar of
the field's own type; for arrays an ndarray of the field's dtype whose size fits the
shape (any layout; it is stored flat and read back in the schema's shape). MindSpore drops
a row it refuses with a warning; here it is an error naming the row and the field.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
NUMERIC = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
INDEX_SQL_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL",
                   "string": "TEXT"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT_RANGE = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}


class MindRecordError(ValueError):
    """A MindRecord file or call that cannot be used (the message names the file and why)."""


def check_schema(content: Any, where: str) -> dict[str, dict[str, Any]]:
    """The schema with fields sorted by name (as MindSpore stores it), or an error."""
    if not isinstance(content, dict) or not content:
        raise MindRecordError(f"{where}: the schema must be a non-empty dict of fields, got {content!r}")
    out = {}
    for name in sorted(content):
        spec = content[name]
        if not isinstance(name, str) or not _NAME.match(name):
            raise MindRecordError(f"{where}: field name {name!r} must match [A-Za-z_][A-Za-z0-9_]*")
        if not isinstance(spec, dict) or spec.get("type") not in TYPES or set(spec) - {"type", "shape"}:
            raise MindRecordError(f"{where}: field {name!r} must be {{'type': one of {', '.join(TYPES)}"
                                  f"[, 'shape': [...]]}}, got {spec!r}")
        if "shape" in spec:
            shape = _check_shape(spec["shape"], spec["type"], name, where)
            out[name] = {"shape": shape, "type": spec["type"]}
        else:
            out[name] = {"type": spec["type"]}
    return out


def _check_shape(shape: Any, kind: str, name: str, where: str) -> list[int]:
    if kind not in NUMERIC:
        raise MindRecordError(f"{where}: field {name!r} of type {kind} cannot have a shape")
    ok = (isinstance(shape, list | tuple) and shape
          and all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1) for d in shape)
          and list(shape).count(-1) <= 1)
    if not ok:
        raise MindRecordError(f"{where}: field {name!r} shape must be a list of positive ints with at "
                              f"most one -1, got {shape!r}")
    return list(shape)


def is_blob(spec: dict[str, Any]) -> bool:
    return spec["type"] == "bytes" or "shape" in spec


def blob_fields(schema: dict[str, dict[str, Any]]) -> list[str]:
    return [name for name, spec in schema.items() if is_blob(spec)]


def default_index_fields(schema: dict[str, dict[str, Any]]) -> list[str]:
    return [name for name, spec in schema.items() if not is_blob(spec)]


def check_index_fields(fields: Any, schema: dict[str, dict[str, Any]], where: str) -> list[str]:
    if not isinstance(fields, list | tuple) or not fields:
        raise MindRecordError(f"{where}: add_index takes a non-empty list of field names, got {fields!r}")
    for name in fields:
        if name not in schema:
            raise MindRecordError(f"{where}: index field {name!r} is not in the schema {list(schema)}")
        if is_blob(schema[name]):
            raise MindRecordError(f"{where}: index field {name!r} must be a scalar int, float or string "
                                  f"field, not {schema[name]}")
    if len(set(fields)) != len(fields):
        raise MindRecordError(f"{where}: add_index repeats a field: {list(fields)}")
    return list(fields)


def _scalar_ok(value: Any, kind: str) -> bool:
    if kind in _INT_RANGE:
        if isinstance(value, np.generic):
            return value.dtype == NUMERIC[kind]
        low, high = _INT_RANGE[kind]
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    if kind in NUMERIC:
        return (value.dtype == NUMERIC[kind]) if isinstance(value, np.generic) else isinstance(value, float)
    return isinstance(value, str) if kind == "string" else isinstance(value, bytes)


def _array_ok(value: Any, spec: dict[str, Any]) -> str | None:
    if not isinstance(value, np.ndarray) or value.dtype != NUMERIC[spec["type"]]:
        got = f"{value.dtype} array" if isinstance(value, np.ndarray) else type(value).__name__
        return f"needs a {spec['type']} ndarray, got {got}"
    fixed = int(np.prod([d for d in spec["shape"] if d != -1]))
    free = -1 in spec["shape"]
    if value.size == 0 or (value.size % fixed if free else value.size != fixed):
        return f"has {value.size} elements, which do not fit shape {spec['shape']}"
    return None


def check_row(row: Any, schema: dict[str, dict[str, Any]], where: str) -> None:
    """Raise naming ``where`` (file and row) when ``row`` does not fit ``schema``; extra keys
    are ignored, as MindSpore does."""
    if not isinstance(row, dict):
        raise MindRecordError(f"{where}: a row must be a dict of fields, got {type(row).__name__}")
    for name, spec in schema.items():
        if name not in row:
            raise MindRecordError(f"{where}: field {name!r} is missing")
        value = row[name]
        if "shape" in spec:
            problem = _array_ok(value, spec)
        elif not _scalar_ok(value, spec["type"]):
            problem = f"needs a {spec['type']} value, got {type(value).__name__} {value!r:.40}"
        else:
            problem = None
        if problem:
            raise MindRecordError(f"{where}: field {name!r} {problem}")


def read_shape(spec: dict[str, Any], size: int) -> tuple[int, ...]:
    """The stored flat array's shape under ``spec`` (``-1`` resolved), or ValueError."""
    shape = spec["shape"]
    fixed = int(np.prod([d for d in shape if d != -1]))
    if -1 in shape:
        if size % fixed:
            raise ValueError(f"{size} elements do not fit shape {shape}")
        return tuple(size // fixed if d == -1 else d for d in shape)
    if size != fixed:
        raise ValueError(f"{size} elements do not fit shape {shape}")
    return tuple(shape)
