"""Math primitive classes (``P.Addcdiv()``, ``P.CumProd(exclusive, reverse)`` ...) over the
functional ops we have: attributes in the constructor, tensors in the call, as
MindSpore 2.10's ``mindspore.ops.operations`` spell them. No class holds a rule of its own:
graph, gradient and lowering are those of the functional ops each one applies.

Contracts (``P.X(attrs)(tensors)``; MindSpore's argument order):

- ``Addcdiv()(input, x1, x2, value)`` / ``Addcmul``: ``input + value * x1 / x2`` (``* x2``);
- ``Fmax()(x, y)``, ``Heaviside()(x, values)``, ``Xdivy()(x, y)``, ``Ger()(x1, x2)``: as
  ``ops.fmax`` ... ``ops.ger``;
- ``IsClose(rtol, atol, equal_nan)(x, y)``; ``Logit(eps=-1.0)(x)`` (a negative ``eps``:
  no clamping); ``Cross(dim=-65530)(x, y)`` (the default: the first axis of length 3);
- ``Mod()(x, y)``: the remainder with the sign of ``x`` (C's ``fmod``); ``Inv()(x)``: ``1 / x``;
  ``MulNoNan()(x, y)``: ``x * y``, 0 where ``y`` is 0 (even where ``x`` is inf or nan), its
  gradient to ``y`` ``x`` there too;
- ``MatrixPower(n)(x)``, ``Pdist(p)(x)``;
- ``CumProd(exclusive, reverse)(x, axis)``, ``CumulativeLogsumexp(exclusive, reverse)(x,
  axis)``: the running product (log-sum-exp), from the end with ``reverse``, shifted by one
  (a leading 1, resp. the dtype's lowest finite value) with ``exclusive``; ``axis`` an int
  or a 0-d constant tensor;
- ``Cummin(axis)(x)``: ``(values, indices)``;
- ``CountNonZero(dims=None)(x)`` (int32), ``ReduceStd(axis=[], unbiased=True,
  keep_dims=False)(x)``: ``(std, mean)`` (``axis`` empty: all axes);
- ``EqualCount()(x, y)``: the number of equal entries, shape ``(1,)``, ``x``'s dtype;
  ``SquareSumAll()(x, y)``: ``(sum(x**2), sum(y**2))``; ``L2Loss()(x)``: ``sum(x**2) / 2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _addcdiv(input_data: Any, x1: Any, x2: Any, value: Any) -> Any:
    return ops.addcdiv(input_data, x1, x2, value)


def _addcmul(input_data: Any, x1: Any, x2: Any, value: Any) -> Any:
    return ops.addcmul(input_data, x1, x2, value)


def _logit(x: Any, *, eps: float) -> Any:
    return ops.logit(x, None if eps < 0 else eps)


def _cross(x: Any, y: Any, *, dim: int) -> Any:
    return ops.cross(x, y, None if dim == -65530 else dim)


def _mod(x: Any, y: Any) -> Any:
    return ops.fmod(x, y)


def _mul_no_nan(x: Any, y: Any) -> Any:
    zero = ops.equal(y, 0)
    product = ops.select(zero, ops.zeros_like(x), x) * y
    # d/dy is x also where y is 0 (MindSpore's rule): a term whose value is 0 carries it
    finite_x = ops.select(ops.logical_and(zero, ops.isfinite(x)), x, ops.zeros_like(x))
    return product + (y - ops.stop_gradient(y)) * ops.stop_gradient(finite_x)


def _matrix_power(x: Any, *, n: int) -> Any:
    return ops.matrix_power(x, n)


def _pdist(x: Any, *, p: float) -> Any:
    return ops.pdist(x, p)


def _int_axis(who: str, axis: Any) -> int:
    if hasattr(axis, "asnumpy"):
        axis = axis.asnumpy()
    try:
        return int(axis)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: axis must be an int or a 0-d tensor, got {axis!r}") from None


def _scan(who: str, x: Any, axis: Any, exclusive: bool, reverse: bool, fn: Any, first: float) -> Any:
    """``fn(x, axis)`` from the end (``reverse``), shifted by one with ``first`` (``exclusive``)."""
    axis = _int_axis(who, axis) % max(len(x.shape), 1)
    data = ops.flip(x, (axis,)) if reverse else x
    out = fn(data, axis)
    if exclusive and x.shape[axis]:
        lead = ops.narrow(out, axis, 0, 1)
        head = ops.fill(lead.dtype, tuple(lead.shape), first)
        out = ops.concat((head, ops.narrow(out, axis, 0, x.shape[axis] - 1)), axis)
    return ops.flip(out, (axis,)) if reverse else out


def _cumprod(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> Any:
    return _scan("CumProd", x, axis, exclusive, reverse, ops.cumprod, 1.0)


def _cumulative_logsumexp(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> Any:
    lowest = float(np.finfo(np.dtype(x.dtype.name)).min)  # MindSpore's exclusive head, not -inf
    return _scan("CumulativeLogsumexp", x, axis, exclusive, reverse, ops.logcumsumexp, lowest)


def _cummin(x: Any, *, axis: int) -> Any:
    return ops.cummin(x, axis)


def _count_nonzero(x: Any, *, dims: Any) -> Any:
    return ops.count_nonzero(x, () if dims is None else dims)


def _reduce_std(x: Any, *, axis: Any, unbiased: bool, keep_dims: bool) -> Any:
    axes = tuple(axis) if isinstance(axis, list | tuple) else (axis,)
    std, mean = ops.std_mean(x, axes or None, int(bool(unbiased)), keep_dims)
    return std, mean


def _equal_count(x: Any, y: Any) -> Any:
    return ops.reshape(ops.cast(ops.equal(x, y), x.dtype).sum(), (1,))


def _square_sum_all(x: Any, y: Any) -> Any:
    return (x * x).sum(), (y * y).sum()


def _l2_loss(x: Any) -> Any:
    return (x * x).sum() / 2


def _simple(name: str, fn_name: str) -> type:
    def apply(*tensors: Any) -> Any:
        return getattr(ops, fn_name)(*tensors)

    apply.__name__ = f"ops.{fn_name}"
    return class_form(name, apply)


Addcdiv = class_form("Addcdiv", _addcdiv)
Addcmul = class_form("Addcmul", _addcmul)
Fmax = _simple("Fmax", "fmax")
Heaviside = _simple("Heaviside", "heaviside")
Xdivy = _simple("Xdivy", "xdivy")
Ger = _simple("Ger", "ger")
Inv = _simple("Inv", "reciprocal")
IsClose = class_form("IsClose", lambda x, y, **a: ops.isclose(x, y, **a),
                     rtol=1e-05, atol=1e-08, equal_nan=False)
Logit = class_form("Logit", _logit, eps=-1.0)
Cross = class_form("Cross", _cross, dim=-65530)
Mod = class_form("Mod", _mod)
MulNoNan = class_form("MulNoNan", _mul_no_nan)
MatrixPower = class_form("MatrixPower", _matrix_power, n=REQUIRED)
Pdist = class_form("Pdist", _pdist, p=2.0)
CumProd = class_form("CumProd", _cumprod, exclusive=False, reverse=False)
CumulativeLogsumexp = class_form("CumulativeLogsumexp", _cumulative_logsumexp, exclusive=False,
                                 reverse=False)
Cummin = class_form("Cummin", _cummin, axis=REQUIRED)
CountNonZero = class_form("CountNonZero", _count_nonzero, dims=None)
ReduceStd = class_form("ReduceStd", _reduce_std, axis=[], unbiased=True, keep_dims=False)
EqualCount = class_form("EqualCount", _equal_count)
SquareSumAll = class_form("SquareSumAll", _square_sum_all)
L2Loss = class_form("L2Loss", _l2_loss)

__all__ = ["Addcdiv", "Addcmul", "CountNonZero", "Cross", "CumProd", "Cummin", "CumulativeLogsumexp",
           "EqualCount", "Fmax", "Ger", "Heaviside", "Inv", "IsClose", "L2Loss", "Logit",
           "MatrixPower", "Mod", "MulNoNan", "Pdist", "ReduceStd", "SquareSumAll", "Xdivy"]
