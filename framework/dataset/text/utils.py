"""``mindspore.dataset.text.utils``: :class:`Vocab` (token <-> id), ``to_str``, ``to_bytes``.

``Vocab.from_list(words, special_tokens=None, special_first=True)`` numbers the special
tokens and then the words from 0 (the special tokens after the words when not
``special_first``); ``Vocab.from_dict`` takes the ids as given. ``tokens_to_ids`` gives -1
for an unknown token, ``ids_to_tokens`` an empty string for an unknown id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


class Vocab:
    def __init__(self, ids: dict[str, int]) -> None:
        self._ids = dict(ids)
        self._tokens = {i: t for t, i in self._ids.items()}

    @classmethod
    def from_list(cls, word_list: Sequence[str], special_tokens: Sequence[str] | None = None,
                  special_first: bool = True) -> Vocab:
        words = list(word_list)
        specials = list(special_tokens or [])
        if len(set(words)) != len(words):
            raise ValueError("Vocab.from_list: word_list holds a word twice")
        if set(words) & set(specials):
            raise ValueError(f"Vocab.from_list: special_tokens {sorted(set(words) & set(specials))} are "
                             "also in word_list")
        ordered = specials + words if special_first else words + specials
        return cls({token: i for i, token in enumerate(ordered)})

    @classmethod
    def from_dict(cls, word_dict: Mapping[str, int]) -> Vocab:
        if any(not isinstance(i, int) or i < 0 for i in word_dict.values()):
            raise ValueError("Vocab.from_dict: ids must be ints >= 0")
        return cls(dict(word_dict))

    def vocab(self) -> dict[str, int]:
        return dict(self._ids)

    def tokens_to_ids(self, tokens: str | Sequence[str]) -> int | list[int]:
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids: int | Sequence[int]) -> str | list[str]:
        if isinstance(ids, int | np.integer):
            return self._tokens.get(int(ids), "")
        return [self._tokens.get(int(i), "") for i in ids]

    def __len__(self) -> int:
        return len(self._ids)


def to_str(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A bytes array as a str array."""
    return np.char.decode(np.asarray(array), encoding)


def to_bytes(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A str array as a bytes array."""
    return np.char.encode(np.asarray(array), encoding)
