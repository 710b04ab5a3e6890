"""``mindspore.dataset.text.transforms``: MindSpore's module path to the text operations
(the same objects as ``dataset.text``'s)."""

from .basic_ops import Lookup, ToNumber, UnicodeCharTokenizer, WhitespaceTokenizer
from .jieba import JiebaTokenizer
from .model_tokenizers import SentencePieceTokenizer
from .string_ops import (
    AddToken,
    CaseFold,
    FilterWikipediaXML,
    Ngram,
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
from .vectors import ToVectors

__all__ = [
    "AddToken",
    "BasicTokenizer",
    "BertTokenizer",
    "CaseFold",
    "FilterWikipediaXML",
    "JiebaTokenizer",
    "Lookup",
    "Ngram",
    "NormalizeUTF8",
    "PythonTokenizer",
    "RegexReplace",
    "RegexTokenizer",
    "SentencePieceTokenizer",
    "SlidingWindow",
    "ToNumber",
    "ToVectors",
    "Truncate",
    "TruncateSequencePair",
    "UnicodeCharTokenizer",
    "UnicodeScriptTokenizer",
    "WhitespaceTokenizer",
    "WordpieceTokenizer",
]
