"""``ops.get_grad(gradients, identifier)``: one gradient out of what ``grad(...,
return_ids=True)`` returns.

Contract (MindSpore 2.10's documented behaviour): ``gradients`` is that output, a (nested)
tuple of ``(id, gradient)`` pairs, where an input's id is its position (``int``) and a
weight's is its Parameter's name; ``identifier`` is a position or a Parameter (found by
name). An identifier absent from ``gradients`` is a ``ValueError``; gradients that are not a
tuple a ``TypeError``. Pure structure, so it works alike in both modes.
"""

from __future__ import annotations

from typing import Any

from ._utils import argument_error


def _pairs(node: Any) -> list[tuple[Any, Any]]:
    if not isinstance(node, tuple | list):
        return []
    if len(node) == 2 and isinstance(node[0], int | str) and not isinstance(node[0], bool) \
            and hasattr(node[1], "shape"):
        return [(node[0], node[1])]
    return [pair for child in node for pair in _pairs(child)]


def get_grad(gradients, identifier):
    if not isinstance(gradients, tuple | list):
        raise argument_error("get_grad", TypeError(
            "gradients must be the tuple grad(..., return_ids=True) returns, "
            f"got {type(gradients).__name__}"))
    if isinstance(identifier, int) and not isinstance(identifier, bool):
        key: Any = identifier
    elif isinstance(getattr(identifier, "name", None), str) and hasattr(identifier, "shape"):
        key = identifier.name
    else:
        raise argument_error("get_grad", TypeError(
            f"identifier must be an input position (int) or a Parameter, got {type(identifier).__name__}"))
    for ident, grad in _pairs(gradients):
        if ident == key and type(ident) is type(key):
            return grad
    raise argument_error("get_grad", ValueError(
        f"no gradient of {key!r} in gradients (ids: {[i for i, _ in _pairs(gradients)]}); "
        "is it among grad_position / weights?"))
