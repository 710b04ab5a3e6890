"""What every lowering shares: the call context and small Relax helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tvm
from tvm import relax

from .....primitive import Primitive, Spec
from ..lower_target import on_cpu  # noqa: F401 - for the lowerings

Lowering = Callable[..., Any]


@dataclass(frozen=True)
class LowerContext:
    """What a lowering knows besides its Relax arguments.

    ``prim`` carries the attributes, ``bb`` is the :class:`relax.BlockBuilder` (inside a
    dataflow block), ``in_specs``/``out_specs`` are the IR node's input and output Specs
    (for a ``host_random`` primitive, ``in_specs`` ends with the host-drawn mask).
    """

    prim: Primitive
    bb: relax.BlockBuilder
    in_specs: tuple[Spec, ...]
    out_specs: tuple[Spec, ...]


@dataclass(frozen=True)
class AtUse:
    """A lowering's output to be emitted where it is first used, not where it is made: a
    cheap copy (a row slice of a big tensor) then runs next to its reader, on rows still
    in the cache, instead of all at once, long before (relax_builder emits it)."""

    expr: relax.Expr


def spec_of(expr: relax.Expr) -> Spec:
    """Static shape and NumPy dtype of an emitted (normalized) Relax tensor value."""
    ty = expr.ty
    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        raise TypeError(f"expected a tensor with a static shape, got {ty}")
    return Spec(tuple(int(d) for d in ty.shape.values), np.dtype(str(ty.dtype)))


def const(value: float | int | bool, dtype: Any) -> relax.Expr:
    """A rank-0 constant of ``dtype`` (rounded like NumPy's ``dtype.type(value)``)."""
    dtype = np.dtype(dtype)
    return relax.const(dtype.type(value).item(), dtype.name)


def cast(x: relax.Expr, src: Any, dst: Any) -> relax.Expr:
    """Cast ``x``, whose dtype is ``src``, to ``dst``; a no-op if they are the same.

    Same rules as NumPy's ``astype``: float -> int truncates toward zero, to bool is ``!= 0``
    (0.5 -> True).
    """
    dst = np.dtype(dst)
    if np.dtype(src) == dst:
        return x
    return relax.op.astype(x, dst.name)


def emit(bb: relax.BlockBuilder, expr: relax.Expr | AtUse) -> relax.Expr:
    """Emit ``expr`` (an :class:`AtUse`'s expression: now) unless it is already a bound
    value (a var or a constant)."""
    if isinstance(expr, AtUse):
        expr = expr.expr
    if isinstance(expr, relax.Var | tvm.ir.expr.Constant):
        return expr
    return bb.emit(expr)


def hw_padding(pads: Sequence[int]) -> tuple[int, int, int, int]:
    """Our (top, bottom, left, right) as Relax's (top, left, bottom, right)."""
    top, bottom, left, right = (int(p) for p in pads)
    return top, left, bottom, right


def crop(x: relax.Expr, shape: Sequence[int], begin: Sequence[int],
         size: Sequence[int]) -> relax.Expr:
    """``x[b0:b0+s0, ...]`` over all axes of ``x`` (of ``shape``); a no-op when it is the
    whole tensor."""
    if tuple(size) == tuple(shape) and not any(begin):
        return x
    axes = list(range(len(shape)))
    return relax.op.strided_slice(x, axes, [int(b) for b in begin],
                                  [int(b) + int(s) for b, s in zip(begin, size)],
                                  assume_inbound=True)
