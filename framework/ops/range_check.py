"""Range checks of integer tensors that both modes enforce alike (indices, class labels).

``check_range(values, low, high, describe, error=IndexError, ignore=None)`` requires every
entry of ``values`` (except those equal to ``ignore``) to lie in ``[low, high)``. The bad
value reported is the largest one at or above ``high`` if there is one, else the smallest
one below ``low``; ``describe(bad)`` makes the one-line message (the caller adds the
user's source line).

- PyNative: the values are at hand; a bad one raises ``error(describe(bad))`` at once.
- Graph mode: two scalar reductions are traced next to the computation (``over``: the
  largest value at or above ``high``, else ``high - 1``; ``under``: the smallest value below
  ``low``, else ``low``) and registered with the tracer (``TraceInterpreter.checks``). The
  compiled function returns them as extra outputs between the user's outputs and the
  Parameters' new values (:func:`framework.staging.assemble`), and the compiled call checks
  them before it commits any Parameter update (``CompiledGraph.run``), raising the same
  error with the same message: the step that read a bad value changes no state in either
  mode. Checks traced inside a control-flow region (a tensor-valued ``if``/``while`` body)
  are not enforced in graph mode; the kernels' own behaviour applies there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..interpreters import current, is_tracing
from .elementwise import equal, greater_equal, less, neg, select
from .reduce import reduce_max


@dataclass(frozen=True)
class RangeCheck:
    """A traced check: the IR values of its two reductions and how to report a failure."""

    over: Any
    under: Any
    low: int
    high: int
    describe: Callable[[int], str]
    error: type[Exception]

    def verdict(self, over: Any, under: Any) -> Exception | None:
        over, under = int(np.asarray(over)), int(np.asarray(under))
        bad = over if over >= self.high else under if under < self.low else None
        return None if bad is None else self.error(self.describe(bad))


def worst(values: np.ndarray, low: int, high: int) -> int | None:
    """The value a failed check reports (see the module docstring), or None."""
    if values.size == 0:
        return None
    top, bottom = int(values.max()), int(values.min())
    return top if top >= high else bottom if bottom < low else None


def check_range(values: Any, low: int, high: int, describe: Callable[[int], str],
                error: type[Exception] = IndexError, ignore: int | None = None) -> None:
    if not is_tracing():
        array = np.asarray(values.asnumpy())
        if ignore is not None:
            array = array[array != ignore]
        bad = worst(array, low, high)
        if bad is not None:
            raise error(describe(bad))
        return
    interp = current()
    if interp.scope is not interp.root:  # inside a region: see the module docstring
        return
    if 0 in tuple(values.shape):  # nothing to check (and no maximum of nothing)
        return
    if ignore is not None:
        values = select(equal(values, ignore), low, values)
    over = reduce_max(select(greater_equal(values, high), values, high - 1))
    under = neg(reduce_max(neg(select(less(values, low), values, low))))
    interp.checks.append(RangeCheck(interp.value_of(over), interp.value_of(under), low, high,
                                    describe, error))
