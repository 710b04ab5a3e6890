"""``mindspore.dataset.text``'s pre-trained word vectors: ``Vectors`` (a text file of
``token v1 v2 ...`` lines; a first ``count dim`` line is skipped), its file-name-checked forms
``FastText`` (``*.vec``) and ``GloVe`` (``glove.6B.*.txt``), ``CharNGram`` (a word is the mean
of its 2- to 4-character n-grams' vectors) and ``ToVectors`` (tokens -> float32 rows).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import numpy as np

from .string_ops import string_array


class Vectors:
    """Token -> vector table read by :meth:`from_file`."""

    def __init__(self, table: dict[str, np.ndarray], dim: int) -> None:
        self.table, self.dim = table, dim

    _PATTERN: str | None = None  # the file name a subclass requires

    @classmethod
    def from_file(cls, file_path: str, max_vectors: int | None = None) -> Vectors:
        what = cls.__name__
        if max_vectors is not None and (
            isinstance(max_vectors, bool) or not isinstance(max_vectors, int) or max_vectors < 0
        ):
            raise ValueError(f"{what}.from_file: max_vectors must be an int >= 0, got {max_vectors!r}")
        path = Path(file_path)
        if cls._PATTERN and not fnmatch.fnmatch(path.name, cls._PATTERN):
            raise RuntimeError(
                f"{what}: invalid file, can not find file '{cls._PATTERN}', but got: {file_path}"
            )
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise RuntimeError(f"{what}: cannot read {file_path!r}: {error.strerror}") from None
        table: dict[str, np.ndarray] = {}
        dim = None
        for number, line in enumerate(lines, 1):
            fields = line.rstrip().split(" ")
            if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
                continue  # fastText's "count dim" header
            if len(fields) < 2:
                continue
            try:
                vector = np.array(fields[1:], dtype=np.float32)
            except ValueError:
                raise RuntimeError(
                    f"{what}: line {number} of {file_path} is not 'token numbers...'"
                ) from None
            if dim is None:
                dim = len(vector)
            elif len(vector) != dim:
                raise RuntimeError(
                    f"{what}: line {number} of {file_path} has {len(vector)} numbers, the first line {dim}"
                )
            if max_vectors is not None and len(table) >= max_vectors:
                break
            table.setdefault(fields[0], vector)
        if dim is None:
            raise RuntimeError(f"{what}: {file_path} holds no vectors")
        return cls(table, dim)

    def lookup(self, token: str, lower_case_backup: bool) -> np.ndarray | None:
        # MindSpore 2.10 looks up only the lower-cased token when lower_case_backup is set
        # (a key "HI" is then never found), whatever its documentation says
        return self.table.get(token.lower() if lower_case_backup else token)


class FastText(Vectors):
    """fastText's ``.vec`` files."""

    _PATTERN = "*.vec"


class GloVe(Vectors):
    """GloVe's ``glove.6B.<dim>d.txt`` files."""

    _PATTERN = "glove.6B.*.txt"


class CharNGram(Vectors):
    """Character n-gram vectors (``2gram-ab`` ... keys); a word's vector is the mean of those
    of its n-grams (n = 2, 3, 4, with ``#BEGIN#``/``#END#`` marks) that the table has."""

    def lookup(self, token: str, lower_case_backup: bool) -> np.ndarray | None:
        return self._mean(token.lower() if lower_case_backup else token)

    def _mean(self, word: str) -> np.ndarray | None:
        chars = ["#BEGIN#", *word, "#END#"]
        hits = [
            self.table[key]
            for n in (2, 3, 4)
            for i in range(len(chars) - n + 1)
            if (key := f"{n}gram-{''.join(chars[i : i + n])}") in self.table
        ]
        return np.mean(hits, axis=0).astype(np.float32) if hits else None


class ToVectors:
    """``ToVectors(vectors, unk_init=None, lower_case_backup=False)``: each token's vector
    (``unk_init``, default zeros, for a token the table lacks), float32: ``tokens x dim`` for
    the flattened tokens, ``dim`` alone for a single token (as MindSpore returns them)."""

    def __init__(self, vectors: Vectors, unk_init: Any = None, lower_case_backup: bool = False) -> None:
        if not isinstance(vectors, Vectors):
            raise TypeError(
                f"ToVectors: vectors must be text.Vectors, FastText, GloVe or CharNGram, "
                f"got {type(vectors).__name__}"
            )
        if not isinstance(lower_case_backup, bool):
            raise TypeError(f"ToVectors: lower_case_backup must be a bool, got {lower_case_backup!r}")
        self.vectors, self.lower_case_backup = vectors, lower_case_backup
        self.unk = (
            np.zeros(vectors.dim, np.float32) if unk_init is None else np.asarray(unk_init, dtype=np.float32)
        )
        if self.unk.shape != (vectors.dim,):
            raise ValueError(
                f"ToVectors: unk_init must hold {vectors.dim} numbers, got {list(self.unk.shape)}"
            )

    def __call__(self, value: Any) -> np.ndarray:
        tokens = string_array(value, "ToVectors")
        rows = []
        for token in tokens.reshape(-1):
            found = self.vectors.lookup(str(token), self.lower_case_backup)
            rows.append(self.unk if found is None else found)
        out = np.array(rows, dtype=np.float32).reshape(-1, self.vectors.dim)
        return out[0] if len(out) == 1 else out
