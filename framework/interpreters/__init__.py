"""Interpreters: how a primitive application is carried out in the current mode.

PyNative runs the eager interpreter (NumPy kernel + tape); graph mode swaps in a
tracing interpreter through ``using``. Cells and ops never branch on the mode.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .eager import EagerInterpreter

_current: ContextVar[Any] = ContextVar("framework_interpreter", default=EagerInterpreter())  # noqa: B039


def current() -> Any:
    return _current.get()


def apply(prim: Any, args: tuple) -> Any:
    """Apply ``prim`` to ``args`` with the interpreter of the current mode."""
    return _current.get().apply(prim, args)


@contextmanager
def using(interpreter: Any) -> Iterator[Any]:
    token = _current.set(interpreter)
    try:
        yield interpreter
    finally:
        _current.reset(token)
