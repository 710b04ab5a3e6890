"""Values of converted code's variables: the Undefined placeholder and leaf structures."""

from __future__ import annotations

from typing import Any

from ..ir.graph import GraphModeError


class Undefined:
    """A variable with no value on this path (assigned later, or on one path only).

    Any use raises one error naming the variable: Python would raise NameError /
    UnboundLocalError there, and graph mode cannot merge a value that exists on one
    path only.
    """

    __slots__ = ("name", "reason")

    def __init__(self, name: str, reason: str = "is used before it is assigned") -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "reason", reason)

    def error(self) -> GraphModeError:
        return GraphModeError(f"graph mode: variable {self.name!r} {self.reason}; assign it "
                              "before the if/loop (or on every path) to use it afterwards")

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise self.error()

    def __getattr__(self, item: str) -> Any:
        raise self.error()

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __rtruediv__ = __matmul__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = __array__ = _fail
    __floordiv__ = __mod__ = __pow__ = __int__ = __float__ = __index__ = _fail


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
        else:
            self.kind, self.keys, self.children = None, None, []
        self.size = 1 if self.kind is None else sum(c.size for c in self.children)

    def signature(self) -> Any:
        if self.kind is None:
            return None
        return (self.kind.__name__, tuple(self.keys or ()), tuple(c.signature() for c in self.children))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tree) and self.signature() == other.signature()

    def rebuild(self, leaves: list[Any]) -> Any:
        if self.kind is None:
            return leaves[0]
        parts, pos = [], 0
        for child in self.children:
            parts.append(child.rebuild(leaves[pos:pos + child.size]))
            pos += child.size
        if self.kind is dict:
            return dict(zip(self.keys, parts))
        return self.kind(parts) if self.kind is list else tuple(parts)


def flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in flatten(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in flatten(v)]
    return [value]


def skeleton(value: Any) -> Tree:
    return Tree(value)
