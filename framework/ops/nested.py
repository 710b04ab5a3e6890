"""Element-wise ops over nested tuples/lists of tensors: ``ops.hyper_add(x, y)``, MindSpore's
``HyperMap`` of ``add`` (two gradient tuples summed entry by entry).

Contract: sequences are walked in step (equal lengths, else a ``ValueError``) and give
tuples; a non-sequence meets every entry of the other side's sequence whole, as ``HyperMap``
passes it; leaves are added with ``ops.add``'s rules.
"""

from __future__ import annotations

from typing import Any

from ._utils import argument_error
from .elementwise import add


def hyper_add(x: Any, y: Any) -> Any:
    seq_x, seq_y = isinstance(x, tuple | list), isinstance(y, tuple | list)
    if not (seq_x or seq_y):
        return add(x, y)
    if seq_x and seq_y and len(x) != len(y):
        raise argument_error("hyper_add", ValueError(f"sequences of different lengths {len(x)} and {len(y)}"))
    n = len(x) if seq_x else len(y)
    return tuple(hyper_add(x[i] if seq_x else x, y[i] if seq_y else y) for i in range(n))
