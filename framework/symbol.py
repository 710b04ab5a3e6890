"""MindSpore's ``Symbol``: what is known of one dynamic dimension of an input signature.

Contract (as MindSpore 2.10 behaves):

- ``Symbol(max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs)``: ``max``, ``min``,
  ``divisor`` and ``remainder`` are ints (bool counts as int, NumPy integers do not:
  TypeError), ``unique`` a bool (TypeError); ``min`` and ``divisor`` positive and
  ``remainder`` in ``[0, divisor)`` (ValueError). ``max`` applies only when it is greater than
  ``min``. Other keywords are accepted and ignored.
- In ``Tensor(shape=[Symbol(...), 3], dtype=...)`` a Symbol is a dynamic dimension (-1 in the
  shape); the placeholder keeps the Symbol, and a graph-mode call of a Cell whose
  ``set_inputs`` holds it is checked by :func:`check_dim`: ``min <= n``, ``n <= max`` (when
  ``max > min``), ``n = divisor * N + remainder`` with ``N > 0``, and every dimension bound to
  one ``unique`` Symbol equal. PyNative calls are not checked, as in MindSpore.
- ``to_dict()``: the constraints that differ from the defaults (``max`` only when it applies;
  a unique Symbol's ``id``, which stands for ``unique``).
"""

from __future__ import annotations

from typing import Any


def _int_arg(name: str, value: Any) -> int:
    if not isinstance(value, int):
        raise TypeError(f"For 'Symbol', the argument '{name}' must be int, but got {type(value)}")
    return value


class Symbol:
    """Symbolic information of one dynamic dimension (see the module docstring)."""

    def __init__(self, max: int = 0, min: int = 1, divisor: int = 1, remainder: int = 0,  # noqa: A002
                 unique: bool = False, **kwargs: Any) -> None:
        self.max = _int_arg("max", max)
        self.min = _int_arg("min", min)
        self.divisor = _int_arg("divisor", divisor)
        self.remainder = _int_arg("remainder", remainder)
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the argument 'unique' must be bool, but got {type(unique)}")
        self.unique = unique
        if self.min <= 0:
            raise ValueError(f"For 'Symbol', the 'min' value should be positive, but got {self.min}")
        if self.divisor <= 0:
            raise ValueError(f"For 'Symbol', the 'divisor' value should be positive, but got {self.divisor}")
        if not 0 <= self.remainder < self.divisor:
            raise ValueError(f"For 'Symbol', the 'remainder' value should be in the range '[0, "
                             f"{self.divisor})', but got {self.remainder}")
        self.id = id(self)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.max > self.min:
            out["max"] = self.max
        if self.min != 1:
            out["min"] = self.min
        if self.divisor != 1:
            out["divisor"] = self.divisor
        if self.remainder != 0:
            out["remainder"] = self.remainder
        if self.unique:
            out["id"] = self.id  # a unique Symbol is told by its id, which ties its dimensions
        return out

    def __repr__(self) -> str:
        fields = [f"{k}={v}" for k, v in self.to_dict().items() if k != "id"]
        return f"Symbol({', '.join(fields + ['unique=True'] * self.unique)})"


def check_dim(symbol: Symbol, size: int, where: str, seen: dict[int, int]) -> None:
    """``size`` (a call's dimension, ``where`` naming it) against ``symbol``; ``seen`` holds the
    sizes bound so far to each unique Symbol (by id) in one call."""
    if size < symbol.min:
        raise ValueError(f"{where} must be greater than or equal to the 'min' value '{symbol.min}' of "
                         f"`Symbol`, but got '{size}'")
    if symbol.max > symbol.min and size > symbol.max:
        raise ValueError(f"{where} must be less than or equal to the 'max' value '{symbol.max}' of "
                         f"`Symbol`, but got '{size}'")
    d, r = symbol.divisor, symbol.remainder
    if (size - r) % d or size - r <= 0:
        raise ValueError(f"{where} must match the 'divisor'(d) and 'remainder'(r) of `Symbol`: it "
                         f"should be 'd * N + r' for 'N > 0', got d={d} and r={r}, but the size is "
                         f"'{size}'")
    if symbol.unique:
        first = seen.setdefault(symbol.id, size)
        if first != size:
            raise ValueError(f"{where} is a unique symbol, all values must be the same. The previous "
                             f"value is {first}, but the current value is {size}")
