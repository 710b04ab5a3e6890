"""``mindspore.dataset.text``'s SentencePiece names: the option enums are MindSpore's; the
tokenizer and the vocabulary (a trained SentencePiece model, which MindSpore links the
SentencePiece library for) are not implemented here: using one raises a one-line error
naming what to use instead. (Jieba is in :mod:`framework.dataset.text.jieba`.)
"""

from __future__ import annotations

from enum import Enum
from typing import Any


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


class SentencePieceTokenizer:
    """``SentencePieceTokenizer(mode, out_type)``: not implemented (see the module docstring)."""

    def __init__(self, mode: Any, out_type: SPieceTokenizerOutType) -> None:
        raise _absent("text.SentencePieceTokenizer (a SentencePiece model)")
