"""Batching rules: how one primitive application on per-example values becomes one
application on a whole batch (the rules :mod:`framework.autograd.batching` uses for
``ops.vmap``).

The contract. A rule is ``rule(call) -> Tensor | tuple[Tensor, ...]`` registered for a
primitive class with :func:`register`; ``call`` is a :class:`Call`:

- ``call.prim``: the primitive of the per-example node (attributes as traced: axes
  resolved for the per-example shapes);
- ``call.args``: the node's inputs as Tensors of the current mode (NumPy arrays in
  PyNative, traced values inside a graph), a batched one with the batch axis FIRST
  (``(size, *per_example_shape)``), an unbatched one with its per-example shape;
- ``call.batched``: one bool per input; at least one is True (a node whose inputs are all
  unbatched runs as it is, without a rule);
- ``call.in_shape(i)`` / ``call.out_shape(j)``: the per-example shapes of the node's
  inputs and outputs; ``call.size``: the batch size.

The rule emits framework primitives (``emit(prim, *args)`` applies one with the
interpreter of the current mode, so the eager tape or the enclosing trace records it) and
returns every output of the node batched along axis 0, with shape
``(size, *call.out_shape(j))`` and the node's dtypes (the engine checks this). A rule
registered with ``when=`` applies only where ``when(batched_flags)`` holds; elsewhere (and
for a primitive with no rule) the engine falls back to the per-example loop.

Lookup walks the primitive's class hierarchy: a rule registered for a family
(``_Binary``: every broadcasting binary op; ``_Unary``/``_Activation``: elementwise float
ops; ``_Reduce``: the reductions) covers its subclasses. The rules for indexing and
convolution-like primitives are in :mod:`framework.autograd.batching_index`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ops._utils import normalize_axes, normalize_axis
from ..ops.activations import _Activation
from ..ops.batch_matmul import BatchMatMul
from ..ops.elementwise import Abs, Add, Cast, Neg, Select, _Binary, _Unary
from ..ops.linalg_decompose import Cholesky, Geqrf, Qr, SingularValues, Svd
from ..ops.linalg_solve import (
    CholeskyInverse,
    CholeskySolve,
    Det,
    Logdet,
    MatrixInverse,
    MatrixSolve,
    Pinv,
    Slogdet,
)
from ..ops.math_binary import Atan2, _Bitwise, _Logical
from ..ops.math_unary import Invert, _FloatUnary, _Numeric, _Predicate
from ..ops.nn_ops import BiasAdd, MatMul, OneHot, _AlongAxis
from ..ops.reduce import Argmax, _Reduce
from ..ops.scan import CumSum
from ..ops.shape_ops import (
    BroadcastTo,
    Concat,
    ExpandDims,
    Load,
    OnesLike,
    Pad,
    Reshape,
    Slice,
    Squeeze,
    StopGradient,
    Transpose,
    ZerosLike,
)
from ..ops.sorting import Sort, TopK
from ..ops.special_math import _Special
from ..primitive import Primitive


class NotBatchable(Exception):
    """The batching transform cannot handle this call; vmap runs it per example."""


@dataclass
class Call:
    """One node to batch (see the module docstring)."""

    prim: Any
    args: list[Any]
    batched: tuple[bool, ...]
    node: Any  # the per-example IR node
    size: int

    def in_shape(self, i: int) -> tuple[int, ...]:
        return self.node.inputs[i].shape

    def out_shape(self, j: int = 0) -> tuple[int, ...]:
        return self.node.outputs[j].shape


@dataclass(frozen=True)
class Rule:
    fn: Callable[[Call], Any]
    when: Callable[[tuple[bool, ...]], bool] | None = None


RULES: dict[type, Rule] = {}


def register(*classes: type, when: Callable[[tuple[bool, ...]], bool] | None = None) -> Callable:
    """Decorator: ``fn`` is the batching rule of ``classes`` (and their subclasses)."""

    def add(fn: Callable[[Call], Any]) -> Callable[[Call], Any]:
        for cls in classes:
            RULES[cls] = Rule(fn, when)
        return fn

    return add


def rule_for(prim: Any) -> Rule | None:
    """The rule of ``prim``'s class or its nearest registered ancestor, or None."""
    for cls in type(prim).__mro__:
        if cls is Primitive:
            return None
        rule = RULES.get(cls)
        if rule is not None:
            return rule
    return None


# -- helpers shared by the rules -------------------------------------------------------------
def emit(prim: Any, *args: Any) -> Any:
    """Apply ``prim`` to ``args`` in the current mode (bypassing its argument-parsing
    ``__call__``: ``prim`` already holds resolved attributes)."""
    return Primitive.__call__(prim, *args)


def variant(prim: Any, **changes: Any) -> Any:
    """A copy of ``prim`` with some attributes changed."""
    new = copy.copy(prim)
    new.attrs = {**prim.attrs, **changes}
    new.__dict__.update(changes)
    return new


def lift(x: Any, rank: int) -> Any:
    """Batched ``x`` (batch first) with unit axes after the batch axis so that its
    per-example rank is ``rank`` (right-aligned broadcasting then keeps the batch apart)."""
    per = len(x.shape) - 1
    if per >= rank:
        return x
    dims = tuple(x.shape)
    return emit(Reshape(dims[:1] + (1,) * (rank - per) + dims[1:]), x)


def materialize(x: Any, batched: bool, size: int) -> Any:
    """``x`` batched: an unbatched one broadcast along a new leading axis."""
    if batched:
        return x
    dims = tuple(x.shape)
    return emit(BroadcastTo((size,) + dims), emit(Reshape((1,) + dims), x))


def fold(x: Any) -> Any:
    """``(B, N, ...) -> (B*N, ...)``: the batch folded into the leading axis."""
    dims = tuple(x.shape)
    return emit(Reshape((dims[0] * dims[1],) + dims[2:]), x)


def unfold(x: Any, size: int) -> Any:
    """``(B*N, ...) -> (B, N, ...)``."""
    dims = tuple(x.shape)
    return emit(Reshape((size, dims[0] // size) + dims[1:]), x)


def shifted(axis: int, rank: int) -> int:
    """A per-example axis (of a tensor of per-example ``rank``) on the batched tensor."""
    return normalize_axis(axis, rank) + 1


# -- elementwise -----------------------------------------------------------------------------
@register(_Binary, Select)
def _broadcasting(call: Call) -> Any:
    rank = max(len(call.in_shape(i)) for i in range(len(call.args)))
    args = [lift(a, rank) if b else a for a, b in zip(call.args, call.batched)]
    return emit(call.prim, *args)


@register(_Unary, _Activation, Neg, Abs,
          Cast, StopGradient, Load, ZerosLike, OnesLike)
def _unary(call: Call) -> Any:
    return emit(call.prim, *call.args)


# -- reductions and ops along one axis -------------------------------------------------------
@register(_Reduce)
def _reduction(call: Call) -> Any:
    axes = normalize_axes(call.prim.axis, len(call.in_shape(0)))
    if not axes:  # a reduction over no axis (of a 0-d example): () would mean all axes
        raise NotBatchable(f"{call.prim.name} over no axis")
    return emit(variant(call.prim, axis=tuple(a + 1 for a in axes)), call.args[0])


@register(Argmax, _AlongAxis, CumSum, Sort, TopK)
def _along_axis(call: Call) -> Any:
    prim = variant(call.prim, axis=shifted(call.prim.axis, len(call.in_shape(0))))
    return emit(prim, call.args[0])


@register(OneHot)
def _one_hot(call: Call) -> Any:
    prim = variant(call.prim, axis=shifted(call.prim.axis, len(call.out_shape())))
    return emit(prim, call.args[0])


# -- shapes ----------------------------------------------------------------------------------
@register(Reshape)
def _reshape(call: Call) -> Any:
    return emit(Reshape((call.size,) + call.out_shape()), call.args[0])


@register(Transpose)
def _transpose(call: Call) -> Any:
    return emit(Transpose((0,) + tuple(p + 1 for p in call.prim.perm)), call.args[0])


@register(BroadcastTo)
def _broadcast_to(call: Call) -> Any:
    out = call.out_shape()
    return emit(BroadcastTo((call.size,) + out), lift(call.args[0], len(out)))


@register(ExpandDims)
def _expand_dims(call: Call) -> Any:
    return emit(ExpandDims(shifted(call.prim.axis, len(call.out_shape()))), call.args[0])


@register(Squeeze)
def _squeeze(call: Call) -> Any:
    axes = call.prim._axes(call.in_shape(0))  # explicit: () would also take a batch of 1
    return emit(Squeeze(tuple(a + 1 for a in axes)), call.args[0])


@register(Concat)
def _concat(call: Call) -> Any:
    args = [materialize(a, b, call.size) for a, b in zip(call.args, call.batched)]
    return emit(Concat(shifted(call.prim.axis, len(call.in_shape(0)))), *args)


@register(Slice)
def _slice(call: Call) -> Any:
    prim = Slice((0,) + tuple(call.prim.begin), (call.size,) + tuple(call.prim.size))
    return emit(prim, call.args[0])


@register(Pad)
def _pad(call: Call) -> Any:
    return emit(Pad(((0, 0),) + tuple(call.prim.paddings)), call.args[0])


# -- products --------------------------------------------------------------------------------
@register(MatMul)
def _matmul(call: Call) -> Any:
    a, b = call.args
    prim = call.prim
    if call.batched == (True, False) and not prim.transpose_a:
        # (B, m, k) @ (k, n): one MatMul on (B*m, k), the batch folded into the rows
        rows = emit(MatMul(False, prim.transpose_b), fold(a), b)
        return unfold(rows, call.size)
    return emit(BatchMatMul(prim.transpose_a, prim.transpose_b), a, b)


@register(BatchMatMul)
def _batch_matmul(call: Call) -> Any:
    rank = max(len(call.in_shape(0)), len(call.in_shape(1)))
    args = [lift(a, rank) if b else a for a, b in zip(call.args, call.batched)]
    return emit(call.prim, *args)


@register(BiasAdd)
def _bias_add(call: Call) -> Any:
    x, bias = call.args
    if not call.batched[1]:  # the batch folded into N
        return unfold(emit(call.prim, fold(x), bias), call.size)
    rank = len(call.in_shape(0))
    per_channel = emit(Reshape((call.size, 1, bias.shape[1]) + (1,) * (rank - 2)), bias)
    return emit(Add(), lift(x, rank) if call.batched[0] else x, per_channel)


register(_FloatUnary, _Numeric, _Predicate, Invert)(_unary)
# special functions (elementwise) and the matrix ops that take leading batch axes as they are
register(_Special, MatrixInverse, Det, Slogdet, Logdet, CholeskyInverse, Pinv, Cholesky, Qr, Svd,
         SingularValues, Geqrf)(_unary)
register(MatrixSolve, CholeskySolve, when=all)(_unary)
register(_Logical, _Bitwise, Atan2)(_broadcasting)


def count_rules() -> int:
    """How many registered primitive classes (families counted as their concrete members)
    have a rule."""
    return len(covered_classes())


def covered_classes() -> list[type]:
    """The concrete primitive classes of the registry that a rule covers."""
    from . import batching_index  # noqa: F401  (its rules register on import)

    return [cls for cls in Primitive.registry if rule_for(_Probe.of(cls)) is not None]


class _Probe:
    """Stands for an instance of a class in :func:`rule_for` (which reads only the type)."""

    @staticmethod
    def of(cls: type) -> Any:
        return cls.__new__(cls)


__all__ = ["Call", "NotBatchable", "RULES", "count_rules", "emit", "fold", "lift",
           "materialize", "register", "rule_for", "unfold", "variant"]
