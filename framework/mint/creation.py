"""``mint``'s tensor creation and random sampling (``size``, ``dtype=`` keywords).

Contracts, as MindSpore 2.10's ``mint``:

- ``zeros``/``ones``/``empty`` take a size (a tuple, or ints: ``empty(2, 3)``) and
  default to float32; ``full`` takes its dtype from ``fill_value`` (bool, int64, float32)
  unless ``dtype`` is given; ``*_like`` keep the input's dtype unless ``dtype`` is given;
- ``arange`` gives int64 for integer arguments, float32 otherwise;
- ``empty`` is zero-filled here (its values are unspecified in MindSpore);
- random functions (``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
  ``bernoulli``, ``multinomial`` and the ``_like`` forms) draw from the framework's
  generator (``ms.set_seed``) at each call, in both modes: a compiled (graph-mode) function
  gets fresh numbers at each run (``ops.random_draw.RandomDraw``, host-drawn), and after the
  same ``ms.set_seed`` the same program gives the same sequence, in either mode. (MindSpore
  2.10 runs these on Ascend only; its CPU ``ops.rand``/``ops.uniform`` draw per call too.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as ops
from ..ops._utils import argument_error
from ..ops.random_draw import random_draw


def _size(op: str, size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = tuple(size[0])
    if not all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in size):
        raise argument_error(op, TypeError(f"size must be ints, got {size!r}"))
    return tuple(int(n) for n in size)


def _const(array: np.ndarray, dtype: Any) -> Tensor:
    return Tensor(np.asarray(array, mstype.to_np(dtype)))


def zeros(*size, dtype=None):
    return _const(np.zeros(_size("zeros", size)), dtype or mstype.float32)


def ones(*size, dtype=None):
    return _const(np.ones(_size("ones", size)), dtype or mstype.float32)


def empty(*size, dtype=None, device=None):
    return _const(np.zeros(_size("empty", size)), dtype or mstype.float32)


def _fill_dtype(fill_value: Any) -> Any:
    if isinstance(fill_value, Tensor):
        return fill_value.dtype
    if isinstance(fill_value, bool | np.bool_):
        return mstype.bool_
    if isinstance(fill_value, int | np.integer):
        return mstype.int64
    return mstype.float32


def full(size, fill_value, *, dtype=None):
    dtype = dtype or _fill_dtype(fill_value)
    if isinstance(fill_value, Tensor):
        return ops.broadcast_to(ops.cast(fill_value, dtype), _size("full", (size,)))
    return ops.fill(dtype, _size("full", (size,)), fill_value)


def zeros_like(input, *, dtype=None):  # noqa: A002
    return ops.zeros_like(input, dtype=dtype)


def ones_like(input, *, dtype=None):  # noqa: A002
    return ops.ones_like(input, dtype=dtype)


def empty_like(input, *, dtype=None, device=None):  # noqa: A002
    return ops.zeros_like(input, dtype=dtype)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    return ops.full_like(input, fill_value, dtype=dtype)


def eye(n, m=None, dtype=None):
    return _const(np.eye(int(n), int(n if m is None else m)), dtype or mstype.float32)


def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    values = (start, end, step)
    if dtype is None:
        dtype = mstype.int64 if all(isinstance(v, int) for v in values) else mstype.float32
    return _const(np.arange(*[v.item() if isinstance(v, Tensor) else v for v in values]), dtype)


def linspace(start, end, steps, *, dtype=None):
    return _const(np.linspace(start, end, int(steps)), dtype or mstype.float32)


# -- random ------------------------------------------------------------------------------
def _draw(kind: str, shape: tuple[int, ...], dtype: Any, a: float = 0, b: float = 0) -> Tensor:
    return random_draw(kind, shape, mstype.to_np(dtype), a, b)


def rand(*size, generator=None, dtype=None, device=None):  # noqa: A002  (generator: unused)
    return _draw("uniform", _size("rand", size), dtype or mstype.float32)


def randn(*size, generator=None, dtype=None, device=None):
    return _draw("normal", _size("randn", size), dtype or mstype.float32, 0.0, 1.0)


def randint(*args, generator=None, dtype=None, device=None):
    """``randint(high, size)`` or ``randint(low, high, size)``: int64 in ``[low, high)``."""
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise argument_error("randint", TypeError("give (high, size) or (low, high, size)"))
    if not int(low) < int(high):
        raise argument_error("randint", ValueError(f"low must be < high, got {low}, {high}"))
    return _draw("integers", _size("randint", (size,)), dtype or mstype.int64, int(low), int(high))


def randperm(n, *, generator=None, dtype=mstype.int64):
    return _draw("permutation", (int(n),), dtype)


def rand_like(input, *, dtype=None, device=None):  # noqa: A002
    return rand(tuple(input.shape), dtype=dtype or input.dtype)


def randn_like(input, *, dtype=None, device=None):  # noqa: A002
    return randn(tuple(input.shape), dtype=dtype or input.dtype)


def randint_like(input, *args, dtype=None, device=None):  # noqa: A002
    low, high = (0, args[0]) if len(args) == 1 else args
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal draws: ``mean``/``std`` numbers with ``size``, or tensors (broadcast)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        shape = np.broadcast_shapes(*(tuple(v.shape) for v in (mean, std) if isinstance(v, Tensor)))
        noise = _draw("normal", shape, mstype.float32, 0.0, 1.0)
        return noise * std + mean
    return _draw("normal", _size("normal", (size,)), mstype.float32, float(mean), float(std))


def bernoulli(input, *, generator=None, p=None):  # noqa: A002
    """1 with probability ``input`` (or ``p``) per element, else 0; ``input``'s dtype."""
    prob = input if p is None else ops.full_like(input, p)
    draw = _draw("uniform", tuple(input.shape), input.dtype)
    return ops.cast(ops.less(draw, prob), input.dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    return ops.cast(ops.multinomial(input, num_samples, replacement), mstype.int64)


__all__ = sorted(n for n, v in list(globals().items())
                 if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == __name__)
