"""``mindspore.dataset.text``'s string and sequence operations: ``CaseFold``,
``NormalizeUTF8`` (with :class:`NormalizeForm`), ``RegexReplace``, ``FilterWikipediaXML``,
``AddToken``, ``Truncate``, ``TruncateSequencePair``, ``Ngram`` and ``SlidingWindow``.

String operations keep the input's shape (a ``str`` gives a 0-d ``<U`` array, as
MindSpore's eager calls do); the sequence operations work on 1-D arrays.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from typing import Any

import numpy as np

from ..ops_base import eager_array


class NormalizeForm(Enum):
    """Unicode normalization forms (``NONE``: unchanged)."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def normalize_text(text: str, form: NormalizeForm) -> str:
    return text if form is NormalizeForm.NONE else unicodedata.normalize(form.name, text)


def string_array(value: Any, what: str) -> np.ndarray:
    """A ``<U`` array of ``value`` (a str, bytes, a string array or Tensor)."""
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    if array.dtype.kind != "U":
        raise RuntimeError(f"{what}: the input must be strings, got dtype {array.dtype}")
    return array


def map_strings(value: Any, fn: Any, what: str) -> np.ndarray:
    array = string_array(value, what)
    out = [fn(str(s)) for s in array.reshape(-1)]
    return np.array(out, dtype=str).reshape(array.shape) if out else array.copy()


def nfkc_casefold(text: str) -> str:
    """Unicode's NFKC_Casefold (ICU's, which MindSpore uses): ``"ß"`` -> ``"ss"``, ``"ǅ"`` -> ``"dž"``."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).casefold()


class CaseFold:
    """``CaseFold()``: NFKC case folding (``"ß"`` -> ``"ss"``, ``"Ａ"`` -> ``"a"``)."""

    def __call__(self, value: Any) -> np.ndarray:
        return map_strings(value, nfkc_casefold, "CaseFold")


class NormalizeUTF8:
    """``NormalizeUTF8(normalize_form=NormalizeForm.NFKC)``."""

    def __init__(self, normalize_form: NormalizeForm = NormalizeForm.NFKC) -> None:
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError(
                f"NormalizeUTF8: normalize_form must be a text.NormalizeForm, got {normalize_form!r}"
            )
        self.form = normalize_form

    def __call__(self, value: Any) -> np.ndarray:
        return map_strings(value, lambda s: normalize_text(s, self.form), "NormalizeUTF8")


class RegexReplace:
    """``RegexReplace(pattern, replace, replace_all=True)``: every match (or the first) replaced."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        if not isinstance(pattern, str) or not isinstance(replace, str):
            raise TypeError(
                f"RegexReplace: pattern and replace must be strings, got {pattern!r}, {replace!r}"
            )
        if not isinstance(replace_all, bool):
            raise TypeError(f"RegexReplace: replace_all must be a bool, got {replace_all!r}")
        self.regex = re.compile(pattern)
        self.replace = re.sub(r"\$(\d)", r"\\\1", replace)  # ICU's $1 is Python's \1
        self.count = 0 if replace_all else 1

    def __call__(self, value: Any) -> np.ndarray:
        return map_strings(value, lambda s: self.regex.sub(self.replace, s, count=self.count), "RegexReplace")


_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _filter_wikipedia(text: str) -> str:
    text = re.sub(r"<.*>", "", text)  # markup (with what it encloses), references, comments
    text = re.sub(r"&[A-Za-z0-9#]+;", " ", text)  # entities: &amp; &nbsp; ...
    text = re.sub(r"[0-9]", lambda m: f" {_DIGITS[int(m.group())]} ", text)
    text = re.sub(r"[^a-z]+", " ", text.translate(_LOWER))
    return text.strip()


_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class FilterWikipediaXML:
    """``FilterWikipediaXML()``: Wikipedia markup to plain text of lowercase a-z words (digits
    spelled out, ``<...>`` markup and ``&..;`` entities dropped, single spaces)."""

    def __call__(self, value: Any) -> np.ndarray:
        return map_strings(value, _filter_wikipedia, "FilterWikipediaXML")


def _sequence(value: Any, what: str) -> np.ndarray:
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    return array


class AddToken:
    """``AddToken(token, begin=True)``: ``token`` added at the start (or the end) of a 1-D array
    of strings."""

    def __init__(self, token: str, begin: bool = True) -> None:
        if not isinstance(token, str) or not isinstance(begin, bool):
            raise TypeError(f"AddToken: token must be a str and begin a bool, got {token!r}, {begin!r}")
        self.token, self.begin = token, begin

    def __call__(self, value: Any) -> np.ndarray:
        array = string_array(value, "AddToken")
        if array.ndim != 1:
            raise RuntimeError(f"AddToken: the input must be 1-D, got shape {array.shape}")
        items = [self.token, *array.tolist()] if self.begin else [*array.tolist(), self.token]
        return np.array(items, dtype=str)


class Truncate:
    """``Truncate(max_seq_len)``: the first ``max_seq_len`` items of the last axis (1-D or 2-D)."""

    def __init__(self, max_seq_len: int) -> None:
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
            raise ValueError(f"Truncate: max_seq_len must be an int >= 1, got {max_seq_len!r}")
        self.max_seq_len = max_seq_len

    def __call__(self, value: Any) -> np.ndarray:
        array = _sequence(value, "Truncate")
        if array.ndim not in (1, 2):
            raise RuntimeError(f"Truncate: the input must be 1-D or 2-D, got shape {array.shape}")
        return eager_array(np.ascontiguousarray(array[..., : self.max_seq_len]))


class TruncateSequencePair:
    """``TruncateSequencePair(max_length)``: two 1-D arrays cut, the longer first, until their
    lengths add up to at most ``max_length``."""

    def __init__(self, max_length: int) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int):
            raise TypeError(f"TruncateSequencePair: max_length must be an int, got {max_length!r}")
        self.max_length = max_length

    def __call__(self, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray]:
        a, b = _sequence(first, "TruncateSequencePair"), _sequence(second, "TruncateSequencePair")
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(f"TruncateSequencePair: both inputs must be 1-D, got {a.shape} and {b.shape}")
        la, lb = len(a), len(b)
        while la + lb > max(self.max_length, 0):
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return eager_array(a[:la].copy()), eager_array(b[:lb].copy())


class Ngram:
    """``Ngram(n, left_pad=("", 0), right_pad=("", 0), separator=" ")``: the n-grams of a 1-D
    array of strings for each ``n`` in turn, after padding each end with ``pad_width`` tokens."""

    def __init__(
        self,
        n: int | list[int],
        left_pad: tuple[str, int] = ("", 0),
        right_pad: tuple[str, int] = ("", 0),
        separator: str = " ",
    ) -> None:
        sizes = [n] if isinstance(n, int) and not isinstance(n, bool) else n
        if (
            not isinstance(sizes, list)
            or not sizes
            or not all(isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in sizes)
        ):
            raise ValueError(f"Ngram: n must be a positive int or a list of them, got {n!r}")
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if (
                not isinstance(pad, tuple)
                or len(pad) != 2
                or not isinstance(pad[0], str)
                or not isinstance(pad[1], int)
                or pad[1] < 0
            ):
                raise ValueError(f"Ngram: {name} must be (token, width >= 0), got {pad!r}")
        if not isinstance(separator, str):
            raise TypeError(f"Ngram: separator must be a str, got {separator!r}")
        self.sizes, self.left, self.right, self.separator = sizes, left_pad, right_pad, separator

    def __call__(self, value: Any) -> np.ndarray:
        array = string_array(value, "Ngram")
        if array.ndim != 1:
            raise RuntimeError(f"Ngram: the input must be 1-D, got shape {array.shape}")
        out: list[str] = []
        for k in self.sizes:
            left = [self.left[0]] * min(self.left[1], k - 1)
            right = [self.right[0]] * min(self.right[1], k - 1)
            tokens = left + array.tolist() + right
            out += [self.separator.join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)]
        return np.array(out or [""], dtype=str)


class SlidingWindow:
    """``SlidingWindow(width, axis=0)``: the windows of ``width`` items of a 1-D array, one per
    row (empty when the array is shorter)."""

    def __init__(self, width: int, axis: int = 0) -> None:
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"SlidingWindow: width must be an int >= 1, got {width!r}")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"SlidingWindow: axis must be an int, got {axis!r}")
        self.width, self.axis = width, axis

    def __call__(self, value: Any) -> np.ndarray:
        array = _sequence(value, "SlidingWindow")
        if array.ndim != 1:
            raise RuntimeError(f"SlidingWindow: only 1-D input is supported, got {array.ndim}-D")
        if self.axis not in (0, -1):
            raise RuntimeError(f"SlidingWindow: axis {self.axis} is out of range for 1-D input")
        if len(array) < self.width:
            return eager_array(np.empty((0,), dtype=array.dtype))
        windows = np.lib.stride_tricks.sliding_window_view(array, self.width)
        return eager_array(np.ascontiguousarray(windows))
