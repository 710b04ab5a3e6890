"""A call's arguments as a signature: their leaves, and a hashable key that is the
structure itself (tensors by shape and dtype, Python values by type and value: 1, 1.0
and True trace differently), so the flattening and the cache key are one thing.

An object whose class has ``_tree_flatten()`` (returning its children and a hashable
static part) and ``_tree_unflatten(static, children)`` is a node too (the sparse tensors:
their tensors are leaves, their shape is structure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .common.tensor import Tensor


def _leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, Tensor | np.ndarray):
        data = leaf._data if isinstance(leaf, Tensor) else leaf
        return ("tensor", tuple(data.shape), str(data.dtype))
    try:
        hash(leaf)
        return (type(leaf).__name__, leaf)
    except TypeError:
        return (type(leaf).__name__, repr(leaf))


class Tree:
    """The structure of a value: tuples, lists and dicts down to leaves."""

    __slots__ = ("kind", "children", "keys", "size")

    def __init__(self, value: Any) -> None:
        if isinstance(value, tuple | list):
            self.kind, self.keys = type(value), None
            self.children = [Tree(v) for v in value]
        elif isinstance(value, dict):
            self.kind, self.keys = dict, list(value)
            self.children = [Tree(value[k]) for k in self.keys]
        elif hasattr(type(value), "_tree_flatten"):
            children, self.keys = value._tree_flatten()
            self.kind, self.children = type(value), [Tree(v) for v in children]
        else:
            self.kind, self.keys, self.children = None, None, []
        self.size = 1 if self.kind is None else sum(c.size for c in self.children)

    def signature(self) -> Any:
        """A hashable description of the structure (not of the leaves)."""
        if self.kind is None:
            return None
        keys = self.keys if hasattr(self.kind, "_tree_flatten") else tuple(self.keys or ())
        return (self.kind.__name__, keys, tuple(c.signature() for c in self.children))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tree) and self.signature() == other.signature()

    def rebuild(self, leaves: list[Any]) -> Any:
        """The structure again, with ``leaves`` in place of the old ones."""
        if self.kind is None:
            return leaves[0]
        parts, pos = [], 0
        for child in self.children:
            parts.append(child.rebuild(leaves[pos:pos + child.size]))
            pos += child.size
        if self.kind is dict:
            return dict(zip(self.keys, parts))
        if hasattr(self.kind, "_tree_unflatten"):
            return self.kind._tree_unflatten(self.keys, parts)
        return parts if self.kind is list else tuple(parts)


def leaves(value: Any) -> list[Any]:
    """The leaves of nested tuples/lists/dicts, in order."""
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if hasattr(type(value), "_tree_flatten"):
        return [leaf for v in value._tree_flatten()[0] for leaf in leaves(v)]
    return [value]


def flatten(obj: Any) -> tuple[list[Any], Any, Callable[[list[Any]], Any]]:
    """(leaves of nested tuples/lists/dicts, the structure's key, a function rebuilding
    the structure from new leaves)."""
    tree, found = Tree(obj), leaves(obj)
    return found, (tree.signature(), tuple(_leaf_key(leaf) for leaf in found)), tree.rebuild


def tensors(leaves: list[Any]) -> list[Any]:
    return [leaf for leaf in leaves if isinstance(leaf, Tensor | np.ndarray)]
