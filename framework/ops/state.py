"""State updates and ordering: ``ops.Assign`` / ``ops.assign``, ``ops.depend``.

Assigning to a Parameter sets its value in PyNative; while tracing (graph mode) it is
a state update that the compiled function returns (``Parameter.set_data`` routes it to
the interpreter), so later reads in the same function see the new value.

A plain Tensor updated in place (``ops.assign``, the in-place Tensor methods of
:mod:`framework.ops.tensor_inplace`) is reported to :func:`mark_written`; while a
:func:`collecting_writes` block is open (graph mode's trace, :func:`framework.staging.trace`)
the tensor is added to its list, so that the compiled function can return the tensor's final
value and the caller's tensor take it (MindSpore's write-back of in-place updated inputs).
Item assignment (``x[i] = v``) is not reported: MindSpore's graph mode does not write it back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..autograd import tape
from ..common.tensor import Tensor
from ..interpreters import is_tracing
from ..parameter import Parameter
from ._class_form import NoAttributes
from ._utils import argument_error
from .elementwise import cast
from .shape_ops import broadcast_to

_WRITES: list[list[Any]] = []  # the open collecting_writes blocks, innermost last


@contextmanager
def collecting_writes() -> Iterator[list[Any]]:
    """A list that gathers the plain tensors updated in place while the block runs (blocks
    nest: each open one gathers them)."""
    written: list[Any] = []
    _WRITES.append(written)
    try:
        yield written
    finally:  # by identity: lists of tensors do not compare
        del _WRITES[next(i for i, w in enumerate(_WRITES) if w is written)]


def mark_written(tensor: Any) -> None:
    """``tensor`` (a plain Tensor) was just updated in place: see the module docstring."""
    for written in _WRITES:  # every open block: an inner one (a gradient) hides nothing
        written.append(tensor)


def assign(variable: Any, value: Any) -> Any:
    """``ops.assign(variable, value)``: set the Parameter (or Tensor) ``variable`` to
    ``value`` (cast to its dtype; same shape, or broadcastable to it); returns ``variable``.
    A plain Tensor takes the new value as item assignment does (in both modes)."""
    if not isinstance(variable, Tensor):
        raise argument_error("Assign", TypeError(
            f"variable must be a Parameter or a Tensor, got {type(variable).__name__}"))
    if not isinstance(value, Tensor):
        value = Tensor(value, variable.dtype)
    if tuple(value.shape) != tuple(variable.shape):
        try:
            value = broadcast_to(value, tuple(variable.shape))
        except ValueError:
            raise argument_error("Assign", ValueError(
                f"value of shape {tuple(value.shape)} does not fit "
                f"{getattr(variable, 'name', 'the Tensor')!r} of shape {tuple(variable.shape)}")) from None
    if value.dtype != variable.dtype:
        value = cast(value, variable.dtype)
    if isinstance(variable, Parameter):
        return variable.set_data(value)
    if is_tracing() and isinstance(variable._data, np.ndarray):
        raise argument_error("Assign", RuntimeError(
            "graph mode: variable is a tensor the compiled function neither computed nor "
            "received as an argument (a constant here); pass it as an argument"))
    tape.rebind(variable, value)  # as item assignment: the Tensor now holds value
    variable._data = value._data
    mark_written(variable)
    return variable


class Assign(NoAttributes):
    """``ops.Assign()(variable, value)``: see :func:`assign`."""

    def __call__(self, variable: Any, value: Any) -> Any:
        return assign(variable, value)


def depend(value: Any, expr: Any) -> Any:
    """``ops.depend(value, expr)``: ``value``; ``expr`` has already run (Python order)."""
    return value


class Depend(NoAttributes):
    def __call__(self, value: Any, expr: Any) -> Any:
        return value
