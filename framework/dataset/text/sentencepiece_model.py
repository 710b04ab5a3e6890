"""Reading a trained SentencePiece ``.model`` (a protobuf ``ModelProto``) and encoding text
with it as the SentencePiece library does for unigram models: the normalizer (its
precompiled character map, a darts-clone double-array trie over UTF-8, longest match
first; extra whitespace removed, a dummy ``▁`` prefix, spaces escaped as ``▁``), then the
best-scoring segmentation (Viterbi over the pieces; a character no piece covers is
``<unk>`` scored ``min score - 10``, consecutive unknowns merged).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

SPACE = "\u2581"
_UNK_PENALTY = 10.0
_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED, _UNUSED, _BYTE = 1, 2, 3, 4, 5, 6


def _fields(data: bytes) -> list[tuple[int, int, object]]:
    """Protobuf wire fields ``(number, wire type, value)`` of one message."""
    out, pos = [], 0

    def varint() -> int:
        nonlocal pos
        shift = result = 0
        while True:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7

    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value: object = varint()
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 2:
            size = varint()
            value, pos = data[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        out.append((number, wire, value))
    return out


@dataclass
class SentencePieceModelFile:
    pieces: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    types: list[int] = field(default_factory=list)
    model_type: int = 1  # UNIGRAM
    charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True

    @classmethod
    def parse(cls, data: bytes) -> SentencePieceModelFile:
        model = cls()
        for number, _, value in _fields(data):
            if number == 1:  # a piece: piece, score, type
                piece, score, kind = "", 0.0, _NORMAL
                for n, _, v in _fields(value):  # type: ignore[arg-type]
                    if n == 1:
                        piece = v.decode("utf-8")  # type: ignore[union-attr]
                    elif n == 2:
                        score = struct.unpack("<f", v)[0]  # type: ignore[arg-type]
                    elif n == 3:
                        kind = int(v)  # type: ignore[arg-type]
                model.pieces.append(piece)
                model.scores.append(score)
                model.types.append(kind)
            elif number == 2:  # trainer spec
                for n, _, v in _fields(value):  # type: ignore[arg-type]
                    if n == 3:
                        model.model_type = int(v)  # type: ignore[arg-type]
            elif number == 3:  # normalizer spec
                for n, _, v in _fields(value):  # type: ignore[arg-type]
                    if n == 2:
                        model.charsmap = bytes(v)  # type: ignore[arg-type]
                    elif n == 3:
                        model.add_dummy_prefix = bool(v)
                    elif n == 4:
                        model.remove_extra_whitespaces = bool(v)
                    elif n == 5:
                        model.escape_whitespaces = bool(v)
        if _UNKNOWN not in model.types:
            raise ValueError("the model defines no <unk> piece")
        return model


class CharsMap:
    """The normalizer's precompiled map: a darts-clone double array over UTF-8 bytes whose
    leaf values are offsets of NUL-terminated replacements after it."""

    def __init__(self, blob: bytes) -> None:
        size = struct.unpack("<I", blob[:4])[0]
        self.units = struct.unpack(f"<{size // 4}I", blob[4 : 4 + size])
        self.strings = blob[4 + size :]

    @staticmethod
    def _offset(unit: int) -> int:
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    def longest(self, key: bytes) -> tuple[int, bytes] | None:
        """``(matched length, replacement)`` of the longest prefix of ``key`` in the map."""
        units, pos = self.units, 0
        pos ^= self._offset(units[0])
        best = None
        for i, byte in enumerate(key):
            pos ^= byte
            unit = units[pos]
            if (unit & ((1 << 31) | 0xFF)) != byte:
                break
            pos ^= self._offset(unit)
            if (unit >> 8) & 1:
                value = units[pos] & ((1 << 31) - 1)
                end = self.strings.index(b"\0", value)
                best = (i + 1, self.strings[value:end])
        return best


def normalize(model: SentencePieceModelFile, text: str) -> str:
    data = text.encode("utf-8")
    table = CharsMap(model.charsmap) if model.charsmap else None
    out, pos = [], 0
    while pos < len(data):
        match = table.longest(data[pos : pos + 64]) if table else None
        if match:
            out.append(match[1].decode("utf-8"))
            pos += match[0]
        else:
            length = 1
            while pos + length < len(data) and (data[pos + length] & 0xC0) == 0x80:
                length += 1
            out.append(data[pos : pos + length].decode("utf-8", errors="replace"))
            pos += length
    normalized = "".join(out)
    if model.remove_extra_whitespaces:
        normalized = " ".join(normalized.split(" "))
        normalized = " ".join(w for w in normalized.split(" ") if w)
    if not normalized:
        return ""
    if model.add_dummy_prefix:
        normalized = " " + normalized
    return normalized.replace(" ", SPACE) if model.escape_whitespaces else normalized


def encode_unigram(model: SentencePieceModelFile, text: str) -> list[tuple[str, int]]:
    """The best segmentation of normalized ``text``: ``(piece, id)`` pairs."""
    ids = {p: i for i, p in enumerate(model.pieces) if model.types[i] in (_NORMAL, _USER_DEFINED)}
    unk = model.types.index(_UNKNOWN)
    normal_scores = [s for s, t in zip(model.scores, model.types) if t == _NORMAL]
    unk_score = (min(normal_scores) if normal_scores else 0.0) - _UNK_PENALTY
    longest = max((len(p) for p in ids), default=1)
    n = len(text)
    best = [float("-inf")] * (n + 1)
    back: list[tuple[int, int]] = [(0, -1)] * (n + 1)
    best[0] = 0.0
    for end in range(1, n + 1):
        for start in range(max(0, end - longest), end):
            if best[start] == float("-inf"):
                continue
            piece_id = ids.get(text[start:end], -1)
            if piece_id >= 0:
                score = 0.0 if model.types[piece_id] == _USER_DEFINED else model.scores[piece_id]
            elif end - start == 1:
                score, piece_id = unk_score, unk
            else:
                continue
            if best[start] + score > best[end]:
                best[end], back[end] = best[start] + score, (start, piece_id)
    pieces: list[tuple[str, int]] = []
    end = n
    while end > 0:
        start, piece_id = back[end]
        pieces.append((text[start:end], piece_id))
        end = start
    pieces.reverse()
    merged: list[tuple[str, int]] = []
    for piece, piece_id in pieces:  # runs of unknown characters are one <unk>
        if piece_id == unk and merged and merged[-1][1] == unk:
            merged[-1] = (merged[-1][0] + piece, unk)
        else:
            merged.append((piece, piece_id))
    return merged
