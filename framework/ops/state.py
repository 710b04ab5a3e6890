"""State updates and ordering: ``ops.Assign`` / ``ops.assign``, ``ops.depend``.

Assigning to a Parameter sets its value in PyNative; while tracing (graph mode) it is
a state update that the compiled function returns (``Parameter.set_data`` routes it to
the interpreter), so later reads in the same function see the new value.
"""

from __future__ import annotations

from typing import Any

from ._utils import argument_error


def assign(variable: Any, value: Any) -> Any:
    """``ops.assign(variable, value)``: set the Parameter ``variable`` to ``value`` (cast to
    its dtype; same shape, or broadcastable to it); returns the Parameter."""
    from ..parameter import Parameter
    from ..tensor import Tensor
    from .elementwise import cast
    from .shape import broadcast_to

    if not isinstance(variable, Parameter):
        raise argument_error("Assign", TypeError(
            f"variable must be a Parameter, got {type(variable).__name__}"))
    if not isinstance(value, Tensor):
        value = Tensor(value, variable.dtype)
    if tuple(value.shape) != tuple(variable.shape):
        try:
            value = broadcast_to(value, tuple(variable.shape))
        except ValueError:
            raise argument_error("Assign", ValueError(
                f"value of shape {tuple(value.shape)} does not fit Parameter "
                f"{variable.name!r} of shape {tuple(variable.shape)}")) from None
    if value.dtype != variable.dtype:
        value = cast(value, variable.dtype)
    return variable.set_data(value)


class Assign:
    """``ops.Assign()(variable, value)``: see :func:`assign`."""

    def __call__(self, variable: Any, value: Any) -> Any:
        return assign(variable, value)


def depend(value: Any, expr: Any) -> Any:
    """``ops.depend(value, expr)``: ``value``; ``expr`` has already run (Python order)."""
    return value


class Depend:
    def __call__(self, value: Any, expr: Any) -> Any:
        return value
