"""A schema-driven protobuf wire-format codec (the subset MindIR and MindSpore's checkpoints
use), without the ``protobuf`` package; its ``varint`` and ``WireError`` also serve the
hand-written checkpoint reader (``checkpoint_formats.mindspore_ckpt``).

A schema is a dict ``{field number: (name, kind, repeated)}``; ``kind`` is ``"int"``
(varint; int32/int64/enum, negatives as ten-byte two's complement), ``"bool"``, ``"float"``
(fixed 32-bit), ``"double"`` (fixed 64-bit), ``"str"`` (UTF-8), ``"bytes"`` (a
``memoryview`` into the input on decode: tensor data is never copied twice) or a nested
schema dict (a message). :func:`decode` turns ``buf[start:end]`` into a dict of field name
-> value (a list for repeated fields; absent fields are absent; unknown fields are
skipped, as protobuf does); repeated numbers are read both packed and unpacked.
:func:`encode` is the inverse for a dict of the same shape (repeated numbers unpacked, as
proto2 writes them). A malformed buffer raises :class:`WireError` with the byte offset.
"""

from __future__ import annotations

import struct
from typing import Any

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_NUMERIC = {"int": _VARINT, "bool": _VARINT, "float": _I32, "double": _I64}
Schema = dict[int, tuple[str, Any, bool]]


class WireError(ValueError):
    """A buffer that is not the protobuf message expected, at byte ``offset``."""

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(f"{reason} (at byte {offset})")
        self.reason, self.offset = reason, offset


def varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    start = pos
    while True:
        if pos >= end:
            raise WireError("truncated number", start)
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise WireError("malformed number", start)


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _read_field(buf: memoryview, pos: int, end: int) -> tuple[int, int, Any, int]:
    """One field at ``pos``: (number, wire type, raw value, next position)."""
    key, pos = varint(buf, pos, end)
    field, wire = key >> 3, key & 7
    if field == 0:
        raise WireError("field number 0", pos)
    if wire == _VARINT:
        value, pos = varint(buf, pos, end)
        return field, wire, value, pos
    if wire == _LEN:
        size, pos = varint(buf, pos, end)
        if size > end - pos:
            raise WireError(f"a field of {size} bytes runs past the end of its message", pos)
        return field, wire, (pos, pos + size), pos + size
    if wire in (_I64, _I32):
        width = 8 if wire == _I64 else 4
        if width > end - pos:
            raise WireError("truncated field", pos)
        return field, wire, bytes(buf[pos:pos + width]), pos + width
    raise WireError(f"unsupported protobuf wire type {wire}", pos)


def _scalar(kind: str, wire: int, raw: Any, at: int) -> Any:
    if _NUMERIC[kind] != wire:
        raise WireError(f"a {kind} field has wire type {wire}", at)
    if kind == "int":
        return _signed(raw)
    if kind == "bool":
        return bool(raw)
    return struct.unpack("<f" if kind == "float" else "<d", raw)[0]


def _packed(buf: memoryview, kind: str, span: tuple[int, int]) -> list[Any]:
    pos, stop = span
    out = []
    while pos < stop:
        if kind in ("int", "bool"):
            raw, pos = varint(buf, pos, stop)
            out.append(_scalar(kind, _VARINT, raw, pos))
        else:
            width = 4 if kind == "float" else 8
            if pos + width > stop:
                raise WireError("truncated packed field", pos)
            out.append(_scalar(kind, _NUMERIC[kind], bytes(buf[pos:pos + width]), pos))
            pos += width
    return out


MAX_DEPTH = 100  # messages inside messages: protobuf's own default recursion limit


def _value(buf: memoryview, kind: Any, wire: int, raw: Any, at: int, depth: int) -> list[Any]:
    """The decoded value(s) of one field occurrence (a list: packed fields hold several)."""
    if isinstance(kind, dict):
        if wire != _LEN:
            raise WireError(f"a message field has wire type {wire}", at)
        if depth >= MAX_DEPTH:
            raise WireError(f"messages nested more than {MAX_DEPTH} deep", at)
        return [decode(buf, kind, *raw, _depth=depth + 1)]
    if kind in ("str", "bytes"):
        if wire != _LEN:
            raise WireError(f"a {kind} field has wire type {wire}", at)
        data = buf[raw[0]:raw[1]]
        if kind == "bytes":
            return [data]
        try:
            return [bytes(data).decode("utf-8")]
        except UnicodeDecodeError:
            raise WireError("a text field is not UTF-8", at) from None
    if wire == _LEN:
        return _packed(buf, kind, raw)
    return [_scalar(kind, wire, raw, at)]


def decode(buf: memoryview, schema: Schema, start: int = 0, end: int | None = None, *,
           _depth: int = 0) -> dict[str, Any]:
    """The message in ``buf[start:end]`` as a dict (see the module docstring); messages nested
    deeper than ``MAX_DEPTH`` are a ``WireError`` (Python's stack would end first)."""
    end = len(buf) if end is None else end
    out: dict[str, Any] = {}
    pos = start
    while pos < end:
        at = pos
        field, wire, raw, pos = _read_field(buf, pos, end)
        spec = schema.get(field)
        if spec is None:
            continue
        name, kind, repeated = spec
        values = _value(buf, kind, wire, raw, at, _depth)
        if repeated:
            out.setdefault(name, []).extend(values)
        elif values:
            out[name] = values[-1]
    return out


# -- encoding -------------------------------------------------------------------------------
def put_varint(out: bytearray, value: int) -> None:
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def _put(out: bytearray, field: int, kind: Any, value: Any) -> None:
    if isinstance(kind, dict) or kind in ("str", "bytes"):
        if isinstance(kind, dict):
            data = encode(kind, value)
        else:
            data = value.encode("utf-8") if kind == "str" else bytes(value)
        put_varint(out, field << 3 | _LEN)
        put_varint(out, len(data))
        out += data
        return
    put_varint(out, field << 3 | _NUMERIC[kind])
    if kind in ("int", "bool"):
        put_varint(out, int(value))
    else:
        out += struct.pack("<f" if kind == "float" else "<d", value)


def encode(schema: Schema, message: dict[str, Any]) -> bytes:
    """``message`` (a dict as :func:`decode` gives) as protobuf bytes, fields in number order."""
    out = bytearray()
    names = {name: (number, kind, repeated) for number, (name, kind, repeated) in schema.items()}
    unknown = set(message) - set(names)
    if unknown:
        raise KeyError(f"no field {sorted(unknown)[0]!r} in this message")
    for name, (number, kind, repeated) in sorted(names.items(), key=lambda item: item[1][0]):
        if name not in message or message[name] is None:
            continue
        for value in message[name] if repeated else [message[name]]:
            _put(out, number, kind, value)
    return bytes(out)
