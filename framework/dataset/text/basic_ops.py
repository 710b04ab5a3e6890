"""The basic text operations (the tokenizer base, character and whitespace tokenizers,
``ToNumber``, ``Lookup``), called on one sample (a ``str``, ``bytes`` or NumPy string array)
eagerly or per row by ``map``.

Outputs are NumPy arrays as MindSpore gives them: tokens are a ``<U`` array; with
``with_offsets=True`` a tokenizer returns ``(tokens, offsets_start, offsets_limit)``, the
offsets counted in UTF-8 bytes as ``uint32``. These operations are not vectorized
:class:`~framework.dataset.ops_base.DataOp` s: rows of text differ in length, so ``map``
calls them row by row (the ops_base contract for plain callables).

- :class:`UnicodeCharTokenizer`: one token per character;
- :class:`WhitespaceTokenizer`: tokens between runs of whitespace;
- ``BasicTokenizer``, ``BertTokenizer`` and the other rule-based tokenizers are in
  :mod:`framework.dataset.text.tokenizers`;
- :class:`ToNumber`: numeric strings to ``data_type`` (integers read their leading digits);
- :class:`Lookup`: tokens to ids through a :class:`~framework.dataset.text.utils.Vocab`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import numpy as np

from ...dtype import to_np
from ..ops_base import eager_array
from .utils import Vocab


def _text(value: Any, what: str) -> str:
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        if value.ndim != 0 or value.dtype.kind not in "US":
            raise TypeError(f"{what}: expected one string, got an array of shape {value.shape} and "
                            f"dtype {value.dtype}")
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"{what}: expected a string, got {type(value).__name__}")
    return value


def _strings(value: Any, what: str) -> np.ndarray:
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    if array.dtype.kind != "U":
        raise TypeError(f"{what}: expected strings, got dtype {array.dtype}")
    return array


class TextTokenizer:
    """Base of the tokenizers: ``_spans(text)`` gives the ``(start, end)`` character spans."""

    def __init__(self, with_offsets: bool = False) -> None:
        if not isinstance(with_offsets, bool):
            raise TypeError(f"{type(self).__name__}: with_offsets must be a bool, got {with_offsets!r}")
        self.with_offsets = with_offsets

    def _spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError

    def _token(self, text: str, start: int, end: int) -> str:
        return text[start:end]

    def __call__(self, value: Any) -> Any:
        text = _text(value, type(self).__name__)
        spans = self._spans(text)
        tokens = np.array([self._token(text, a, b) for a, b in spans] or [""][:0], dtype=str)
        if not self.with_offsets:
            return tokens
        byte = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
        return (tokens, np.array([byte[a] for a, _ in spans], np.uint32),
                np.array([byte[b] for _, b in spans], np.uint32))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(with_offsets={self.with_offsets})"


class UnicodeCharTokenizer(TextTokenizer):
    """``UnicodeCharTokenizer(with_offsets=False)``: each character a token."""

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]


class WhitespaceTokenizer(TextTokenizer):
    """``WhitespaceTokenizer(with_offsets=False)``: split at runs of whitespace."""

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", text)]


def own_token(ch: str) -> bool:
    """Punctuation (Unicode P*, and ASCII symbols as BERT counts them) and CJK ideographs."""
    cp = ord(ch)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    if unicodedata.category(ch).startswith("P"):
        return True
    return any(a <= cp <= b for a, b in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                         (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


_INT_PREFIX = re.compile(r"\s*[-+]?\d+")


class ToNumber:
    """``ToNumber(data_type)``: numeric strings as numbers of ``data_type`` (same shape)."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = to_np(data_type)
        if self.dtype.kind not in "iuf":
            raise TypeError(f"ToNumber: data_type must be a numeric type, got {self.dtype}")

    def _one(self, s: str) -> Any:
        if self.dtype.kind == "f":
            return float(s)
        match = _INT_PREFIX.match(s)
        if match is None:
            raise ValueError(f"ToNumber: {s!r} is not a number")
        value = int(match.group())
        info = np.iinfo(self.dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"ToNumber: {s!r} is out of range for {self.dtype}")
        return value

    def __call__(self, value: Any) -> np.ndarray:
        strings = _strings(value, "ToNumber")
        flat = [self._one(str(s)) for s in strings.reshape(-1)]
        return eager_array(np.array(flat, dtype=self.dtype).reshape(strings.shape))

    def __repr__(self) -> str:
        return f"ToNumber({self.dtype.name})"


class Lookup:
    """``Lookup(vocab, unknown_token=None, data_type=mstype.int32)``: tokens to their ids; a
    token not in ``vocab`` gets ``unknown_token``'s id (an error without one)."""

    def __init__(self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = None) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab, self.dtype = vocab, to_np(data_type) if data_type is not None else np.dtype(np.int32)
        self.unknown = None
        if unknown_token is not None:
            ids = vocab.vocab()
            if unknown_token not in ids:
                raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocab")
            self.unknown = ids[unknown_token]

    def __call__(self, value: Any) -> np.ndarray:
        strings = _strings(value, "Lookup")
        ids = self.vocab.vocab()
        out = []
        for token in strings.reshape(-1):
            token = str(token)
            if token not in ids and self.unknown is None:
                raise ValueError(f"Lookup: {token!r} is not in the vocab and no unknown_token is given")
            out.append(ids.get(token, self.unknown))
        return eager_array(np.array(out, dtype=self.dtype).reshape(strings.shape))

    def __repr__(self) -> str:
        return f"Lookup(vocab of {len(self.vocab.vocab())} tokens, unknown id {self.unknown})"
