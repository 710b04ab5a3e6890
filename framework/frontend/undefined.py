"""The value of a converted function's variable that has none on this path."""

from __future__ import annotations

from typing import Any

from ..ir.graph import GraphModeError

_NONE = object()  # no global of that name


class Undefined:
    """A variable with no value on this path (assigned later, or on one path only).

    Any use raises one error naming the variable: Python would raise NameError /
    UnboundLocalError there, and graph mode cannot merge a value that exists on one
    path only. Where the function's module has a global of that name (``default``), a
    use reads the global instead, as MindSpore resolves a name the function reads before
    assigning it (``z += i`` in a loop over a global ``z``); carried through an if/loop
    unused, it stays undefined.
    """

    __slots__ = ("name", "reason", "default")

    def __init__(self, name: str, reason: str = "is used before it is assigned",
                 default: Any = _NONE) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "default", default)

    def error(self) -> GraphModeError:
        return GraphModeError(f"graph mode: variable {self.name!r} {self.reason}; assign it "
                              "before the if/loop (or on every path) to use it afterwards")

    def resolved(self) -> Any:
        """The global standing in for this variable (the error where there is none)."""
        default = object.__getattribute__(self, "default")
        if default is _NONE:
            raise self.error()
        return default

    def __getattr__(self, item: str) -> Any:
        return getattr(self.resolved(), item)

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"


def _forward(method: str) -> Any:
    def use(self: Undefined, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.resolved(), method)(*args, **kwargs)

    use.__name__ = method
    return use


for _method in ("__bool__", "__call__", "__iter__", "__len__", "__getitem__", "__setitem__",
                "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                "__truediv__", "__rtruediv__", "__matmul__", "__neg__", "__lt__", "__le__",
                "__gt__", "__ge__", "__array__", "__floordiv__", "__mod__", "__pow__",
                "__int__", "__float__", "__index__"):
    setattr(Undefined, _method, _forward(_method))
