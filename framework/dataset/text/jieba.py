"""``mindspore.dataset.text.JiebaTokenizer``: Chinese word segmentation as cppjieba (which
MindSpore links) computes it, from the same two files: the dictionary (``mp_path``, lines
``word freq [tag]``) and the HMM model (``hmm_path``: start, transition and emission
log-probabilities of the states B, E, M, S).

- ``MP``: the maximum-probability path through the DAG of dictionary words (a word weighs
  ``log(freq / total)``, a character the dictionary lacks the smallest weight);
- ``HMM``: Viterbi over B/E/M/S for runs of non-ASCII characters; ASCII letters-then-digits,
  numbers (digits and dots) and other ASCII characters are words of their own;
- ``MIX``: MP, then HMM over each run of single characters MP leaves.

Text is first split at the separators `` \\t\\n，。`` (each one a word).
"""

from __future__ import annotations

import math
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from .basic_ops import _text

MIN_DOUBLE = -3.14e100
_SEPARATORS = frozenset(" \t\n，。")
_STATES = "BEMS"


class JiebaMode(Enum):
    MIX = 0
    MP = 1
    HMM = 2


def _lines(path: str, what: str) -> list[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"JiebaTokenizer: cannot read the {what} file {path!r}: {error.strerror}") from None
    return [line.strip() for line in text.splitlines()]


def load_hmm(path: str) -> tuple[list[float], list[list[float]], list[dict[str, float]]]:
    rows = [line for line in _lines(path, "HMM model") if line and not line.startswith("#")]
    if len(rows) < 9:
        raise ValueError(
            f"JiebaTokenizer: {path!r} is not an HMM model (start, 4 transition and 4 emission lines)"
        )
    try:
        start = [float(v) for v in rows[0].split(" ")]
        trans = [[float(v) for v in rows[1 + i].split(" ")] for i in range(4)]
        emit = [
            {pair.split(":")[0]: float(pair.split(":")[1]) for pair in rows[5 + i].split(",")}
            for i in range(4)
        ]
    except (ValueError, IndexError):
        raise ValueError(f"JiebaTokenizer: {path!r} is not an HMM model (unreadable numbers)") from None
    if len(start) != 4 or any(len(t) != 4 for t in trans):
        raise ValueError(f"JiebaTokenizer: {path!r}: the start and transition lines need 4 numbers each")
    return start, trans, emit


class JiebaTokenizer:
    """``JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False)``; words are
    added with ``add_word(word, freq=None)`` and ``add_dict(user_dict)``."""

    def __init__(
        self, hmm_path: str, mp_path: str, mode: JiebaMode = JiebaMode.MIX, with_offsets: bool = False
    ) -> None:
        if not isinstance(mode, JiebaMode):
            raise TypeError(f"JiebaTokenizer: mode must be a text.JiebaMode, got {mode!r}")
        if not isinstance(with_offsets, bool):
            raise TypeError(f"JiebaTokenizer: with_offsets must be a bool, got {with_offsets!r}")
        self.hmm_path, self.mp_path, self.mode, self.with_offsets = hmm_path, mp_path, mode, with_offsets
        self.start, self.trans, self.emit = load_hmm(hmm_path)
        freqs: dict[str, float] = {}
        for line in _lines(mp_path, "dictionary"):
            fields = line.split(" ")
            if len(fields) >= 2:
                freqs[fields[0]] = float(fields[1])
        self.total = sum(freqs.values())
        if not freqs or self.total <= 0:
            raise ValueError(f"JiebaTokenizer: the dictionary {mp_path!r} holds no 'word freq' lines")
        self.weights = {w: math.log(f / self.total) for w, f in freqs.items()}
        ordered = sorted(self.weights.values())
        self.min_weight, self.median_weight = ordered[0], ordered[len(ordered) // 2]
        self.user_singles: set[str] = set()
        self.max_len = max(len(w) for w in self.weights)

    def add_word(self, word: str, freq: int | None = None) -> None:
        if not isinstance(word, str) or not word:
            raise ValueError(f"JiebaTokenizer.add_word: word must be a non-empty str, got {word!r}")
        self.weights[word] = math.log(freq / self.total) if freq else self.median_weight
        self.max_len = max(self.max_len, len(word))
        if len(word) == 1:
            self.user_singles.add(word)

    def add_dict(self, user_dict: str | dict[str, int | None]) -> None:
        if isinstance(user_dict, dict):
            for word, freq in user_dict.items():
                self.add_word(word, freq)
            return
        for line in _lines(user_dict, "user dictionary"):
            fields = line.split()
            if fields:
                self.add_word(fields[0], int(fields[1]) if len(fields) > 1 else None)

    # -- MP
    def _mp(self, text: str) -> list[str]:
        n = len(text)
        weight = [0.0] * (n + 1)
        choice = [1] * n
        for i in range(n - 1, -1, -1):
            best, best_len = -math.inf, 1
            for j in range(i, min(n, i + self.max_len)):
                piece = text[i : j + 1]
                w = self.weights.get(piece)
                if w is None and j > i:
                    continue
                value = (w if w is not None else self.min_weight) + weight[j + 1]
                if value > best:
                    best, best_len = value, j + 1 - i
            weight[i], choice[i] = best, best_len
        words, i = [], 0
        while i < n:
            words.append(text[i : i + choice[i]])
            i += choice[i]
        return words

    # -- HMM
    def _viterbi(self, text: str) -> list[str]:
        n = len(text)
        weight = [[0.0] * 4 for _ in range(n)]
        path = [[-1] * 4 for _ in range(n)]
        for y in range(4):
            weight[0][y] = self.start[y] + self.emit[y].get(text[0], MIN_DOUBLE)
        for x in range(1, n):
            for y in range(4):
                emit = self.emit[y].get(text[x], MIN_DOUBLE)
                best, best_prev = MIN_DOUBLE, 1
                for prev in range(4):
                    value = weight[x - 1][prev] + self.trans[prev][y] + emit
                    if value > best:
                        best, best_prev = value, prev
                weight[x][y], path[x][y] = best, best_prev
        state = 1 if weight[n - 1][1] >= weight[n - 1][3] else 3
        states = [0] * n
        for x in range(n - 1, -1, -1):
            states[x] = state
            state = path[x][state]
        words, left = [], 0
        for i, s in enumerate(states):
            if s % 2:  # E or S ends a word
                words.append(text[left : i + 1])
                left = i + 1
        return words

    def _hmm(self, text: str) -> list[str]:
        words, left, right = [], 0, 0
        n = len(text)
        while right < n:
            if ord(text[right]) < 0x80:
                if left != right:
                    words += self._viterbi(text[left:right])
                left = right
                right = _ascii_word_end(text, left)
                words.append(text[left:right])
                left = right
            else:
                right += 1
        if left != right:
            words += self._viterbi(text[left:right])
        return words

    def _mix(self, text: str) -> list[str]:
        mp = self._mp(text)
        words, i = [], 0
        while i < len(mp):
            if len(mp[i]) > 1 or mp[i] in self.user_singles:
                words.append(mp[i])
                i += 1
                continue
            j = i
            while j < len(mp) and len(mp[j]) == 1 and mp[j] not in self.user_singles:
                j += 1
            words += self._hmm("".join(mp[i:j]))
            i = j
        return words

    def _cut(self, text: str) -> list[str]:
        cut = {JiebaMode.MP: self._mp, JiebaMode.HMM: self._hmm, JiebaMode.MIX: self._mix}[self.mode]
        words, piece = [], ""
        for ch in text:
            if ch in _SEPARATORS:
                if piece:
                    words += cut(piece)
                words.append(ch)
                piece = ""
            else:
                piece += ch
        if piece:
            words += cut(piece)
        return words

    def __call__(self, value: Any) -> Any:
        text = _text(value, "JiebaTokenizer")
        words = self._cut(text)
        tokens = np.array(words or [""], dtype=str)  # MindSpore: one empty token, no offsets
        if not self.with_offsets:
            return tokens
        ends = np.cumsum([len(w.encode("utf-8")) for w in words]).astype(np.uint32)
        return tokens, (ends - np.array([len(w.encode("utf-8")) for w in words], np.uint32)), ends


def _ascii_word_end(text: str, left: int) -> int:
    """cppjieba's rules for an ASCII run: letters then letters/digits, or digits then
    digits/dots, else one character."""
    n, ch = len(text), text[left]
    if ch.isascii() and ch.isalpha():
        end = left + 1
        while end < n and text[end].isascii() and text[end].isalnum():
            end += 1
        return end
    if ch.isascii() and ch.isdigit():
        end = left + 1
        while end < n and text[end].isascii() and (text[end].isdigit() or text[end] == "."):
            end += 1
        return end
    return left + 1
