"""``mindspore.dataset.text``: tokenizers (:mod:`.transforms`, :mod:`.tokenizers`), string and
sequence operations (:mod:`.string_ops`), ``Vocab`` and ``Lookup`` (:mod:`.utils`,
:mod:`.transforms`), word vectors (:mod:`.vectors`); Jieba and SentencePiece
(:mod:`.model_tokenizers`) only name their options here."""

from ... import absent_names as _absent_names
from . import transforms, utils
from .model_tokenizers import (
    JiebaMode,
    JiebaTokenizer,
    SentencePieceModel,
    SentencePieceTokenizer,
    SentencePieceVocab,
    SPieceTokenizerLoadType,
    SPieceTokenizerOutType,
)
from .string_ops import (
    AddToken,
    CaseFold,
    FilterWikipediaXML,
    Ngram,
    NormalizeForm,
    NormalizeUTF8,
    RegexReplace,
    SlidingWindow,
    Truncate,
    TruncateSequencePair,
)
from .tokenizers import (
    BasicTokenizer,
    BertTokenizer,
    PythonTokenizer,
    RegexTokenizer,
    UnicodeScriptTokenizer,
    WordpieceTokenizer,
)
from .transforms import Lookup, ToNumber, UnicodeCharTokenizer, WhitespaceTokenizer
from .utils import Vocab, to_bytes, to_str
from .vectors import CharNGram, FastText, GloVe, ToVectors, Vectors

__all__ = ["AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold", "CharNGram", "FastText",
           "FilterWikipediaXML", "GloVe", "JiebaMode", "JiebaTokenizer", "Lookup", "Ngram", "NormalizeForm",
           "NormalizeUTF8", "PythonTokenizer", "RegexReplace", "RegexTokenizer", "SPieceTokenizerLoadType",
           "SPieceTokenizerOutType", "SentencePieceModel", "SentencePieceTokenizer", "SentencePieceVocab",
           "SlidingWindow", "ToNumber", "ToVectors", "Truncate", "TruncateSequencePair",
           "UnicodeCharTokenizer",
           "UnicodeScriptTokenizer", "Vectors", "Vocab", "WhitespaceTokenizer", "WordpieceTokenizer",
           "to_bytes", "to_str",
           "transforms", "utils"]

__getattr__ = _absent_names.module_getattr("dataset.text", __name__)
