"""Interpreters: how a primitive application is carried out in the current mode.

PyNative runs the eager interpreter (NumPy kernel + tape); graph mode swaps in a
tracing interpreter through ``using``. Cells and ops never branch on the mode: they
talk to ``current()`` through the one small interface below (JAX's ``Trace`` is the
model).

The interface (:class:`Interpreter`):

- ``apply(prim, args) -> Tensor | tuple[Tensor, ...]``: run or record one primitive.
- ``assign(param, value)``: give a Parameter a new value (``set_data``, ``ops.assign``,
  ``self.w = tensor`` in ``construct``): in place in PyNative, a state update of the
  compiled function when tracing.
- ``enter_cell(cell)``: a Cell's ``construct`` is about to run (the tracer remembers
  which cells a compiled function depends on).
- ``tracing``: True while building a graph (graph mode).
- ``phase`` (a context manager, :func:`phase`): labels what is recorded inside it
  (``'backward'``) for the IR dumps.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from .base import Interpreter
from .eager import EagerInterpreter

_current: ContextVar[Interpreter] = ContextVar("framework_interpreter", default=EagerInterpreter())  # noqa: B039


def current() -> Interpreter:
    return _current.get()


def is_tracing() -> bool:
    """Whether the current code is being traced for graph mode."""
    return _current.get().tracing


def apply(prim: Any, args: tuple) -> Any:
    """Apply ``prim`` to ``args`` with the interpreter of the current mode."""
    return _current.get().apply(prim, args)


@contextmanager
def using(interpreter: Interpreter) -> Iterator[Interpreter]:
    token = _current.set(interpreter)
    try:
        yield interpreter
    finally:
        _current.reset(token)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Label the nodes recorded inside (e.g. 'backward') for the IR dumps."""
    interp = _current.get()
    previous = interp.phase
    interp.phase = name
    try:
        yield
    finally:
        interp.phase = previous


@contextmanager
def located_like(tensor: Any) -> Iterator[None]:
    """While tracing, credit the IR nodes recorded inside to the source line and the cell of
    the node that produced ``tensor`` (the backward pass: its nodes point at the forward
    line they differentiate). Does nothing when not tracing."""
    interp = _current.get()
    first = tensor[0] if isinstance(tensor, tuple) and tensor else tensor
    producer = getattr(getattr(first, "_data", None), "producer", None)
    if not hasattr(interp, "location_override") or getattr(producer, "location", None) is None:
        yield
        return
    previous = interp.location_override, interp.cell_override
    interp.location_override, interp.cell_override = producer.location, producer.cell
    try:
        yield
    finally:
        interp.location_override, interp.cell_override = previous


__all__ = ["EagerInterpreter", "Interpreter", "apply", "current", "is_tracing", "located_like", "phase",
           "using"]
