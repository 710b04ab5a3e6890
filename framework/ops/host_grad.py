"""Gradients computed by a NumPy rule on the host: for primitives whose vector-Jacobian
product is itself a matrix algorithm (inverses, solves, decompositions, order statistics),
written once in NumPy instead of as a graph of framework ops.

``host_grads(rule, arrays, specs, needs, **params)`` gives one ``HostGrad`` node per input
that needs a gradient: ``HostGrad(rule, which, shape, dtype, params)(*arrays)`` runs
``RULES[rule](*arrays, **params)`` (float arrays in float64) and returns its ``which``-th
result in the input's dtype. Graph mode runs the rule from the compiled code as it runs any
primitive's NumPy kernel; a second derivative through these is not available
(``differentiable = False``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec

RULES: dict[str, Callable[..., Sequence[np.ndarray]]] = {}


def rule(name: str) -> Callable[[Callable[..., Sequence[np.ndarray]]], Callable[..., Sequence[np.ndarray]]]:
    """Register a NumPy gradient rule under ``name``."""
    def register(fn: Callable[..., Sequence[np.ndarray]]) -> Callable[..., Sequence[np.ndarray]]:
        RULES[name] = fn
        return fn
    return register


class HostGrad(Primitive):
    """See the module docstring."""

    differentiable = False
    first_order_only = True

    def __init__(self, rule: str, which: int, shape: tuple[int, ...], dtype: str,  # noqa: A002
                 params: tuple = ()) -> None:
        super().__init__(rule=rule, which=which, shape=tuple(shape), dtype=dtype, params=params)

    def infer(self, *arrays: Any) -> Spec:
        return Spec(self.shape, np.dtype(self.dtype))

    def kernel(self, *arrays):
        wide = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
        grads = RULES[self.rule](*wide, **dict(self.params))
        grad = np.asarray(grads[self.which])
        real = np.dtype(self.dtype).kind != "c"
        return np.ascontiguousarray(grad.real if real else grad).astype(self.dtype)


def host_grads(name: str, arrays: Sequence[Any], inputs: Sequence[Any], needs: Sequence[bool],
               **params: Any) -> tuple:
    """One gradient per entry of ``inputs`` (None where ``needs`` says none is wanted)."""
    frozen = tuple(sorted(params.items()))
    return tuple(HostGrad(name, i, tuple(x.shape), mstype.to_np(x.dtype).str, frozen)(*arrays)
                 if need else None for i, (x, need) in enumerate(zip(inputs, needs)))
