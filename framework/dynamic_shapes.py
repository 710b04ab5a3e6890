"""Graph mode's dynamic axes: which axes of a call's tensors an input signature declares
dynamic (``None`` or a :class:`framework.symbol.Symbol` in ``Cell.set_inputs`` or
``jit(input_signature=...)``), and the sizes a function is traced at to find its symbolic
form (:mod:`framework.ir.symbolic`).

Contract: every dynamic axis of one signature stands for the same symbol ``n`` (a call
whose dynamic axes differ in size is compiled for its shapes, as any call). The function is
traced at two *probe* sizes chosen from the Symbols' constraints alone (not from the call),
so the compiled function and its cache key are the same whatever size comes first. A
signature of any rank (``[-2]``) declares no axis.
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


@dataclass(frozen=True)
class DynamicAxes:
    """Per tensor leaf of a call: its dynamic axes; the Symbols bounding them."""

    axes: dict[int, tuple[int, ...]]
    symbols: tuple[Symbol, ...] = ()

    def size(self, leaves: Sequence[Any]) -> int | None:
        """The size of the dynamic axes in this call (None when they differ)."""
        sizes = {int(_shape(leaves[i])[a]) for i, axes in self.axes.items() for a in axes}
        return sizes.pop() if len(sizes) == 1 else None

    def masked(self, key: Any) -> Any:
        """A call's cache key with the dynamic dimensions left out."""
        tree, leaf_keys = key
        leaf_keys = list(leaf_keys)
        for i, axes in self.axes.items():
            kind, shape, dtype = leaf_keys[i]
            leaf_keys[i] = (kind, tuple(DYNAMIC_DIM if a in axes else d for a, d in enumerate(shape)),
                            dtype)
        return ("symbolic", tree, tuple(leaf_keys))

    def resized(self, leaves: Sequence[Any], size: int) -> list[Any]:
        """``leaves`` with their dynamic axes of ``size`` (zeros: tracing reads no values)."""
        out = list(leaves)
        for i, axes in self.axes.items():
            shape = tuple(size if a in axes else d for a, d in enumerate(_shape(leaves[i])))
            out[i] = Tensor(np.zeros(shape, _dtype(leaves[i])))
        return out

    def sym(self) -> SymDim:
        low = max([1, *(s.min for s in self.symbols)])
        highs = [s.max for s in self.symbols if s.max > s.min]
        return SymDim("n", low, min(highs) if highs else None)

    def allows(self, size: int) -> bool:
        sym = self.sym()
        if size < sym.min or (sym.max is not None and size > sym.max):
            return False
        return all((size - s.remainder) % s.divisor == 0 and size > s.remainder
                   for s in self.symbols)

    def probes(self) -> tuple[int, int] | None:
        """Two sizes to trace at (None when the Symbols allow fewer than two)."""
        found = [n for n in _PREFERRED if self.allows(n)]
        n = max(2, self.sym().min)
        while len(found) < 2 and n < 1 << 16:
            if n not in found and self.allows(n):
                found.append(n)
            n += 1
        return (found[0], found[1]) if len(found) == 2 else None


def _shape(leaf: Any) -> tuple[int, ...]:
    return tuple((leaf._data if isinstance(leaf, Tensor) else leaf).shape)


def _dtype(leaf: Any) -> Any:
    return (leaf._data if isinstance(leaf, Tensor) else leaf).dtype


def batch_axes(leaves: Sequence[Any]) -> DynamicAxes | None:
    """The batch axis of a training step's call, when no signature declares one: axis 0 of
    every tensor whose first dimension is the first tensor's (a batch and its labels;
    a tensor of another size keeps its shape)."""
    shapes = [(i, _shape(leaf)) for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor | np.ndarray)]
    if not shapes or not shapes[0][1]:
        return None
    n = shapes[0][1][0]
    axes = {i: (0,) for i, shape in shapes if shape and shape[0] == n}
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
    symbols: list[Symbol] = []
    for i, (want, leaf) in enumerate(zip(sig_leaves, leaves)):
        data = getattr(want, "_data", None)
        if not isinstance(data, Placeholder) or not isinstance(leaf, Tensor | np.ndarray):
            continue
        if len(data.shape) != len(_shape(leaf)):  # any rank ([-2]) or a call of another rank
            continue
        dynamic = tuple(a for a, d in enumerate(data.shape) if d == DYNAMIC_DIM)
        if dynamic:
            axes[i] = dynamic
            symbols += list(data.symbols.values())
    return DynamicAxes(axes, tuple(symbols)) if axes else None
