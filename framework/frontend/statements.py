"""Converted forms of calls, ``print``, item assignment and ``assert``."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ..common.tensor import Tensor
from ..interpreters import is_tracing
from .convert import convert
from .depth import tracked


def converted(fn: Any) -> Any:
    """A called function, converted when it is user code (MindSpore parses the functions
    a compiled function calls); cells convert their ``construct`` when called."""
    if is_tracing() and isinstance(fn, types.FunctionType | types.MethodType):
        return tracked(fn, convert(fn))
    return fn


def print_(*args: Any, **kwargs: Any) -> None:
    """``print`` in graph mode: a runtime print of each argument on its own line (strings,
    numbers, tensor values; see :mod:`framework.ops.debug`), each time the compiled code
    reaches it; Python's print otherwise. Compiled code's print takes no keyword arguments,
    as in MindSpore."""
    if not is_tracing():
        print(*args, **kwargs)
        return
    if kwargs:
        raise RuntimeError(f"print() in compiled code got an unexpected keyword argument "
                           f"'{next(iter(kwargs))}' (MindSpore's graph-mode print takes none)")
    from ..ops.debug import print_items, runtime_print

    runtime_print(print_items(args))


def setitem(target: Any, index: Any, value: Any) -> Any:
    """``x[index] = value``: a tensor name is rebound to the updated value (the functional
    ``F.setitem``; the tensor object itself is left unchanged, so a traced branch or loop
    body has no side effect on it); a Parameter is assigned its updated value (a state
    update, as ``param[index] = value`` is anywhere); Python containers are updated in
    place."""
    from ..ops import functional as F
    from ..parameter import Parameter

    if isinstance(target, Tensor) and not isinstance(target, Parameter):
        return F.setitem(target, index, value)
    target[index] = value
    return target


def assert_(test: Any, message: Callable[[], Any] | None) -> None:
    """``assert`` on Python values as usual; a condition on a traced tensor cannot be
    checked while compiling and is skipped (as MindSpore's graph mode does)."""
    from .runtime import is_variable

    if is_variable(test):
        return
    if not test:
        raise AssertionError(message() if message is not None else None)
