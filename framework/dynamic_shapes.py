"""Graph mode's dynamic axes: which axes of a call's tensors an input signature declares
dynamic (``None`` or a :class:`framework.symbol.Symbol` in ``Cell.set_inputs`` or
``jit(input_signature=...)``), and the sizes a function is traced at to find its symbolic
form (:mod:`framework.ir.symbolic`).

Contract: the dynamic axes at one position of the leaves' shapes stand for one symbol:
axis 0 for ``n`` (a batch), axis 1 for ``t`` (a sequence length), axis ``k`` for ``d<k>``
(a call whose axes of one symbol differ in size is compiled for its shapes, as any call).
With one symbol a size is an int, with several a tuple of ints (symbols in axis order). The
function is traced at *probe* sizes chosen from the Symbols' constraints alone (not from
the call), so the compiled function and its cache key are the same whatever size comes
first: one symbol, two sizes; several, a base (each symbol's first probe) and per symbol
the base with that symbol at its second probe (:func:`framework.ir.symbolic.generalize_sizes`).
A signature of any rank (``[-2]``) declares no axis. :func:`batch_axes` (a training step
without a signature) marks axis 0 of the batch, and with ``sequence`` axis 1 of its
integer tensors of rank 2 or more (token ids) whose axis 1 is the first such tensor's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .common.tensor import Tensor
from .ir.symbolic import SymDim
from .placeholder import DYNAMIC_DIM, Placeholder
from .signature import flatten
from .symbol import Symbol

_PREFERRED = (5, 7)  # probe sizes (distinct, small, not 1: size 1 broadcasts)


SYMBOL_NAMES = {0: "n", 1: "t"}


def _name(axis: int) -> str:
    return SYMBOL_NAMES.get(axis, f"d{axis}")


@dataclass(frozen=True)
class DynamicAxes:
    """Per tensor leaf of a call: its dynamic axes; the Symbols bounding them (by axis)."""

    axes: dict[int, tuple[int, ...]]
    symbols: tuple[tuple[int, Symbol], ...] = ()  # (axis, Symbol)

    def positions(self) -> list[int]:
        """The axis positions of the symbols, in order."""
        return sorted({a for axes in self.axes.values() for a in axes})

    def size(self, leaves: Sequence[Any]) -> int | tuple[int, ...] | None:
        """The size of the dynamic axes in this call (None when one symbol's differ)."""
        found = []
        for pos in self.positions():
            sizes = {int(_shape(leaves[i])[a]) for i, axes in self.axes.items() for a in axes
                     if a == pos}
            if len(sizes) != 1:
                return None
            found.append(sizes.pop())
        return found[0] if len(found) == 1 else tuple(found)

    def masked(self, key: Any) -> Any:
        """A call's cache key with the dynamic dimensions left out."""
        tree, leaf_keys = key
        leaf_keys = list(leaf_keys)
        for i, axes in self.axes.items():
            kind, shape, dtype = leaf_keys[i]
            leaf_keys[i] = (kind, tuple(DYNAMIC_DIM if a in axes else d for a, d in enumerate(shape)),
                            dtype)
        return ("symbolic", tree, tuple(leaf_keys))

    def resized(self, leaves: Sequence[Any], size: int | tuple[int, ...]) -> list[Any]:
        """``leaves`` with their dynamic axes of ``size`` (zeros: tracing reads no values)."""
        values = dict(zip(self.positions(), size if isinstance(size, tuple) else (size,), strict=True))
        out = list(leaves)
        for i, axes in self.axes.items():
            shape = tuple(values[a] if a in axes else d for a, d in enumerate(_shape(leaves[i])))
            out[i] = Tensor(np.zeros(shape, _dtype(leaves[i])))
        return out

    def only(self, positions: Sequence[int]) -> DynamicAxes:
        """These axes with the symbols at ``positions`` alone dynamic (the others' sizes
        then part of the call's key: compiled per size of theirs)."""
        axes = {i: kept for i, a in self.axes.items() if (kept := tuple(x for x in a if x in positions))}
        return DynamicAxes(axes, tuple((a, s) for a, s in self.symbols if a in positions))

    def _bounds(self, pos: int) -> list[Symbol]:
        return [s for a, s in self.symbols if a == pos]

    def _sym(self, pos: int) -> SymDim:
        bounds = self._bounds(pos)
        low = max([1, *(s.min for s in bounds)])
        highs = [s.max for s in bounds if s.max > s.min]
        return SymDim(_name(pos), low, min(highs) if highs else None)

    def syms(self) -> tuple[SymDim, ...]:
        """The symbols, in axis order."""
        return tuple(self._sym(pos) for pos in self.positions())

    def sym(self) -> SymDim:
        return self.syms()[0]

    def _allows(self, pos: int, size: int) -> bool:
        sym = self._sym(pos)
        if size < sym.min or (sym.max is not None and size > sym.max):
            return False
        return all((size - s.remainder) % s.divisor == 0 and size > s.remainder
                   for s in self._bounds(pos))

    def allows(self, size: int | tuple[int, ...]) -> bool:
        values = size if isinstance(size, tuple) else (size,)
        return all(self._allows(pos, v) for pos, v in zip(self.positions(), values, strict=True))

    def _two(self, pos: int) -> tuple[int, int] | None:
        found = [n for n in _PREFERRED if self._allows(pos, n)]
        n = max(2, self._sym(pos).min)
        while len(found) < 2 and n < 1 << 16:
            if n not in found and self._allows(pos, n):
                found.append(n)
            n += 1
        return (found[0], found[1]) if len(found) == 2 else None

    def probes(self) -> list[int | tuple[int, ...]] | None:
        """The sizes to trace at (None when a symbol's Symbols allow fewer than two): one
        symbol, two sizes; several, the base then the base with one symbol changed."""
        pairs = [self._two(pos) for pos in self.positions()]
        if any(p is None for p in pairs):
            return None
        if len(pairs) == 1:
            return list(pairs[0])
        base = tuple(p[0] for p in pairs)
        return [base, *(base[:i] + (p[1],) + base[i + 1:] for i, p in enumerate(pairs))]


def _shape(leaf: Any) -> tuple[int, ...]:
    return tuple((leaf._data if isinstance(leaf, Tensor) else leaf).shape)


def _dtype(leaf: Any) -> Any:
    return (leaf._data if isinstance(leaf, Tensor) else leaf).dtype


def batch_axes(leaves: Sequence[Any], sequence: bool = False) -> DynamicAxes | None:
    """The batch axis of a training step's call, when no signature declares one: axis 0 of
    every tensor whose first dimension is the first tensor's (a batch and its labels;
    a tensor of another size keeps its shape). With ``sequence`` (text) also axis 1 of the
    integer tensors of rank 2 or more whose axis 1 is the first such tensor's (token ids
    and their next-token labels)."""
    shapes = [(i, _shape(leaf)) for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor | np.ndarray)]
    if not shapes or not shapes[0][1]:
        return None
    n = shapes[0][1][0]
    axes = {i: (0,) for i, shape in shapes if shape and shape[0] == n}
    tokens = [(i, shape) for i, shape in shapes if i in axes and len(shape) >= 2
              and np.dtype(_dtype(leaves[i])).kind in "iu"] if sequence else []
    for i, shape in tokens:
        if shape[1] == tokens[0][1][1]:
            axes[i] = (0, 1)
    return DynamicAxes(axes)


def declared(signature: Any, leaves: Sequence[Any], key: Any) -> DynamicAxes | None:
    """The dynamic axes an input ``signature`` (one entry per argument) declares for a call
    flattened to ``leaves`` (``key``: its structure key), or None when it declares none or
    the call's structure is not the signature's."""
    if signature is None:
        return None
    if isinstance(signature, Tensor):
        signature = (signature,)
    sig_leaves, sig_key, _ = flatten(list(signature))
    if sig_key[0] != key[0] or len(sig_leaves) != len(leaves):
        return None
    axes: dict[int, tuple[int, ...]] = {}
    symbols: list[tuple[int, Symbol]] = []
    for i, (want, leaf) in enumerate(zip(sig_leaves, leaves)):
        data = getattr(want, "_data", None)
        if not isinstance(data, Placeholder) or not isinstance(leaf, Tensor | np.ndarray):
            continue
        if len(data.shape) != len(_shape(leaf)):  # any rank ([-2]) or a call of another rank
            continue
        dynamic = tuple(a for a, d in enumerate(data.shape) if d == DYNAMIC_DIM)
        if dynamic:
            axes[i] = dynamic
            symbols += [(a, sym) for a, sym in data.symbols.items() if a in dynamic]
    return DynamicAxes(axes, tuple(symbols)) if axes else None
