"""The value of a converted function's variable that has none on this path."""

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
