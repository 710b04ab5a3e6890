"""``save_dataset``: MindSpore's ``Dataset.save`` — a pipeline's rows into MindRecord files.

The schema comes from the first row (NumPy values): bool, int8, int16, int32, uint8 and
uint16 are stored as int32; uint32 and int64 as int64; float16 and float32 as float32;
float64 as float64; str as string and bytes as bytes. A 0-d number is a scalar field; an
array of shape ``(d0, d1, ...)`` gets shape ``[-1, d1, ...]``. Every later row must keep
each column's kind and trailing dimensions. With ``num_files`` k, row ``i`` goes to file
``i % k`` (files ``name0`` ... ``name{k-1}``), as MindSpore's save does. Description
"mindrecord"; every scalar field is indexed. Files are committed only when every row was
written (see :class:`framework.mindrecord.writer.FileWriter`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .schema import MindRecordError, check_row
from .writer import FileWriter

_STORED = {"b": "int32", "i1": "int32", "i2": "int32", "i4": "int32", "u1": "int32", "u2": "int32",
           "u4": "int64", "i8": "int64", "f2": "float32", "f4": "float32", "f8": "float64"}
_NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
CHUNK = 1024


def _field(name: str, value: np.ndarray, where: str) -> dict[str, Any]:
    if value.dtype.kind in "US" and value.ndim == 0:
        return {"type": "string" if value.dtype.kind == "U" else "bytes"}
    key = value.dtype.kind + str(value.dtype.itemsize) if value.dtype.kind != "b" else "b"
    if key not in _STORED:
        raise MindRecordError(f"{where}: column {name!r} of dtype {value.dtype} and shape {value.shape} "
                              "cannot be stored in MindRecord")
    if value.ndim == 0:
        return {"type": _STORED[key]}
    return {"type": _STORED[key], "shape": [-1, *value.shape[1:]]}


def _convert(row: dict[str, Any], schema: dict[str, dict[str, Any]], where: str) -> dict[str, Any]:
    out = {}
    for name, spec in schema.items():
        value = np.asarray(row[name])
        kind = spec["type"]
        if kind in ("string", "bytes"):
            if value.ndim or value.dtype.kind != ("U" if kind == "string" else "S"):
                raise MindRecordError(f"{where}: column {name!r} was a {kind} and now is {value.dtype} "
                                      f"{value.shape}")
            out[name] = value.item() if kind == "string" else bytes(value.item())
            continue
        if _field(name, value, where) != spec:
            raise MindRecordError(f"{where}: column {name!r} was {spec} and now is {value.dtype} "
                                  f"{value.shape}")
        out[name] = value.astype(_NUMPY[kind]) if value.ndim else _NUMPY[kind](value)
    return out


def save_dataset(dataset: Any, file_name: str | os.PathLike[str], num_files: int = 1,
                 file_type: str = "mindrecord") -> None:
    """Write every row of one pass of ``dataset`` to ``file_name`` (see the module docstring)."""
    if file_type != "mindrecord":
        raise MindRecordError(f"save: file_type must be 'mindrecord', got {file_type!r}")
    if not isinstance(num_files, int) or isinstance(num_files, bool) or not 1 <= num_files <= 1000:
        raise MindRecordError(f"save: num_files must be an int in [1, 1000], got {num_files!r}")
    writer = FileWriter(file_name, shard_num=num_files, overwrite=False)
    try:
        _write_all(dataset, writer, os.fspath(file_name), num_files)
    except BaseException:
        writer.discard()
        raise


def _write_all(dataset: Any, writer: FileWriter, file_name: str, num_files: int) -> None:
    schema: dict[str, dict[str, Any]] | None = None
    chunk: list[dict[str, Any]] = []
    count = 0
    for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
        where = f"save {file_name}: row {count}"
        if schema is None:
            schema = {name: _field(name, np.asarray(v), where) for name, v in row.items()}
            writer.add_schema(schema, "mindrecord")
            schema = writer.schema
        converted = _convert(row, schema, where)
        check_row(converted, schema, where)
        chunk.append(converted)
        count += 1
        if len(chunk) == CHUNK * num_files:
            writer.append_checked([chunk[s::num_files] for s in range(num_files)])
            chunk = []
    if schema is None:
        raise MindRecordError(f"save {file_name}: the dataset has no rows")
    writer.append_checked([chunk[s::num_files] for s in range(num_files)])
    writer.commit()
