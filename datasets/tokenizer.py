"""Tokenizers of language-model text: ``char`` (one token per character, the vocabulary
of the training text, sorted) and ``bpe`` (byte-level BPE trained on the training text by
Hugging Face ``tokenizers``, the optional extra ``text``).

Contract: ``encode(text) -> int32 ids``, ``decode(ids) -> text``, ``vocab_size``, and
``to_dict()``/``from_dict(d)`` (JSON data), which is what checkpoints and MLflow keep, so
sampling and serving never need the training file. ``encode`` refuses a character the
char vocabulary lacks with one line naming it (BPE has none: it falls back to bytes).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .errors import DatasetError


class CharTokenizer:
    kind = "char"

    def __init__(self, chars: str) -> None:
        self.chars = chars
        self._index = {c: i for i, c in enumerate(chars)}

    @classmethod
    def train(cls, text: str) -> CharTokenizer:
        return cls("".join(sorted(set(text))))

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        try:
            return np.fromiter((self._index[c] for c in text), np.int32, len(text))
        except KeyError as error:
            raise DatasetError(f"the character {error.args[0]!r} is not in the vocabulary of the "
                               f"training text ({self.vocab_size} characters)") from None

    def decode(self, ids: Any) -> str:
        return "".join(self.chars[int(i)] for i in np.asarray(ids).reshape(-1))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "chars": self.chars}


class BPETokenizer:
    kind = "bpe"

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    @classmethod
    def train(cls, text: str, vocab_size: int) -> BPETokenizer:
        tokenizers = _tokenizers()
        tok = tokenizers.Tokenizer(tokenizers.models.BPE())
        tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = tokenizers.decoders.ByteLevel()
        trainer = tokenizers.trainers.BpeTrainer(
            vocab_size=vocab_size, show_progress=False,
            initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
        lines = text.splitlines(keepends=True)
        tok.train_from_iterator((lines[i:i + 1000] for i in range(0, len(lines), 1000)), trainer)
        return cls(tok)

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size()

    def encode(self, text: str) -> np.ndarray:
        return np.asarray(self.tokenizer.encode(text).ids, np.int32)

    def decode(self, ids: Any) -> str:
        return self.tokenizer.decode([int(i) for i in np.asarray(ids).reshape(-1)])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "json": self.tokenizer.to_str()}


def _tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError:
        raise DatasetError("dataset.tokenizer: bpe needs Hugging Face tokenizers: pip install -e "
                           "'.[text]'") from None
    return tokenizers


def train_tokenizer(kind: str, text: str, vocab_size: int | None = None) -> CharTokenizer | BPETokenizer:
    """The tokenizer ``kind`` (``char`` or ``bpe``) of the training text."""
    if kind == "char":
        return CharTokenizer.train(text)
    if kind == "bpe":
        if vocab_size is None or vocab_size < 257:
            raise DatasetError(f"dataset.tokenizer: bpe needs dataset.vocab_size >= 257 (the 256 "
                               f"bytes and merges), got {vocab_size}")
        return BPETokenizer.train(text, vocab_size)
    raise DatasetError(f"dataset.tokenizer must be char or bpe, got {kind!r}")


def tokenizer_from_dict(data: Any) -> CharTokenizer | BPETokenizer:
    """The tokenizer ``to_dict`` described (from a checkpoint or an MLflow artifact)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (ValueError, RecursionError):
            raise DatasetError("not a saved tokenizer: not JSON") from None
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "char" and isinstance(data.get("chars"), str):
        chars = data["chars"]
        if not chars or len(set(chars)) != len(chars):
            raise DatasetError(f"not a saved tokenizer: its char vocabulary {chars!r:.60} is "
                               + ("empty" if not chars else "holding a character twice"))
        return CharTokenizer(chars)
    if kind == "bpe" and isinstance(data.get("json"), str):
        tokenizers = _tokenizers()
        try:
            tokenizer = tokenizers.Tokenizer.from_str(data["json"])
        except Exception as error:  # noqa: BLE001 - the library's own exception types
            first = " ".join(str(error).split())[:120]
            raise DatasetError(f"not a saved tokenizer: its BPE JSON is not a Hugging Face "
                               f"tokenizer ({first})") from None
        if tokenizer.get_vocab_size() < 1:
            raise DatasetError("not a saved tokenizer: its BPE vocabulary is empty")
        return BPETokenizer(tokenizer)
    raise DatasetError(f"not a saved tokenizer (kind {kind!r:.40}); expected char or bpe")
