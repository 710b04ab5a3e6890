"""A call's arguments as a signature: their leaves, and a hashable key that is the
structure itself (tensors by shape and dtype, Python values by type and value: 1, 1.0
and True trace differently), so the flattening and the cache key are one thing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .tensor import Tensor


def _leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, Tensor | np.ndarray):
        data = leaf._data if isinstance(leaf, Tensor) else leaf
        return ("tensor", tuple(data.shape), str(data.dtype))
    try:
        hash(leaf)
        return (type(leaf).__name__, leaf)
    except TypeError:
        return (type(leaf).__name__, repr(leaf))


def flatten(obj: Any) -> tuple[list[Any], Any, Callable[[list[Any]], Any]]:
    """(leaves of nested tuples/lists/dicts, the structure's key, a function rebuilding
    the structure from new leaves)."""
    if isinstance(obj, tuple | list):
        parts = [flatten(o) for o in obj]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves: list[Any]) -> Any:
            out, i = [], 0
            for (_, _, fn), n in zip(parts, sizes):
                out.append(fn(leaves[i:i + n]))
                i += n
            return out if isinstance(obj, list) else tuple(out)

        key = (type(obj).__name__, tuple(p[1] for p in parts))
        return [leaf for p in parts for leaf in p[0]], key, rebuild
    if isinstance(obj, dict):
        keys = list(obj)
        leaves, inner, rebuild_values = flatten([obj[k] for k in keys])
        return leaves, ("dict", tuple(keys), inner), lambda ls: dict(zip(keys, rebuild_values(ls)))
    return [obj], _leaf_key(obj), lambda ls: ls[0]


def tensors(leaves: list[Any]) -> list[Any]:
    return [leaf for leaf in leaves if isinstance(leaf, Tensor | np.ndarray)]
