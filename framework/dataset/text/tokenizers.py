"""``mindspore.dataset.text``'s rule-based tokenizers beyond whitespace and characters:
``BasicTokenizer`` (BERT's first step), ``RegexTokenizer``, ``UnicodeScriptTokenizer``,
``PythonTokenizer``, ``WordpieceTokenizer`` and ``BertTokenizer`` (basic, then wordpiece).

They share :class:`~framework.dataset.text.basic_ops.TextTokenizer`'s output: a ``<U``
array of tokens, and with ``with_offsets=True`` their UTF-8 byte offsets (``uint32``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np

from .basic_ops import TextTokenizer, _text, own_token
from .string_ops import NormalizeForm, normalize_text
from .utils import Vocab

# BERT's tokens kept whole by ``preserve_unused_token``
_UNUSED = re.compile(r"\[(?:CLS|SEP|UNK|PAD|MASK|unused\d+)\]")


class BasicTokenizer(TextTokenizer):
    """``BasicTokenizer(lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
    preserve_unused_token=True, with_offsets=False)``: whitespace, then punctuation and CJK
    characters as tokens of their own; ``lower_case`` folds case and strips accents (offsets
    then count in the folded text); ``keep_whitespace`` keeps whitespace runs as tokens."""

    def __init__(
        self,
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form: NormalizeForm = NormalizeForm.NONE,
        preserve_unused_token: bool = True,
        with_offsets: bool = False,
    ) -> None:
        super().__init__(with_offsets)
        for name, flag in (
            ("lower_case", lower_case),
            ("keep_whitespace", keep_whitespace),
            ("preserve_unused_token", preserve_unused_token),
        ):
            if not isinstance(flag, bool):
                raise TypeError(f"{type(self).__name__}: {name} must be a bool, got {flag!r}")
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError(
                f"{type(self).__name__}: normalization_form must be a text.NormalizeForm, "
                f"got {normalization_form!r}"
            )
        self.lower_case, self.keep_whitespace = lower_case, keep_whitespace
        self.form, self.preserve = normalization_form, preserve_unused_token

    def _prepare(self, text: str) -> str:
        if not self.lower_case:
            return normalize_text(text, self.form)
        pieces, pos = [], 0
        for m in _UNUSED.finditer(text) if self.preserve else ():
            pieces += [self._fold(text[pos : m.start()]), m.group()]
            pos = m.end()
        return "".join(pieces) + self._fold(text[pos:])

    @staticmethod
    def _fold(text: str) -> str:
        folded = unicodedata.normalize("NFD", text.casefold())
        return "".join(c for c in folded if unicodedata.category(c) != "Mn")

    def __call__(self, value: Any) -> Any:
        return super().__call__(self._prepare(_text(value, type(self).__name__)))

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans = []
        for m in re.finditer(r"\S+|\s+", text):
            if m.group().isspace():
                if self.keep_whitespace:
                    spans.append(m.span())
                continue
            start, i = m.start(), m.start()
            while i < m.end():
                unused = _UNUSED.match(text, i, m.end()) if self.preserve else None
                if unused or own_token(text[i]):
                    end = unused.end() if unused else i + 1
                    if start < i:
                        spans.append((start, i))
                    spans.append((i, end))
                    start = i = end
                else:
                    i += 1
            if start < m.end():
                spans.append((start, m.end()))
        return spans


class RegexTokenizer(TextTokenizer):
    """``RegexTokenizer(delim_pattern, keep_delim_pattern="", with_offsets=False)``: split at
    the matches of ``delim_pattern``; a delimiter matching ``keep_delim_pattern`` is a token."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        if not isinstance(delim_pattern, str) or not isinstance(keep_delim_pattern, str):
            raise TypeError("RegexTokenizer: delim_pattern and keep_delim_pattern must be strings")
        self.delim = re.compile(delim_pattern)
        self.keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, pos = [], 0
        for m in self.delim.finditer(text):
            if m.start() == m.end():
                continue
            if pos < m.start():
                spans.append((pos, m.start()))
            if self.keep is not None and self.keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


_SCRIPTS = frozenset(
    "LATIN GREEK CYRILLIC ARMENIAN HEBREW ARABIC SYRIAC THAANA DEVANAGARI BENGALI "
    "GURMUKHI GUJARATI ORIYA TAMIL TELUGU KANNADA MALAYALAM SINHALA THAI LAO TIBETAN "
    "MYANMAR GEORGIAN HANGUL ETHIOPIC CHEROKEE KHMER MONGOLIAN HIRAGANA KATAKANA "
    "BOPOMOFO CJK YI".split()
)


def _script(ch: str) -> str:
    """The Unicode script of ``ch`` as its character name tells it (Common when none does;
    combining marks inherit the previous character's)."""
    if ch.isspace():
        return " "
    if unicodedata.category(ch).startswith("M"):
        return "inherited"
    words = unicodedata.name(ch, "").replace("-", " ").split()
    if "IDEOGRAPH" in words or "CJK" in words:
        return "CJK"
    return next((w for w in words if w in _SCRIPTS), "Common")


class UnicodeScriptTokenizer(TextTokenizer):
    """``UnicodeScriptTokenizer(keep_whitespace=False, with_offsets=False)``: a token per run of
    characters of one Unicode script (digits and punctuation share the Common script)."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        super().__init__(with_offsets)
        if not isinstance(keep_whitespace, bool):
            raise TypeError(
                f"UnicodeScriptTokenizer: keep_whitespace must be a bool, got {keep_whitespace!r}"
            )
        self.keep_whitespace = keep_whitespace

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        start, current = 0, None
        for i, ch in enumerate(text):
            script = _script(ch)
            if script == "inherited" and current is not None:
                continue
            if script != current:
                if current is not None and (current != " " or self.keep_whitespace):
                    spans.append((start, i))
                start, current = i, script
        if current is not None and (current != " " or self.keep_whitespace):
            spans.append((start, len(text)))
        return spans


class PythonTokenizer:
    """``PythonTokenizer(tokenizer)``: ``tokenizer(str) -> list of str`` on a string array."""

    def __init__(self, tokenizer: Callable[[str], Any]) -> None:
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be a function, got {tokenizer!r}")
        self.tokenizer = tokenizer

    def __call__(self, value: Any) -> np.ndarray:
        if not isinstance(value, np.ndarray | np.generic):
            raise TypeError(f"PythonTokenizer: input should be a NumPy array, got {type(value).__name__}")
        tokens = self.tokenizer(_text(value, "PythonTokenizer"))
        return np.array(list(tokens), dtype=str)


def _wordpiece_check(
    vocab: Any, suffix_indicator: Any, max_bytes_per_token: Any, unknown_token: Any, what: str
) -> None:
    if not isinstance(vocab, Vocab):
        raise TypeError(f"{what}: vocab must be a text.Vocab, got {type(vocab).__name__}")
    if not isinstance(suffix_indicator, str) or not isinstance(unknown_token, str):
        raise TypeError(f"{what}: suffix_indicator and unknown_token must be strings")
    if (
        isinstance(max_bytes_per_token, bool)
        or not isinstance(max_bytes_per_token, int)
        or max_bytes_per_token < 0
    ):
        raise ValueError(f"{what}: max_bytes_per_token must be an int >= 0, got {max_bytes_per_token!r}")


def wordpiece(
    word: str, ids: dict[str, int], suffix: str, max_bytes: int, unknown: str
) -> list[tuple[str, int, int]]:
    """Greedy longest-first pieces of ``word``: ``(piece, start byte, end byte)``; the
    whole word as ``unknown`` (the word itself when ``unknown`` is "") when it cannot be split."""
    size = len(word.encode("utf-8"))
    whole = [(unknown or word, 0, size)]
    if size > max_bytes:
        return whole
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else suffix + word[start:end]
            if piece in ids:
                break
            end -= 1
        if end == start:
            return whole
        pieces.append((piece, len(word[:start].encode("utf-8")), len(word[:end].encode("utf-8"))))
        start = end
    return pieces


class WordpieceTokenizer:
    """``WordpieceTokenizer(vocab, suffix_indicator="##", max_bytes_per_token=100,
    unknown_token="[UNK]", with_offsets=False)``: each word of a 1-D string array split into
    the longest vocab pieces (later pieces prefixed by ``suffix_indicator``)."""

    def __init__(
        self,
        vocab: Vocab,
        suffix_indicator: str = "##",
        max_bytes_per_token: int = 100,
        unknown_token: str = "[UNK]",
        with_offsets: bool = False,
    ) -> None:
        _wordpiece_check(vocab, suffix_indicator, max_bytes_per_token, unknown_token, "WordpieceTokenizer")
        if not isinstance(with_offsets, bool):
            raise TypeError(f"WordpieceTokenizer: with_offsets must be a bool, got {with_offsets!r}")
        self.vocab, self.suffix, self.max_bytes = vocab, suffix_indicator, max_bytes_per_token
        self.unknown, self.with_offsets = unknown_token, with_offsets

    def __call__(self, value: Any) -> Any:
        from .string_ops import string_array

        words = string_array(value, "WordpieceTokenizer").reshape(-1)
        ids = self.vocab.vocab()
        pieces = [p for w in words for p in wordpiece(str(w), ids, self.suffix, self.max_bytes, self.unknown)]
        tokens = np.array([p[0] for p in pieces] or [""][:0], dtype=str)
        if not self.with_offsets:
            return tokens
        return (
            tokens,
            np.array([p[1] for p in pieces], np.uint32),
            np.array([p[2] for p in pieces], np.uint32),
        )


class BertTokenizer(BasicTokenizer):
    """``BertTokenizer(vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
    lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
    preserve_unused_token=True, with_offsets=False)``: :class:`BasicTokenizer`, then
    :class:`WordpieceTokenizer` on each token (offsets within the text)."""

    def __init__(
        self,
        vocab: Vocab,
        suffix_indicator: str = "##",
        max_bytes_per_token: int = 100,
        unknown_token: str = "[UNK]",
        lower_case: bool = False,
        keep_whitespace: bool = False,
        normalization_form: NormalizeForm = NormalizeForm.NONE,
        preserve_unused_token: bool = True,
        with_offsets: bool = False,
    ) -> None:
        super().__init__(lower_case, keep_whitespace, normalization_form, preserve_unused_token, with_offsets)
        _wordpiece_check(vocab, suffix_indicator, max_bytes_per_token, unknown_token, "BertTokenizer")
        self.vocab, self.suffix, self.max_bytes, self.unknown = (
            vocab,
            suffix_indicator,
            max_bytes_per_token,
            unknown_token,
        )

    def __call__(self, value: Any) -> Any:
        text = self._prepare(_text(value, "BertTokenizer"))
        byte = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
        ids = self.vocab.vocab()
        pieces = []
        for a, b in self._spans(text):
            base = int(byte[a])
            pieces += [
                (p, base + s, base + e)
                for p, s, e in wordpiece(text[a:b], ids, self.suffix, self.max_bytes, self.unknown)
            ]
        tokens = np.array([p[0] for p in pieces] or [""][:0], dtype=str)
        if not self.with_offsets:
            return tokens
        return (
            tokens,
            np.array([p[1] for p in pieces], np.uint32),
            np.array([p[2] for p in pieces], np.uint32),
        )
