"""MindSpore's ``.ckpt`` file, read and written by a small protobuf wire-format codec.

The file is a run of protobuf ``Checkpoint`` messages laid end to end (which protobuf reads
as one message), in MindSpore's ``checkpoint.proto`` (proto2)::

    message Checkpoint { message Value { required string tag = 1;
                                         oneof value { TensorProto tensor = 2;
                                                       MapTensorProto maptensor = 3; } }
                         repeated Value value = 1; }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }

``tensor_type`` is MindSpore's dtype name (``Float32``, ``Int64``, ``Bool``, ``BFloat16``, ...,
and ``str`` for a string of ``append_dict``: UTF-32-LE characters, dims ``[0]``); the content
is the raw little-endian data. A scalar has no dims. A tensor over 512 MiB is written as
consecutive values with the same tag, whose contents join. ``save_checkpoint(...,
crc_check=True)`` appends ``b"crc_num"`` and the CRC32 of the messages as 10 big-endian
bytes; when that trailer is there it is always checked. Field numbers, dtype names and the
trailer were checked against MindSpore 2.10's own files (tests/mindspore_ref/test_ckpt_mindspore.py).

Why a hand-written codec and not the ``protobuf`` package: the message is three levels and six
fields, and the wire format is a stable, public specification; with ``protobuf`` we would
need the message classes (a ``protoc`` run or a descriptor built at import), a new required
dependency for one format, and a decoder that copies every tensor's bytes into Python
``bytes`` and, on a bad file, says ``DecodeError`` with no offset. Here each tensor is read
straight from the file's buffer, every length is checked against what is left before it is
used, and a bad, cut or foreign file is refused with one line naming the path, the entry and
the byte offset. Reading only decodes data: nothing is executed. The tests check this codec
against ``protobuf`` built from the ``.proto`` above (and against MindSpore itself).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..protowire import WireError, put_varint, varint
from . import CheckpointError, widen_bfloat16

_DTYPES = {"Int8": "<i1", "UInt8": "<u1", "Int16": "<i2", "UInt16": "<u2", "Int32": "<i4",
           "UInt32": "<u4", "Int64": "<i8", "UInt64": "<u8", "Float16": "<f2", "Float32": "<f4",
           "Float64": "<f8", "Bool": "|b1", "BFloat16": "<u2"}
_NAMES = {np.dtype(code).newbyteorder("="): name for name, code in _DTYPES.items()
          if name != "BFloat16"}
SLICE_BYTES = 512 * 1024 * 1024  # MindSpore's slice size for large tensors
CRC_MARK = b"crc_num"
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_Bad, _varint = WireError, varint  # a decoding failure at .offset: one CheckpointError line


def _fields(buf: memoryview, pos: int, end: int) -> Iterator[tuple[int, int, Any, int]]:
    """``(field number, wire type, value, offset)`` of each field in ``buf[pos:end]``; the
    value of a length-delimited field is its ``(start, stop)``."""
    while pos < end:
        at = pos
        key, pos = _varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise _Bad("field number 0", at)
        if wire == _VARINT:
            value, pos = _varint(buf, pos, end)
        elif wire == _LEN:
            size, pos = _varint(buf, pos, end)
            if size > end - pos:
                raise _Bad(f"a field of {size} bytes runs past the end of its message", at)
            value, pos = (pos, pos + size), pos + size
        elif wire in (_I64, _I32):
            width = 8 if wire == _I64 else 4
            if width > end - pos:
                raise _Bad("truncated field", at)
            value, pos = None, pos + width
        else:
            raise _Bad(f"unsupported protobuf wire type {wire}", at)
        yield field, wire, value, at


def _text(buf: memoryview, span: tuple[int, int], what: str) -> str:
    try:
        return bytes(buf[span[0]:span[1]]).decode("utf-8")
    except UnicodeDecodeError:
        raise _Bad(f"{what} is not UTF-8 text", span[0]) from None


def _tensor(buf: memoryview, start: int, end: int) -> tuple[list[int], str | None, memoryview]:
    dims: list[int] = []
    ttype, content = None, buf[start:start]
    for field, wire, value, at in _fields(buf, start, end):
        if field == 1 and wire == _VARINT:
            dims.append(value)
        elif field == 1 and wire == _LEN:  # packed dims
            pos, stop = value
            while pos < stop:
                dim, pos = _varint(buf, pos, stop)
                dims.append(dim)
        elif field == 2 and wire == _LEN:
            ttype = _text(buf, value, "a tensor_type")
        elif field == 3 and wire == _LEN:
            content = buf[value[0]:value[1]]
        elif field in (1, 2, 3):
            raise _Bad(f"field {field} of a tensor has wire type {wire}", at)
    if any(d >= 2**63 for d in dims):
        raise _Bad("a negative dimension", start)
    return dims, ttype, content


def _value(buf: memoryview, start: int, end: int):
    tag = tensor = None
    for field, wire, value, at in _fields(buf, start, end):
        if field == 1 and wire == _LEN:
            tag = _text(buf, value, "a tag")
        elif field == 2 and wire == _LEN:
            tensor = _tensor(buf, *value)
        elif field == 3:
            raise _Bad("a MapParameter entry (maptensor), which twinmode does not load", at)
        elif field in (1, 2):
            raise _Bad(f"field {field} of a value has wire type {wire}", at)
    if tag is None or tensor is None:
        raise _Bad("a value without " + ("a tag" if tag is None else "a tensor"), start)
    return tag, tensor


def _convert(tag: str, dims: list[int], ttype: str | None, parts: list[memoryview], at: int) -> Any:
    data = parts[0] if len(parts) == 1 else memoryview(b"".join(parts))
    if ttype == "str":
        if len(data) % 4:
            raise _Bad(f"string entry {tag!r} has {len(data)} bytes, not a multiple of 4", at)
        try:
            return bytes(data).decode("utf-32-le").rstrip("\0")
        except UnicodeDecodeError:
            raise _Bad(f"string entry {tag!r} is not UTF-32 text", at) from None
    if ttype not in _DTYPES:
        known = ", ".join([*_DTYPES, "str"])
        raise _Bad(f"entry {tag!r} has dtype {ttype!r}, which twinmode does not load ({known})", at)
    dtype = np.dtype(_DTYPES[ttype])
    shape = tuple(dims)
    if len(shape) > 64:  # NumPy's most (MindSpore's tensors have at most 8)
        raise _Bad(f"entry {tag!r} has {len(shape)} dimensions; an array has at most 64", at)
    if shape == (0,) and len(data) == dtype.itemsize:
        shape = ()  # MindSpore reads dims [0] as a scalar
    expected = math.prod(shape) * dtype.itemsize
    if len(data) != expected:
        raise _Bad(f"entry {tag!r} holds {len(data)} bytes of data, but {ttype} {list(shape)} "
                   f"needs {expected}", at)
    try:
        array = np.frombuffer(data, np.uint8 if ttype == "Bool" else dtype).reshape(shape)
    except ValueError as error:  # sizes whose product NumPy cannot index, even with a 0 ([2**62, 0])
        raise _Bad(f"entry {tag!r} has shape {list(shape)}, which is not an array ({error})", at) from None
    if ttype == "Bool":
        return np.not_equal(array, 0, out=np.empty(shape, bool))
    if ttype == "BFloat16":
        return widen_bfloat16(array)
    return array.astype(dtype.newbyteorder("="))  # a copy the caller owns


def decode(raw: bytes, path: Path) -> dict[str, Any]:
    """``{tag: array | str}`` in file order from the bytes of a MindSpore ``.ckpt``."""
    buf = memoryview(raw)
    if len(raw) >= 17 and raw[-17:-10] == CRC_MARK:
        buf = buf[:-17]
        if zlib.crc32(buf) != int.from_bytes(raw[-10:], "big"):
            raise CheckpointError(f"{path} is corrupt: its CRC32 does not match its contents")
    entries: dict[str, Any] = {}
    run: tuple[str, list[int], str | None, int] | None = None
    parts: list[memoryview] = []
    try:
        for field, wire, value, at in _fields(buf, 0, len(buf)):
            if field != 1:
                continue  # an unknown field: skipped, as protobuf does
            if wire != _LEN:
                raise _Bad(f"field 1 has wire type {wire}", at)
            tag, (dims, ttype, content) = _value(buf, *value)
            if run is not None and tag == run[0]:  # the next slice of a large tensor
                if (dims, ttype) != (run[1], run[2]):
                    raise _Bad(f"the slices of {tag!r} disagree on shape or dtype", at)
                parts.append(content)
                continue
            if run is not None:
                entries[run[0]] = _convert(*run[:3], parts, run[3])
            if tag in entries:
                raise _Bad(f"entry {tag!r} appears twice", at)
            run, parts = (tag, dims, ttype, at), [content]
        if run is not None:
            entries[run[0]] = _convert(*run[:3], parts, run[3])
    except _Bad as bad:
        raise CheckpointError(f"{path} is not a valid MindSpore checkpoint: {bad.reason} "
                              f"(byte {bad.offset})") from None
    return entries


def _key(field: int, wire: int) -> bytes:
    return _varint_bytes(field << 3 | wire)


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    put_varint(out, value)
    return bytes(out)


def _text_field(field: int, text: str) -> bytes:
    data = text.encode("utf-8")
    return _key(field, _LEN) + _varint_bytes(len(data)) + data


def type_name(dtype: np.dtype) -> str:
    """MindSpore's name of a NumPy dtype; TypeError for one it has no name for."""
    dtype = np.dtype(dtype)
    if dtype.name == "bfloat16":  # ml_dtypes' bfloat16
        return "BFloat16"
    try:
        return _NAMES[dtype.newbyteorder("=")]
    except KeyError:
        raise TypeError(f"the MindSpore format has no dtype for {dtype}") from None


def encode(entries: Mapping[str, Any], crc: bool = False) -> list[bytes | memoryview]:
    """The chunks of a ``.ckpt`` file holding ``entries`` (``{name: array | str}``), with
    MindSpore's CRC32 trailer when ``crc``."""
    chunks: list[bytes | memoryview] = []
    for name, value in entries.items():
        if isinstance(value, str):
            ttype, dims, data = "str", [0], memoryview(value.encode("utf-32-le"))
        else:
            array = np.asarray(value, order="C")
            ttype, dims = type_name(array.dtype), list(array.shape)
            little = array.astype(array.dtype.newbyteorder("<"), copy=False) if ttype != "BFloat16" \
                else array
            data = memoryview(np.ascontiguousarray(little.reshape(-1)).view(np.uint8))
        head = b"".join(_key(1, _VARINT) + _varint_bytes(d) for d in dims) + _text_field(2, ttype)
        tag = _text_field(1, name)
        for start in range(0, len(data), SLICE_BYTES) or [0]:
            content = data[start:start + SLICE_BYTES]
            tensor_len = len(head) + 1 + len(_varint_bytes(len(content))) + len(content)
            value_len = len(tag) + 1 + len(_varint_bytes(tensor_len)) + tensor_len
            chunks.append(b"".join([_key(1, _LEN), _varint_bytes(value_len), tag,
                                    _key(2, _LEN), _varint_bytes(tensor_len), head,
                                    _key(3, _LEN), _varint_bytes(len(content))]))
            chunks.append(content)
    if crc:
        checksum = 0
        for chunk in chunks:
            checksum = zlib.crc32(chunk, checksum)
        chunks.append(CRC_MARK + checksum.to_bytes(10, "big"))
    return chunks
