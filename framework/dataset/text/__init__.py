"""``mindspore.dataset.text``: tokenizers (:mod:`.basic_ops`, :mod:`.tokenizers`), string and
sequence operations (:mod:`.string_ops`), ``Vocab`` and ``Lookup`` (:mod:`.utils`,
:mod:`.basic_ops`), word vectors (:mod:`.vectors`), Jieba (:mod:`.jieba`); SentencePiece
(:mod:`.model_tokenizers`) only names its options here. :mod:`.transforms` is MindSpore's
``text.transforms`` path to the same operations."""

from ... import absent_names as _absent_names
from . import utils
from .basic_ops import Lookup, ToNumber, UnicodeCharTokenizer, WhitespaceTokenizer
from .jieba import JiebaMode, JiebaTokenizer
from .model_tokenizers import (
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

from . import transforms  # noqa: E402  (re-exports the operations above)

__getattr__ = _absent_names.module_getattr("dataset.text", __name__)
