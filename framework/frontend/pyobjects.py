"""Python objects in graph mode: builtins over constants and what a compiled function
returns for them (MindSpore 2.x's JIT syntax support).

Contracts:

- :func:`builtin` is what converted code calls for ``map``, ``filter``, ``zip``,
  ``enumerate``, ``int``, ``float``, ``max`` and ``min`` (``_cf_rt.builtin(map)(f, xs)``;
  converted code runs only in graph mode: traced, or interpreted by :mod:`.fallback`).
  ``int``/``float`` take a tensor or array of one element whatever its rank
  (``int(Tensor([-1.0]))`` is ``-1``); ``max``/``min`` of one constant 1-d tensor read its
  values while compiling (a 0-d tensor of its dtype);
  the others run at once over their (constant) arguments and give containers, as
  MindSpore's graph mode does:
  ``map`` a tuple when its first iterable is a tuple, else a list; ``filter`` a list;
  ``zip`` and ``enumerate`` tuples of tuples. A function they apply is converted like
  any user function. A name that the program rebinds (its own ``map``) is left alone.
- :func:`returned` is what a compiled function's result goes through before its leaves
  are taken: iterators become containers (``range``, ``zip``, ``enumerate``, ``map`` and
  dict keys/values: tuples; ``filter``, generators and dict items: lists), recursively
  inside tuples, lists and dicts. With ``numpy_scalars`` (the compiled path), NumPy
  scalars become Python numbers (``tuple(np.array([1, 2]))`` returns ``(1, 2)``); the
  interpreted path (:mod:`.fallback`) returns them as Python computed them.
- Leaves that are neither tensors nor Python numbers/strings/None are returned as the
  very objects (classes from ``type(x)``, dtypes, slices, ``jit_class`` objects: the same
  object each call; NumPy arrays: a copy per call), as MindSpore's graph mode returns
  them; :data:`FUNCTION_TYPES` (functions, methods) are refused, as there.
"""

from __future__ import annotations

import builtins
import functools
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from .runtime import is_variable

FUNCTION_TYPES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType,
                  functools.partial)
_TO_TUPLE = (range, zip, enumerate, map, type({}.keys()), type({}.values()))
_TO_LIST = (filter, types.GeneratorType, type({}.items()))


def _map(converted: Callable, fn: Callable, first: Iterable, *rest: Iterable) -> tuple | list:
    values = [converted(fn)(*items) for items in builtins.zip(first, *rest)]
    return tuple(values) if isinstance(first, tuple) else values


def _filter(converted: Callable, fn: Callable | None, items: Iterable) -> list:
    test = bool if fn is None else converted(fn)
    return [item for item in items if test(item)]


def _zip(*iterables: Iterable, **kwargs: Any) -> tuple:
    return tuple(builtins.zip(*iterables, **kwargs))


def _enumerate(items: Iterable, start: int = 0) -> tuple:
    return tuple(builtins.enumerate(items, start))


def _extreme(pick: Callable, *args: Any, **kwargs: Any) -> Any:
    """``max``/``min`` of one constant 1-d tensor: its extreme element (a 0-d tensor), read
    while compiling; anything else as Python does it."""
    items = args[0] if len(args) == 1 and not kwargs else None
    if (isinstance(items, Tensor) and items.ndim == 1 and isinstance(items._data, np.ndarray)
            and not is_variable(items) and items.size):
        data = items._data
        return Tensor(data[int(np.argmax(data) if pick is builtins.max else np.argmin(data))])
    return pick(*args, **kwargs)


def _item(x: Tensor | np.ndarray, what: str) -> Any:
    """The one element of ``x`` (NeedsValueError naming ``what`` for a traced tensor)."""
    if isinstance(x, Tensor) and not isinstance(x._data, np.ndarray):
        x._data.concrete_error(what)
    return x.item()


def _int(x: Any = 0, *base: Any) -> int:
    if isinstance(x, Tensor | np.ndarray) and not base:
        return int(_item(x, "int(tensor)"))
    return int(x, *base)


def _float(x: Any = 0.0) -> float:
    return float(_item(x, "float(tensor)")) if isinstance(x, Tensor | np.ndarray) else float(x)


_FOLDED = ((builtins.map, _map), (builtins.filter, _filter), (builtins.zip, _zip),
           (builtins.enumerate, _enumerate), (builtins.int, _int), (builtins.float, _float),
           (builtins.max, functools.partial(_extreme, builtins.max)),
           (builtins.min, functools.partial(_extreme, builtins.min)))


def builtin(fn: Any, converted: Callable[[Any], Any]) -> Any:
    """The graph-mode form of the builtin ``fn`` (``fn`` itself when it is not one of
    ours: a name the program rebinds); ``map`` and ``filter`` apply ``converted(f)`` (how
    the frontend converts a called function, :func:`.statements.converted`)."""
    folded = next((folded for original, folded in _FOLDED if fn is original), fn)
    return functools.partial(folded, converted) if folded in (_map, _filter) else folded


def returned(value: Any, numpy_scalars: bool = True) -> Any:
    """``value`` as a compiled function returns it (see the module doc)."""
    if isinstance(value, _TO_TUPLE):
        return tuple(returned(v, numpy_scalars) for v in value)
    if isinstance(value, _TO_LIST):
        return [returned(v, numpy_scalars) for v in value]
    if isinstance(value, tuple | list):
        items = [returned(v, numpy_scalars) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: returned(v, numpy_scalars) for k, v in value.items()}
    if numpy_scalars and isinstance(value, np.generic):
        return value.item()
    return value
