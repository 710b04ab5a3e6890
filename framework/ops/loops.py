"""MindSpore's loop operators as classes: ``P.WhileLoop``, ``P.ForiLoop``, ``P.Scan`` and
``P.Reusing``.

Each runs its loop in Python, as its documented Python equivalent. In graph mode a
condition or bound that is a Python value (or a tensor known while tracing) unrolls the
loop into the compiled function; one that needs a traced tensor's value (``bool`` of a
condition, ``int`` of a bound) makes the function run interpreted, with the call's values
(JIT Fallback, :mod:`framework.frontend.fallback`), so the results and gradients are
those of the Python loop in both modes. (A ``while`` written in a ``construct`` compiles
to a ``While`` region instead: graph mode converts the ``construct``'s source, not these
classes'.) The classes, as their Python equivalents:

- ``WhileLoop()(cond_func, loop_func, init_val)``: ``while cond_func(val): val =
  loop_func(val)``, starting from ``init_val`` (a tensor, number, or a tuple/list of them);
- ``ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: ``for i in range(lower,
  upper): val = loop_func(i, val)`` (``unroll`` only chooses how MindSpore compiles it);
- ``Scan()(loop_func, init, xs, length=None, unroll=True)``: ``carry, y = loop_func(carry,
  x)`` for each ``x`` of ``xs`` (``None``: ``length`` times with ``x = None``); returns
  ``(carry, [y, ...])``;
- ``Reusing()(fn)``: ``fn`` itself (MindSpore marks it not to be inlined; we compile one
  function either way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _check_function(who: str, name: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(f"{who}: {name} must be a function, got {type(fn).__name__}")


class WhileLoop:
    """``P.WhileLoop()(cond_func, loop_func, init_val)``: see the module docstring."""

    def __init__(self) -> None:  # MindSpore's takes no attributes
        pass

    def __call__(self, cond_func: Callable, loop_func: Callable, init_val: Any) -> Any:
        _check_function("WhileLoop", "cond_func", cond_func)
        _check_function("WhileLoop", "loop_func", loop_func)
        value = init_val
        while cond_func(value):
            value = loop_func(value)
        return value


class ForiLoop:
    """``P.ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: see the module
    docstring."""

    def __init__(self) -> None:  # MindSpore's takes no attributes
        pass

    def __call__(self, lower: Any, upper: Any, loop_func: Callable, init_val: Any,
                 unroll: bool = True) -> Any:
        _check_function("ForiLoop", "loop_func", loop_func)
        if not isinstance(unroll, bool):
            raise TypeError(f"ForiLoop: unroll must be a bool, got {type(unroll).__name__}")
        value = init_val
        for i in range(int(lower), int(upper)):
            value = loop_func(i, value)
        return value


class Scan:
    """``P.Scan()(loop_func, init, xs, length=None, unroll=True)``: see the module docstring."""

    def __init__(self) -> None:  # MindSpore's takes no attributes
        pass

    def __call__(self, loop_func: Callable, init: Any, xs: Any, length: int | None = None,
                 unroll: bool = True) -> tuple[Any, list]:
        _check_function("Scan", "loop_func", loop_func)
        if xs is None:
            if not isinstance(length, int) or isinstance(length, bool):
                raise TypeError(f"Scan: with xs None, length must be an int, got {length!r}")
            xs = [None] * length
        elif not isinstance(xs, tuple | list):
            raise TypeError(f"Scan: xs must be a tuple, a list or None, got {type(xs).__name__}")
        if not isinstance(unroll, bool):
            raise TypeError(f"Scan: unroll must be a bool, got {type(unroll).__name__}")
        carry, ys = init, []
        for x in xs:
            out = loop_func(carry, x)
            if not isinstance(out, tuple | list) or len(out) != 2:
                raise ValueError("Scan: loop_func must return a pair (carry, y)")
            carry, y = out
            ys.append(y)
        return carry, ys


class Reusing:
    """``P.Reusing()(fn)``: ``fn`` (see the module docstring)."""

    def __init__(self) -> None:  # MindSpore's takes no attributes
        pass

    def __call__(self, x: Callable) -> Callable:
        _check_function("Reusing", "input_x", x)
        return x
