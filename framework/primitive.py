"""Primitives: one object per operation holding ALL its rules.

A primitive class defines
- ``infer(*inputs) -> Spec | tuple[Spec, ...]``: the shape/dtype rule. Inputs are
  anything with ``.shape`` and ``.dtype`` (NumPy arrays in PyNative, IR values when
  tracing); it raises ``ValueError``/``TypeError`` for bad shapes or dtypes.
- ``kernel(*arrays)``: the NumPy implementation (vectorized, no per-element Python).
- ``bprop(*inputs, out, dout, needs) -> tuple``: the vector-Jacobian product, one
  entry per input (``None`` where no gradient flows; ``needs[i]`` False means input
  i needs none and may be skipped), written with framework ops so the same rule runs
  eagerly on the tape and, traced, builds backward graphs.
- ``lower``: the TVM lowering, filled in by the graph-mode backend.

Attributes (``transpose_a``, ``axis``, ...) are constructor arguments and part of the
primitive's identity; tensors are the call arguments. Op identity is the class, never
a string.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np


class Spec(NamedTuple):
    """Abstract value: the shape and NumPy dtype of a tensor."""

    shape: tuple[int, ...]
    dtype: np.dtype


class Primitive:
    """Base class of every primitive; subclasses register themselves in ``registry``."""

    registry: ClassVar[list[type[Primitive]]] = []
    num_outputs: ClassVar[int] = 1
    # Set to False for primitives with no gradient (comparisons, argmax, one_hot ...).
    differentiable: ClassVar[bool] = True
    # True for primitives whose randomness is drawn on the host (Dropout's mask): graph
    # mode feeds it as an extra input, drawn by ``prim.draw_mask(shape, dtype)`` per call.
    host_random: ClassVar[bool] = False
    # True for primitives run for their effect (Print): never folded, merged or dropped.
    side_effect: ClassVar[bool] = False
    # Region graphs of a structured control-flow node (framework.ir.control); () otherwise.
    regions: ClassVar[tuple] = ()
    # TVM lowering: filled in by framework.backend (graph mode); None until then.
    lower: ClassVar[Callable[..., Any] | None] = None

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not abstract:
            Primitive.registry.append(cls)

    def __init__(self, **attrs: Any) -> None:
        self.attrs = attrs
        self.__dict__.update(attrs)

    @property
    def name(self) -> str:
        return type(self).__name__

    def infer(self, *inputs: Any) -> Spec | tuple[Spec, ...]:
        raise NotImplementedError(f"{self.name} has no shape rule")

    def kernel(self, *arrays: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
        raise NotImplementedError(f"{self.name} has no NumPy kernel")

    def bprop(self, *inputs: Any, out: Any, dout: Any, needs: tuple[bool, ...]) -> tuple:
        raise NotImplementedError(f"{self.name} has no gradient rule")

    def __call__(self, *args: Any) -> Any:
        from .interpreters import apply

        return apply(self, args)

    def key(self) -> tuple:
        """Hashable identity (class + attributes), e.g. for caches and CSE."""
        return (type(self), tuple(sorted((k, _hashable(v)) for k, v in self.attrs.items())))

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"{self.name}({attrs})"


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.dtype):
        return value.str
    return value


def shape_str(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
