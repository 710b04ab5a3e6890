"""Reductions built from :mod:`.reduce`'s primitives plus ``ReduceProd``: amax/amin, min/max
with indices, argmin, prod, var/std, logsumexp, norm, count_nonzero.

Contracts:

- ``axis``/``dim`` ``None`` (or ``()``) reduces every axis; ints and tuples as NumPy;
- ``amin``/``argmin``/``ReduceMin`` go through ``-x`` (floats and signed integers; the
  minimum of an integer dtype has no negation and is refused for unsigned dtypes);
  gradients of max/min share ties equally (``ReduceMax``'s rule);
- ``ReduceProd``: NumPy's product in the input's dtype; its gradient is the product of
  the other entries, exact where entries are zero (none zero: ``out / x``; one zero: the
  product of the rest at that entry; more: 0);
- ``var``/``std(input, axis=None, ddof=0, keepdims=False)``: ``ddof`` an int (or a bool,
  True meaning 1);
- ``logsumexp``: ``m + log(sum(exp(x - m)))`` with ``m`` the (gradient-stopped) max;
- ``norm(A, ord=None, dim=None, keepdim=False)``: vector norms (``ord`` None/2, a number,
  ``inf``, ``-inf``, 0) over ``dim`` (None: all entries), and ``'fro'``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ._class_form import class_form
from ._utils import normalize_axes
from .elementwise import abs, add, cast, div, equal, exp, log, mul, neg, not_equal, pow, select, sqrt, sub
from .reduce import Argmax, _Reduce, argmax, reduce_max, reduce_mean, reduce_sum
from .shape_ops import broadcast_to, expand_dims, reshape, squeeze, stop_gradient


def _axes(x: Any, axis: Any) -> tuple[int, ...]:
    return normalize_axes(() if axis is None else axis, len(x.shape))


def _negatable(op: str, x: Any) -> None:
    if mstype.kind(x.dtype.np) not in "fi":
        raise TypeError(f"{op}: needs a float or signed integer input, got {x.dtype}")


class ReduceProd(_Reduce):
    def kernel(self, x):
        return np.prod(x, axis=self.axis, keepdims=self.keep_dims, dtype=x.dtype)

    def bprop(self, x, *, out, dout, needs):
        shape = self._grad_shape(x.shape)
        is_zero = equal(x, 0)
        zeros = reduce_sum(cast(is_zero, x.dtype), self.axis, True)
        rest = ReduceProd(True)(select(is_zero, 1, x), self.axis)
        none_zero = div(reshape(out, shape), select(is_zero, 1, x))
        one_zero = select(is_zero, rest, 0)
        others = select(equal(zeros, 0), none_zero, select(equal(zeros, 1), one_zero, 0))
        return (mul(broadcast_to(reshape(dout, shape), x.shape), others),)


def amax(input, axis=None, keepdims=False):  # noqa: A002  (MindSpore's parameter names)
    return reduce_max(input, _axes(input, axis), keepdims)


def amin(input, axis=None, keepdims=False):  # noqa: A002
    _negatable("amin", input)
    return neg(reduce_max(neg(input), _axes(input, axis), keepdims))


def reduce_min(x, axis=(), keep_dims=False):
    return amin(x, axis, keep_dims)


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    _negatable("argmin", input)
    return argmax(neg(input), axis, keepdims, mstype.int32)  # int32, as MindSpore's argmin


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002
    x = input if dtype is None else cast(input, dtype)
    return ReduceProd(keep_dims)(x, _axes(x, axis))


def _arg(op: str, x: Any, axis: int, keepdims: bool) -> Any:
    """Index of the max/min along ``axis`` as int64 (MindSpore's dtype for the index of
    ``ops.max``/``ops.min`` and of the ``Arg*WithValue`` classes)."""
    if op == "min":
        _negatable("min", x)
    out = Argmax(axis, mstype.int64)(x if op == "max" else neg(x))
    return expand_dims(out, axis) if keepdims else out


def _with_indices(op: str, input: Any, axis: Any, keepdims: bool, initial: Any, where: Any) -> Any:  # noqa: A002
    if axis is None or initial is not None or where is not None:
        raise ValueError(f"{op}: give an int axis (initial, where and axis=None are not supported; "
                         f"amax/amin reduce every axis)")
    values = (amax if op == "max" else amin)(input, axis, keepdims)
    return values, _arg(op, input, axis, keepdims)


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001, A002
    """``ops.max(input, axis)``: ``(values, int64 indices)`` along ``axis``."""
    return _with_indices("max", input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001, A002
    return _with_indices("min", input, axis, keepdims, initial, where)


def _ddof(op: str, ddof: Any) -> int:
    if isinstance(ddof, bool):
        return int(ddof)
    if not isinstance(ddof, int | np.integer):
        raise TypeError(f"{op}: ddof must be an int or a bool, got {type(ddof).__name__}")
    return int(ddof)


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    axes = _axes(input, axis)
    count = math.prod(input.shape[a] for a in axes)
    centred = sub(input, reduce_mean(input, axes, True))
    total = reduce_sum(mul(centred, centred), axes, keepdims)
    return div(total, float(count - _ddof("var", ddof)))


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    return sqrt(var(input, axis, ddof, keepdims))


def logsumexp(input, axis, keep_dims=False):  # noqa: A002
    axes = _axes(input, axis)
    m = stop_gradient(reduce_max(input, axes, True))
    m = select(equal(abs(m), float("inf")), 0.0, m)
    out = add(log(reduce_sum(exp(sub(input, m)), axes, True)), m)
    return out if keep_dims else squeeze(out, axes)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803
    x = A if dtype is None else cast(A, dtype)
    axes = _axes(x, dim)
    if ord in (None, 2, 2.0, "fro"):
        return sqrt(reduce_sum(mul(x, x), axes, keepdim))
    if isinstance(ord, str):
        raise ValueError(f"norm: ord {ord!r} is not supported (vector norms and 'fro' only)")
    if ord == float("inf"):
        return reduce_max(abs(x), axes, keepdim)
    if ord == float("-inf"):
        return amin(abs(x), axes, keepdim)
    if ord == 0:
        return reduce_sum(cast(not_equal(x, 0), x.dtype), axes, keepdim)
    if ord == 1:
        return reduce_sum(abs(x), axes, keepdim)
    return pow(reduce_sum(pow(abs(x), float(ord)), axes, keepdim), 1.0 / float(ord))


def count_nonzero(input, axis=(), keep_dims=False, dtype=mstype.int32):  # noqa: A002
    return cast(reduce_sum(cast(not_equal(input, 0), mstype.int64), _axes(input, axis),
                           keep_dims), dtype)


def _reduce_min_call(self: Any, x: Any, axis: Any = ()) -> Any:
    return amin(x, axis, self.keep_dims)


ReduceMin = type("ReduceMin", (), {
    "__doc__": "``ReduceMin(keep_dims=False)(x, axis=())``: ``-ReduceMax(-x)``.",
    "__init__": lambda self, keep_dims=False: setattr(self, "keep_dims", bool(keep_dims)),
    "__call__": _reduce_min_call})


def _argmin_call(self: Any, x: Any) -> Any:
    _negatable("Argmin", x)
    return Argmax(self.axis, self.output_type)(neg(x))


Argmin = type("Argmin", (), {
    "__doc__": "``Argmin(axis=-1, output_type=int32)(x)``: ``Argmax`` of ``-x``.",
    "__init__": lambda self, axis=-1, output_type=mstype.int32: self.__dict__.update(
        axis=axis, output_type=output_type),
    "__call__": _argmin_call})


def _arg_with_value(op: str):
    def run(x, axis=0, keep_dims=False):
        values = (amax if op == "max" else amin)(x, axis, keep_dims)
        return _arg(op, x, axis, keep_dims), values

    run.__name__ = f"arg_{op}_with_value"
    return run


ArgMaxWithValue = class_form("ArgMaxWithValue", _arg_with_value("max"), axis=0, keep_dims=False)
ArgMinWithValue = class_form("ArgMinWithValue", _arg_with_value("min"), axis=0, keep_dims=False)
