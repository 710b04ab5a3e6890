"""Row encoding of MindRecord pages (learned from files MindSpore 2.10 writes).

Every row is stored twice over: its scalar fields in a raw page, its blob fields in a blob
page. Each stored item is an 8-byte little-endian length followed by that many bytes.

- raw item: a MessagePack map of the scalar (non-blob) fields, in name order (nil when
  there are none);
- blob item: with one blob field, its data alone; with several, for each (in name order) an
  8-byte big-endian length and the data; with none, four zero bytes;
- blob data: ``bytes`` as they are; float arrays as their little-endian values;
  int32/int64 arrays compressed: a 4-byte big-endian element count, then 2-bit width codes
  (00 = 1, 01 = 2, 10 = 4, 11 = 8 bytes, the smallest signed width holding the value; four
  codes a byte, first element in the high bits), then each element little-endian in its
  width.

``encode_row`` gives ``(raw, blob, saved)`` where ``saved`` is the bytes the int compression
saved (the header's ``compression_size`` sums it); ``decode_raw``/``decode_blob`` give
field dicts and raise ``ValueError`` for malformed bytes.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from . import msgpack
from .schema import NUMERIC, read_shape

_WIDTHS = (1, 2, 4, 8)
_LIMITS = [(-(1 << (8 * w - 1)), (1 << (8 * w - 1)) - 1) for w in _WIDTHS]
_LE = {1: "<i1", 2: "<i2", 4: "<i4", 8: "<i8"}
EMPTY_BLOB = b"\x00\x00\x00\x00"


def compress_ints(values: np.ndarray) -> bytes:
    flat = values.reshape(-1).astype(np.int64)
    codes = np.full(flat.shape, 3, dtype=np.uint8)
    for code in (2, 1, 0):
        low, high = _LIMITS[code]
        codes[(flat >= low) & (flat <= high)] = code
    padded = np.zeros(-(-len(codes) // 4) * 4, dtype=np.uint8)
    padded[:len(codes)] = codes
    quads = padded.reshape(-1, 4)
    type_bytes = (quads[:, 0] << 6) | (quads[:, 1] << 4) | (quads[:, 2] << 2) | quads[:, 3]
    lanes = flat.astype("<i8").view(np.uint8).reshape(-1, 8)
    body = lanes[np.arange(8) < np.array(_WIDTHS)[codes][:, None]].tobytes()  # low bytes of each
    return struct.pack(">I", len(flat)) + type_bytes.astype(np.uint8).tobytes() + body


def uncompress_ints(data: bytes, dtype: Any) -> np.ndarray:
    if len(data) < 4:
        raise ValueError("int array shorter than its count")
    count = struct.unpack(">I", data[:4])[0]
    n_types = -(-count // 4)
    types = np.frombuffer(data, np.uint8, n_types, 4) if count else np.zeros(0, np.uint8)
    if len(types) != n_types:
        raise ValueError("int array shorter than its width codes")
    codes = np.stack([(types >> s) & 3 for s in (6, 4, 2, 0)], axis=1).reshape(-1)[:count]
    widths = np.array(_WIDTHS)[codes]
    start = 4 + n_types
    if start + int(widths.sum()) != len(data):
        raise ValueError(f"int array of {count} elements has {len(data) - start} data bytes, "
                         f"its codes say {int(widths.sum())}")
    if len(set(widths.tolist())) == 1:  # one width: read in one go
        return np.frombuffer(data, _LE[int(widths[0])], count, start).astype(dtype)
    keep = np.arange(8) < widths[:, None]
    lanes = np.zeros((count, 8), dtype=np.uint8)
    lanes[keep] = np.frombuffer(data, np.uint8, int(widths.sum()), start)
    top = lanes[np.arange(count), widths - 1]
    lanes[~keep & (top >= 0x80)[:, None]] = 0xFF  # sign-extend the negative ones
    return lanes.view("<i8").reshape(-1).astype(dtype)


def _blob_data(value: Any, spec: dict[str, Any]) -> tuple[bytes, int]:
    if spec["type"] == "bytes":
        return bytes(value), 0
    array = np.ascontiguousarray(value)
    if spec["type"] in ("int32", "int64"):
        data = compress_ints(array)
        return data, array.nbytes - len(data)
    return array.astype(array.dtype.newbyteorder("<")).tobytes(), 0


def _raw_value(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def encode_row(row: dict[str, Any], schema: dict[str, dict[str, Any]],
               blobs: list[str]) -> tuple[bytes, bytes, int]:
    fields = {name: _raw_value(row[name]) for name in schema if name not in blobs}
    raw = msgpack.pack(fields or None)  # no scalar fields: MessagePack nil, as MindSpore writes
    parts = [_blob_data(row[name], schema[name]) for name in blobs]
    saved = sum(p[1] for p in parts)
    if not parts:
        return raw, EMPTY_BLOB, 0
    if len(parts) == 1:
        return raw, parts[0][0], saved
    return raw, b"".join(struct.pack(">Q", len(p[0])) + p[0] for p in parts), saved


def decode_raw(data: bytes, schema: dict[str, dict[str, Any]], blobs: list[str],
               where: str) -> dict[str, Any]:
    values = msgpack.unpack(data, where)
    if values is None and all(n in blobs for n in schema):
        return {}
    if not isinstance(values, dict):
        raise ValueError(f"{where}: damaged record (raw data is not a field map)")
    missing = [n for n in schema if n not in blobs and n not in values]
    if missing:
        raise ValueError(f"{where}: damaged record (no value for {missing})")
    return {name: values[name] for name in schema if name not in blobs}


def _split_blob(data: bytes, blobs: list[str], where: str) -> list[bytes]:
    if len(blobs) == 1:
        return [data]
    parts, pos = [], 0
    for name in blobs:
        if pos + 8 > len(data):
            raise ValueError(f"{where}: damaged record (blob ends before field {name!r})")
        size = struct.unpack(">Q", data[pos:pos + 8])[0]
        parts.append(data[pos + 8:pos + 8 + size])
        if len(parts[-1]) != size:
            raise ValueError(f"{where}: damaged record (field {name!r} runs past its blob)")
        pos += 8 + size
    if pos != len(data):
        raise ValueError(f"{where}: damaged record ({len(data) - pos} stray blob bytes)")
    return parts


def decode_field(data: bytes, spec: dict[str, Any], name: str, where: str) -> Any:
    if spec["type"] == "bytes":
        return data
    try:
        if spec["type"] in ("int32", "int64"):
            flat = uncompress_ints(data, NUMERIC[spec["type"]])
        else:
            dtype = np.dtype(NUMERIC[spec["type"]]).newbyteorder("<")
            if len(data) % dtype.itemsize:
                raise ValueError(f"{len(data)} bytes are not whole {spec['type']} values")
            flat = np.frombuffer(data, dtype).astype(NUMERIC[spec["type"]])
        return flat.reshape(read_shape(spec, flat.size))
    except ValueError as exc:
        raise ValueError(f"{where}: damaged record (field {name!r}: {exc})") from None


def decode_blob(data: bytes, schema: dict[str, dict[str, Any]], blobs: list[str], where: str,
                wanted: set[str] | None = None) -> dict[str, Any]:
    if not blobs:
        return {}
    parts = _split_blob(data, blobs, where)
    return {name: decode_field(part, schema[name], name, where)
            for name, part in zip(blobs, parts) if wanted is None or name in wanted}
