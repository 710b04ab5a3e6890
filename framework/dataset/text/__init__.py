"""``mindspore.dataset.text``: tokenizers, ``ToNumber``, ``Lookup`` and ``Vocab`` (see
:mod:`framework.dataset.text.transforms` and :mod:`framework.dataset.text.utils`)."""

from . import transforms, utils
from .transforms import BasicTokenizer, Lookup, ToNumber, UnicodeCharTokenizer, WhitespaceTokenizer
from .utils import Vocab, to_bytes, to_str

__all__ = ["BasicTokenizer", "Lookup", "ToNumber", "UnicodeCharTokenizer", "Vocab", "WhitespaceTokenizer",
           "to_bytes", "to_str", "transforms", "utils"]
