"""``mindspore.dataset.text.utils``: :class:`Vocab` (token <-> id), ``to_str``, ``to_bytes``.

``Vocab.from_list(words, special_tokens=None, special_first=True)`` numbers the special
tokens and then the words from 0 (the special tokens after the words when not
``special_first``); ``Vocab.from_dict`` takes the ids as given; ``from_file`` reads one word a
line, ``from_dataset`` counts the words of a dataset's columns. ``tokens_to_ids`` gives -1
for an unknown token, ``ids_to_tokens`` an empty string for an unknown id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
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

    @classmethod
    def from_file(cls, file_path: str, delimiter: str = "", vocab_size: int | None = None,
                  special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """One word a line (the text before ``delimiter`` when one is given), the first
        ``vocab_size`` lines."""
        try:
            lines = Path(file_path).read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise RuntimeError(f"Vocab.from_file: cannot read {file_path!r}: {error.strerror}") from None
        words = [line.split(delimiter, 1)[0] if delimiter else line for line in lines]
        words = list(dict.fromkeys(words))
        words = words[:vocab_size] if vocab_size is not None else words
        specials = list(special_tokens or [])
        words = [w for w in words if w not in specials]
        return cls.from_list(words, specials, special_first)

    @classmethod
    def from_dataset(cls, dataset: Any, columns: str | Sequence[str] | None = None,
                     freq_range: tuple[int | None, int | None] | None = None, top_k: int | None = None,
                     special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """The words of ``columns`` (all, by default), most frequent first (ties in alphabetical
        order), those with a count in ``freq_range``, the ``top_k`` first."""
        names = [columns] if isinstance(columns, str) else list(columns) if columns else None
        counts: Counter[str] = Counter()
        for row in dataset.create_dict_iterator(output_numpy=True, num_epochs=1):
            for name in names or list(row):
                tokens = np.asarray(row[name])
                if tokens.dtype.kind == "S":
                    tokens = np.char.decode(tokens, "utf-8")
                counts.update(str(t) for t in tokens.reshape(-1))
        low, high = freq_range if freq_range is not None else (None, None)
        words = [w for w, c in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
                 if (low is None or c >= low) and (high is None or c <= high)]
        specials = list(special_tokens or [])
        words = [w for w in words if w not in specials][:top_k]
        return cls.from_list(words, specials, special_first)

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
