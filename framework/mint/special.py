"""``mint.special``: the special functions MindSpore files under this name, the same
functions as ``mint``'s (``log_softmax`` is ``mint.nn.functional``'s)."""

from __future__ import annotations

from .math import erfc, exp2, expm1, log1p, round, sinc  # noqa: A004
from .nn.functional import log_softmax

__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("mint.special", __name__)
