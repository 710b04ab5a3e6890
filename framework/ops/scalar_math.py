"""MindSpore's scalar ops (``scalar_add`` ... ``scalar_log``) and the augmented-assignment
functions its graph compiler uses for ``x += y`` (``augassign_add`` ...).

Contracts (MindSpore 2.10):

- The scalar ops are Python's operators on Python numbers (``scalar_div`` is true division,
  ``scalar_floordiv``/``scalar_mod`` floor towards minus infinity, ``scalar_max``/``scalar_min``
  return the winning operand unconverted, comparisons give bool); on 0-d Tensors, the
  Tensor operators. Dividing by zero (``scalar_div``, ``scalar_floordiv``, ``scalar_mod``) and
  ``scalar_log`` outside its domain are a ``ValueError``; ``scalar_log`` gives a Python float.
- In graph mode Python numbers are compile-time constants: the ops fold while compiling.
- ``augassign_*(x, y)`` is ``x op y`` for numbers, Tensors (with broadcasting and a number on
  either side) and, for ``augassign_add``, sequences (concatenation).
"""

from __future__ import annotations

import math
import operator
from typing import Any

from ._utils import argument_error


def _nonzero(op: str, y: Any, what: str) -> None:
    if not hasattr(y, "shape") and y == 0:
        raise argument_error(op, ValueError(what))


def scalar_add(x, y):
    return x + y


def scalar_sub(x, y):
    return x - y


def scalar_mul(x, y):
    return x * y


def scalar_div(x, y):
    _nonzero("scalar_div", y, "the divisor is zero")
    return x / y


def scalar_floordiv(x, y):
    _nonzero("scalar_floordiv", y, "the divisor is zero")
    return x // y


def scalar_mod(x, y):
    _nonzero("scalar_mod", y, "modulo by zero")
    return x % y


def scalar_pow(x, y):
    return x ** y


def scalar_eq(x, y):
    return x == y


def scalar_ge(x, y):
    return x >= y


def scalar_gt(x, y):
    return x > y


def scalar_le(x, y):
    return x <= y


def scalar_lt(x, y):
    return x < y


def scalar_max(x, y):
    return y if y > x else x


def scalar_min(x, y):
    return y if y < x else x


def scalar_log(x):
    value = float(x.asnumpy()) if hasattr(x, "asnumpy") else float(x)
    if not value > 0:
        raise argument_error("scalar_log", ValueError(f"math domain error: log of {value}"))
    return math.log(value)


def scalar_uadd(x):
    return +x


def scalar_usub(x):
    return -x


def augassign_add(x, y):
    return operator.add(x, y)


def augassign_sub(x, y):
    return operator.sub(x, y)


def augassign_mul(x, y):
    return operator.mul(x, y)


def augassign_div(x, y):
    return operator.truediv(x, y)


def augassign_floordiv(x, y):
    return operator.floordiv(x, y)


def augassign_mod(x, y):
    return operator.mod(x, y)
