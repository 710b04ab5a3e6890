"""``mindspore.ops.composite`` (``from framework.ops import composite as C``): gradient
transforms and the function-dispatch helpers optimizers are written with."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..autograd.grad import GradOperation, grad, value_and_grad
from ..common.tensor import Tensor
from .clip import clip_by_global_norm
from .creation import ones_like, zeros_like
from .math_checks import clip_by_value

__all__ = ["GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "add_flags",
           "clip_by_global_norm", "clip_by_value", "grad", "ones_like", "partial",
           "value_and_grad", "zeros_like"]


def add_flags(fn: Callable[..., Any] | None = None, **flags: Any) -> Any:
    """``@C.add_flags(has_effect=True)``: records compiler flags on a function (in its
    ``_func_graph_flags`` dict) and returns it; the flags change nothing here."""
    def deco(target: Callable[..., Any]) -> Callable[..., Any]:
        if not hasattr(target, "_func_graph_flags"):
            target._func_graph_flags = {}
        target._func_graph_flags.update(flags)
        return target

    return deco if fn is None else deco(fn)


def _type_matches(name: Any, value: Any) -> bool:
    checks = {
        "Tensor": lambda v: isinstance(v, Tensor),
        "Number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "Bool": lambda v: isinstance(v, bool),
        "String": lambda v: isinstance(v, str),
        "Tuple": lambda v: isinstance(v, tuple),
        "List": lambda v: isinstance(v, list),
        "Dictionary": lambda v: isinstance(v, dict),
        "None": lambda v: v is None,
        "Function": callable,
    }
    if isinstance(name, str):
        if name not in checks:
            raise ValueError(f"MultitypeFuncGraph.register: unknown type name {name!r}; "
                             f"use one of {', '.join(checks)}")
        return checks[name](value)
    return isinstance(value, name)


class MultitypeFuncGraph:
    """``MultitypeFuncGraph(name)``: one function name, several implementations chosen by
    the argument types (``@f.register("Tensor", "Number")``; type names or classes)."""

    def __init__(self, name: str, read_value: bool = False) -> None:
        self.name = name
        self._entries: list[tuple[tuple, Callable[..., Any]]] = []

    def register(self, *type_names: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        for name in type_names:
            _type_matches(name, None)  # validates string names early

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._entries.append((type_names, fn))
            return fn

        return deco

    def __call__(self, *args: Any) -> Any:
        for types, fn in self._entries:
            if len(types) == len(args) and all(_type_matches(t, a) for t, a in zip(types, args)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"MultitypeFuncGraph {self.name!r}: no implementation registered for "
                        f"argument types ({got})")


class Map:
    """``Map(ops=None)``: ``Map()(fn, xs, ys)`` is ``tuple(fn(x, y) for x, y in zip(xs, ys))``."""

    def __init__(self, ops: Callable[..., Any] | None = None, reverse: bool = False) -> None:
        self.ops = ops
        self.reverse = reverse

    def _split(self, args: tuple) -> tuple[Callable[..., Any], tuple]:
        if self.ops is not None:
            return self.ops, args
        if not args:
            raise TypeError(f"{type(self).__name__}: give the function and its sequences")
        return args[0], args[1:]

    def __call__(self, *args: Any) -> Any:
        fn, seqs = self._split(args)
        return self._map(fn, seqs)

    def _map(self, fn: Callable[..., Any], seqs: tuple) -> Any:
        lengths = {len(s) for s in seqs}
        if len(lengths) != 1:
            raise ValueError(f"{type(self).__name__}: sequences of different lengths {lengths}")
        order = range(lengths.pop())
        out = [None] * len(order)
        for i in reversed(order) if self.reverse else order:
            out[i] = self._apply(fn, tuple(s[i] for s in seqs))
        return tuple(out)

    def _apply(self, fn: Callable[..., Any], items: tuple) -> Any:
        return fn(*items)


class HyperMap(Map):
    """``HyperMap(ops=None)``: like Map, recursing into nested tuples/lists; non-sequence
    arguments are passed whole to every call."""

    def __call__(self, *args: Any) -> Any:
        fn, seqs = self._split(args)
        if not any(isinstance(s, tuple | list) for s in seqs):
            return fn(*seqs)
        return self._map(fn, seqs)

    def _map(self, fn: Callable[..., Any], seqs: tuple) -> Any:
        lengths = {len(s) for s in seqs if isinstance(s, tuple | list)}
        if len(lengths) != 1:
            raise ValueError(f"HyperMap: sequences of different lengths {lengths}")
        n = lengths.pop()
        columns = tuple(s if isinstance(s, tuple | list) else (s,) * n for s in seqs)
        return super()._map(fn, columns)

    def _apply(self, fn: Callable[..., Any], items: tuple) -> Any:
        if any(isinstance(i, tuple | list) for i in items):
            return self._map(fn, items)
        return fn(*items)
