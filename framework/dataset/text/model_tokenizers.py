"""``mindspore.dataset.text``'s SentencePiece names: the option enums are MindSpore's;
``SentencePieceTokenizer`` tokenizes with a trained unigram ``.model`` file (see
:mod:`framework.dataset.text.sentencepiece_model`); training one (``SentencePieceVocab``)
and BPE/char/word models are not implemented here: they raise a one-line error naming what
to use instead. (Jieba is in :mod:`framework.dataset.text.jieba`.)
"""

from __future__ import annotations

import struct
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from .basic_ops import _text
from .sentencepiece_model import SentencePieceModelFile, encode_unigram, normalize


class SentencePieceModel(Enum):
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerLoadType(Enum):
    FILE = 0
    MODEL = 1


class SPieceTokenizerOutType(Enum):
    STRING = 0
    INT = 1


def _absent(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"{what} needs a trained model library this framework does not include; tokenize with "
        "text.PythonTokenizer(your_tokenizer) (e.g. the `tokenizers` package's BPE, the 'text' extra)"
    )


class SentencePieceVocab:
    """``SentencePieceVocab``: training or loading a SentencePiece model is not implemented."""

    @classmethod
    def from_dataset(cls, *args: Any, **kwargs: Any) -> SentencePieceVocab:
        raise _absent("text.SentencePieceVocab.from_dataset (SentencePiece training)")

    @classmethod
    def from_file(cls, *args: Any, **kwargs: Any) -> SentencePieceVocab:
        raise _absent("text.SentencePieceVocab.from_file (SentencePiece training)")

    @classmethod
    def save_model(cls, *args: Any, **kwargs: Any) -> None:
        raise _absent("text.SentencePieceVocab.save_model")

    __refused__ = str(_absent("text.SentencePieceVocab (SentencePiece training)"))


class SentencePieceTokenizer:
    """``SentencePieceTokenizer(mode, out_type)``: ``mode`` the path of a trained unigram
    SentencePiece model; ``out_type`` STRING gives the pieces, INT their ids (int32)."""

    def __init__(self, mode: Any, out_type: SPieceTokenizerOutType) -> None:
        if isinstance(mode, SentencePieceVocab):
            raise _absent("text.SentencePieceTokenizer(SentencePieceVocab) (SentencePiece training)")
        if not isinstance(mode, str):
            raise TypeError(
                f"SentencePieceTokenizer: mode must be a model file path, got {type(mode).__name__}"
            )
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(
                f"SentencePieceTokenizer: out_type must be a text.SPieceTokenizerOutType, got {out_type!r}"
            )
        try:
            self.model = SentencePieceModelFile.parse(Path(mode).read_bytes())
        except OSError as error:
            raise RuntimeError(f"SentencePieceTokenizer: cannot read {mode!r}: {error.strerror}") from None
        except (ValueError, IndexError, struct.error, UnicodeDecodeError) as error:
            raise RuntimeError(
                f"SentencePieceTokenizer: {mode!r} is not a SentencePiece model ({error})"
            ) from None
        if self.model.model_type != 1:
            raise _absent("text.SentencePieceTokenizer with a BPE, char or word model (unigram models only)")
        self.out_type = out_type

    def __call__(self, value: Any) -> np.ndarray:
        pieces = encode_unigram(self.model, normalize(self.model, _text(value, "SentencePieceTokenizer")))
        if self.out_type is SPieceTokenizerOutType.INT:
            return np.array([i for _, i in pieces], dtype=np.int32)
        return np.array([p for p, _ in pieces] or [""][:0], dtype=str)
