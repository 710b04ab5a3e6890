"""Loop-carried variables of a staged loop: which leaves travel as tensors.

Each variable a loop assigns is one of:

- carried: its leaves (a tensor, or a tuple/list/dict of them) are loop-carried values;
  Python numbers among them become 0-d tensors (bool, int64, float32) so that they may
  change from one iteration to the next;
- static: a Python value the body must leave as it is (a cell, None, a string ...);
- local: unbound before the loop, so it only lives inside the body (after the loop it
  is Undefined, as MindSpore refuses to use it there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..errors import SourceLocation, user_location, with_location
from ..interpreters.regions import NUMBERS, number_dtype, same_python_value
from ..ir.graph import GraphModeError
from ..signature import Tree
from ..signature import leaves as leaves_of
from .undefined import Undefined


def _promote(value: Any) -> Tensor:
    return Tensor(np.asarray(value, number_dtype(value)))


class Carry:
    def __init__(self, init: tuple, names: tuple[str, ...], lineno: int) -> None:
        self.names, self.lineno = names, lineno
        self.kinds: list[str] = []
        self.trees: list[Tree | None] = []
        self.static: list[Any] = []
        self.specs: list[list[tuple[tuple[int, ...], np.dtype]]] = []
        for value in init:
            leaves = leaves_of(value)
            if isinstance(value, Undefined):
                kind = "local"
            elif any(isinstance(leaf, Tensor) for leaf in leaves) or (
                    leaves and all(isinstance(leaf, NUMBERS) for leaf in leaves)):
                kind = "carried"
            else:
                kind = "static"
            self.kinds.append(kind)
            self.trees.append(Tree(value) if kind == "carried" else None)
            self.static.append(value)
            self.specs.append([])

    def _where(self) -> SourceLocation | None:
        loc = user_location(3)
        return SourceLocation(loc.filename, self.lineno, loc.function) if loc else None

    def _error(self, message: str) -> GraphModeError:
        return GraphModeError(with_location(f"graph mode: {message}", self._where()))

    def pack(self, values: tuple) -> list[Tensor]:
        """The carried leaves of ``values`` as tensors (checked against the first pack)."""
        flat: list[Tensor] = []
        first = not any(self.specs)
        for k, (kind, value) in enumerate(zip(self.kinds, values)):
            name = self.names[k]
            if kind == "static":
                if not same_python_value(value, self.static[k]):
                    raise self._error(
                        f"variable {name!r} is the Python value {self.static[k]!r} before the loop "
                        f"and {value!r} after an iteration; only tensors (and numbers) can "
                        "change inside a loop on a tensor condition")
                continue
            if kind == "local":
                continue
            if isinstance(value, Undefined) or Tree(value) != self.trees[k]:
                raise self._error(f"variable {name!r} changes its structure inside the loop "
                                  f"(from {self.static[k]!r} to {value!r})")
            for j, leaf in enumerate(leaves_of(value)):
                if first:
                    tensor = leaf if isinstance(leaf, Tensor) else _promote(leaf)
                    self.specs[k].append((tuple(tensor.shape), np.dtype(tensor._data.dtype)))
                else:
                    shape, dtype = self.specs[k][j]
                    tensor = leaf if isinstance(leaf, Tensor) else Tensor(np.full(shape, leaf, dtype))
                flat.append(tensor)
        return flat

    def unpack(self, flat: list[Any], after_loop: bool = False) -> tuple:
        out, pos = [], 0
        for k, kind in enumerate(self.kinds):
            if kind == "static":
                out.append(self.static[k])
            elif kind == "local":
                reason = (f"is assigned only inside the loop (at {self._where()})" if after_loop
                          else "is used before it is assigned")
                out.append(Undefined(self.names[k], reason))
            else:
                tree = self.trees[k]
                out.append(tree.rebuild(list(flat[pos:pos + tree.size])))
                pos += tree.size
        return tuple(out)

    def mismatch(self, index: int, error: Any) -> GraphModeError:
        pos = 0
        for k, kind in enumerate(self.kinds):
            if kind != "carried":
                continue
            pos += self.trees[k].size
            if index < pos:
                return self._error(
                    f"variable {self.names[k]!r} is {error.first} before the loop and "
                    f"{error.second} after "
                    "an iteration; a loop on a tensor condition must keep each variable's shape "
                    "and dtype (cast it before the loop)")
        return self._error(f"a loop-carried value changes inside the loop: {error}")

