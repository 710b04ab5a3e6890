"""``mindspore.dataset.text``: tokenizers, ``ToNumber``, ``Lookup`` and ``Vocab`` (see
:mod:`framework.dataset.text.transforms` and :mod:`framework.dataset.text.utils`)."""

from . import transforms, utils
from .transforms import BasicTokenizer, Lookup, ToNumber, UnicodeCharTokenizer, WhitespaceTokenizer
from .utils import Vocab, to_bytes, to_str

__all__ = ["BasicTokenizer", "Lookup", "ToNumber", "UnicodeCharTokenizer", "Vocab", "WhitespaceTokenizer",
           "to_bytes", "to_str", "transforms", "utils"]

from framework import absent_names as _absent_names  # noqa: E402

# an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = _absent_names.module_getattr("dataset.text", __name__)
