"""``mindspore.ops.primitive``: ``Primitive`` and ``constexpr``, for code that imports them
from there (``from mindspore.ops.primitive import constexpr``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..primitive import Primitive


def constexpr(fn: Callable[..., Any] | None = None, *, get_instance: bool = True,
              reuse_result: bool = True, check: bool = True) -> Any:
    """MindSpore's ``@constexpr``: ``fn`` is evaluated while the graph is compiled, on
    constant arguments (shapes, Python numbers), and its result enters the graph as a
    constant. Graph mode here runs every Python function on Python values while tracing,
    so ``fn`` is returned as it is; the keyword options are accepted for compatibility."""
    if fn is None:
        return lambda f: f
    return fn


__all__ = ["Primitive", "constexpr"]
