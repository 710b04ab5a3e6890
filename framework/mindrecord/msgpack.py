"""The MessagePack subset MindRecord's raw pages use (written from the MessagePack spec).

``pack(obj)`` takes a dict with str keys, str, bytes, int (-2**63 .. 2**64-1), float, bool
and None. Integers take the smallest form (non-negative ones unsigned, negative ones
signed); a float takes float32 when that holds it exactly, else float64, as MindSpore's
writer does. ``unpack(data, where)`` reads one value and raises ``ValueError`` naming
``where`` for anything malformed or left over.
"""

from __future__ import annotations

import math
import struct
from typing import Any


def _pack_int(v: int, out: bytearray) -> None:
    if 0 <= v <= 0x7F or -32 <= v < 0:
        out += struct.pack("b", v) if v < 0 else bytes([v])
        return
    if v >= 0:
        for limit, tag, fmt in ((0xFF, 0xCC, ">B"), (0xFFFF, 0xCD, ">H"), (0xFFFFFFFF, 0xCE, ">I"),
                                (0xFFFFFFFFFFFFFFFF, 0xCF, ">Q")):
            if v <= limit:
                out += bytes([tag]) + struct.pack(fmt, v)
                return
    else:
        for bits, tag, fmt in ((7, 0xD0, ">b"), (15, 0xD1, ">h"), (31, 0xD2, ">i"), (63, 0xD3, ">q")):
            if v >= -(1 << bits):
                out += bytes([tag]) + struct.pack(fmt, v)
                return
    raise ValueError(f"integer {v} does not fit in 64 bits")


def _pack_len(n: int, out: bytearray, fix: int | None, fix_max: int, tags: tuple[int, ...]) -> None:
    if fix is not None and n <= fix_max:
        out.append(fix | n)
    elif tags[0] and n <= 0xFF:
        out += bytes([tags[0], n])
    elif n <= 0xFFFF:
        out += bytes([tags[1]]) + struct.pack(">H", n)
    else:
        out += bytes([tags[2]]) + struct.pack(">I", n)


def _pack(obj: Any, out: bytearray) -> None:
    if obj is None or isinstance(obj, bool):
        out.append(0xC0 if obj is None else (0xC3 if obj else 0xC2))
    elif isinstance(obj, int):
        _pack_int(int(obj), out)
    elif isinstance(obj, float):
        fits = math.isfinite(obj) and abs(obj) < 3.4e38
        as32 = struct.unpack("<f", struct.pack("<f", obj))[0] if fits else None
        if as32 is not None and as32 == obj:
            out += b"\xca" + struct.pack(">f", obj)
        else:
            out += b"\xcb" + struct.pack(">d", obj)
    elif isinstance(obj, str):
        data = obj.encode("utf-8")
        _pack_len(len(data), out, 0xA0, 31, (0xD9, 0xDA, 0xDB))
        out += data
    elif isinstance(obj, bytes | bytearray):
        _pack_len(len(obj), out, None, 0, (0xC4, 0xC5, 0xC6))
        out += obj
    elif isinstance(obj, dict):
        _pack_len(len(obj), out, 0x80, 15, (0, 0xDE, 0xDF))
        for key, value in obj.items():
            _pack(str(key), out)
            _pack(value, out)
    else:
        raise TypeError(f"cannot pack {type(obj).__name__}")


def pack(obj: Any) -> bytes:
    out = bytearray()
    _pack(obj, out)
    return bytes(out)


_FIXED = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i",
          0xD3: ">q", 0xCA: ">f", 0xCB: ">d"}
_SIZED = {0xD9: (">B", "str"), 0xDA: (">H", "str"), 0xDB: (">I", "str"), 0xC4: (">B", "bin"),
          0xC5: (">H", "bin"), 0xC6: (">I", "bin"), 0xDE: (">H", "map"), 0xDF: (">I", "map"),
          0xDC: (">H", "array"), 0xDD: (">I", "array")}


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("record ends early")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def number(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def compound(self, kind: str, n: int) -> Any:
        if kind == "str":
            return self.take(n).decode("utf-8")
        if kind == "bin":
            return self.take(n)
        if kind == "array":
            return [self.value() for _ in range(n)]
        return {self.value(): self.value() for _ in range(n)}

    def value(self) -> Any:
        tag = self.take(1)[0]
        if tag <= 0x7F or tag >= 0xE0:
            return tag if tag <= 0x7F else tag - 0x100
        if tag in _FIXED:
            return self.number(_FIXED[tag])
        if tag in _SIZED:
            fmt, kind = _SIZED[tag]
            return self.compound(kind, self.number(fmt))
        for base, kind in ((0x80, "map"), (0x90, "array"), (0xA0, "str")):
            span = 31 if kind == "str" else 15
            if base <= tag <= base + span:
                return self.compound(kind, tag - base)
        if tag in (0xC0, 0xC2, 0xC3):
            return {0xC0: None, 0xC2: False, 0xC3: True}[tag]
        raise ValueError(f"unknown MessagePack tag 0x{tag:02x}")


def unpack(data: bytes, where: str) -> Any:
    reader = _Reader(data)
    try:
        value = reader.value()
    except (ValueError, UnicodeDecodeError, struct.error) as exc:
        raise ValueError(f"{where}: damaged record ({exc})") from None
    if reader.pos != len(data):
        raise ValueError(f"{where}: damaged record ({len(data) - reader.pos} stray bytes)")
    return value
