"""How deep compiling follows calls.

Tracing runs the user's Python with about five interpreter frames per nested call (a
Cell's ``__call__``, the converted ``construct``, the interpreters), so Python's default
limit of 1,000 frames stopped graph mode near 200 nested cells where PyNative went on.
:func:`deep_calls` raises the limit while tracing, as far as the thread's C stack allows
(measured: 8 MiB held about 25,000 such frames; the budget is a third of that per 8 MiB).

A function that calls itself until a tensor's value says stop never ends while compiling:
both branches of the tensor's condition are traced, the recursive one again and again.
:func:`tracked` counts each converted function's own nesting; when the limit is reached
inside one, the error names it (function and ``file:line``) in one line instead of
Python's ``RecursionError`` from deep inside the tracer. A recursion on Python values ends
and compiles unrolled, as in MindSpore.
"""

from __future__ import annotations

import contextlib
import resource
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import shown_path
from ..ir.graph import GraphModeError

FRAMES_PER_8MIB = 8_000  # interpreter frames the budget allows per 8 MiB of C stack
# (file, first line, name, the bound instance's id) -> [nesting now, deepest this episode]
_active: dict[tuple, list[int]] = {}


def _frame_budget() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    stack = 8 << 20 if soft in (resource.RLIM_INFINITY, -1) else soft
    return max(1000, FRAMES_PER_8MIB * stack // (8 << 20))


@contextlib.contextmanager
def deep_calls() -> Iterator[None]:
    """Python's recursion limit raised to :func:`_frame_budget` (never lowered) meanwhile."""
    before = sys.getrecursionlimit()
    wanted = max(before, _frame_budget())
    sys.setrecursionlimit(wanted)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == wanted:
            sys.setrecursionlimit(before)


def tracked(fn: Any, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call`` (the converted ``fn``), counting how deep ``fn`` nests in itself."""
    func = getattr(fn, "__func__", fn)
    code = func.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name, id(getattr(fn, "__self__", None)))

    def run(*args: Any, **kwargs: Any) -> Any:
        depth = _active.setdefault(key, [0, 0])
        depth[0] += 1
        depth[1] = max(depth[1], depth[0])
        try:
            return call(*args, **kwargs)
        except RecursionError:
            if depth[0] != 1 or depth[1] < 3:  # not the outermost call of a recursion
                raise
            where = f"{shown_path(code.co_filename)}:{code.co_firstlineno}"
            raise GraphModeError(
                f"{func.__qualname__.replace('_cf_factory.<locals>.', '')} ({where}) calls "
                f"itself without end while compiling ({depth[1]} levels deep): a recursion that "
                "stops on a tensor's value cannot be compiled (both branches are traced); "
                "write it as a while loop, or recur on Python values") from None
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                del _active[key]

    return run
