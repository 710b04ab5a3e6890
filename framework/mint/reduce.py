"""``mint``'s reductions, scans and sorts (``dim``/``keepdim`` keywords) on ``framework.ops``.

Contracts, as MindSpore 2.10's ``mint``:

- ``sum``/``prod``/``cumsum``/``cumprod`` of integers and bools give int64 unless
  ``dtype`` is given; ``mean`` keeps the input dtype; ``nansum`` keeps an integer
  input's dtype (bools give int64);
- ``dim=None`` (or ``()`` for ``amax``/``amin``) reduces every axis;
- ``max``/``min``: ``(input)`` -> the scalar extreme; ``(input, dim, keepdim=False)`` ->
  ``(values, indices)`` (int64); ``(input, other)`` -> ``maximum``/``minimum``;
- ``argmax``/``argmin``/``sort``/``topk``/``argsort``/``cummax``/``cummin`` give int64
  indices;
- ``std``/``var`` take ``correction`` (1: Bessel's correction).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as ops
from ..ops import reduce as reduce_ops
from ..ops._utils import argument_error
from ..ops.host_split import host_computed
from ._util import as_tensor, concrete, dims, one_dim, reduce_dtype


def _i64(x: Any) -> Any:
    return ops.cast(x, mstype.int64)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001, A002
    x = reduce_dtype(input, dtype)
    return ops.sum(x, dims(dim, x.ndim), keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = reduce_dtype(input, dtype) if dtype is not None or input.dtype == mstype.bool_ else input
    kept = ops.where(ops.isnan(x), ops.zeros_like(x), x) if ops.is_floating_point(x) else x
    return reduce_ops.reduce_sum(kept, dims(dim, x.ndim), keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = input if dtype is None else ops.cast(input, dtype)
    return ops.mean(x, dims(dim, x.ndim), keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = reduce_dtype(input, dtype)
    axes = dims(dim, x.ndim)
    if axes is None:
        return ops.prod(ops.reshape(x, (-1,)), 0, False) if not keepdim else \
            ops.reshape(ops.prod(ops.reshape(x, (-1,)), 0, False), (1,) * x.ndim)
    return ops.prod(x, axes[0], keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001, A002
    return ops.all(ops.cast(input, mstype.bool_), dims(dim, input.ndim), keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001, A002
    return ops.any(ops.cast(input, mstype.bool_), dims(dim, input.ndim), keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002
    return ops.amax(input, dims(dim, input.ndim), keepdim)


def amin(input, dim=(), keepdim=False):  # noqa: A002
    return ops.amin(input, dims(dim, input.ndim), keepdim)


def _extreme(op: str, input: Any, dim: Any, keepdim: bool) -> Any:  # noqa: A002
    reduce_all, pick = (ops.amax, ops.argmax) if op == "max" else (ops.amin, ops.argmin)
    if dim is None:
        return reduce_all(input, None, False)
    if isinstance(dim, Tensor):  # mint.max(input, other)
        return (ops.maximum if op == "max" else ops.minimum)(input, dim)
    axis = one_dim(op, dim, input.ndim)
    values = reduce_all(input, axis, keepdim)
    return values, _i64(pick(input, axis, keepdim))


def max(input, dim=None, keepdim=False):  # noqa: A001, A002
    """``max(input)``, ``max(input, dim, keepdim=False)`` -> (values, indices), or
    ``max(input, other)`` (element-wise)."""
    return _extreme("max", input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001, A002
    """``min(input)``, ``min(input, dim, keepdim=False)`` -> (values, indices), or
    ``min(input, other)`` (element-wise)."""
    return _extreme("min", input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    if dim is None:
        return _i64(ops.argmax(ops.reshape(input, (-1,)), 0, False))
    return _i64(ops.argmax(input, one_dim("argmax", dim, input.ndim), keepdim))


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    if dim is None:
        return _i64(ops.argmin(ops.reshape(input, (-1,)), 0, False))
    return _i64(ops.argmin(input, one_dim("argmin", dim, input.ndim), keepdim))


def cumsum(input, dim, dtype=None):  # noqa: A002
    x = reduce_dtype(input, dtype)
    return ops.cumsum(x, one_dim("cumsum", dim, x.ndim))


def cumprod(input, dim, dtype=None):  # noqa: A002
    x = reduce_dtype(input, dtype)
    return ops.cumprod(x, one_dim("cumprod", dim, x.ndim))


def cummax(input, dim):  # noqa: A002
    values, indices = ops.cummax(input, one_dim("cummax", dim, input.ndim))
    return values, _i64(indices)


def cummin(input, dim):  # noqa: A002
    values, indices = ops.cummin(input, one_dim("cummin", dim, input.ndim))
    return values, _i64(indices)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    return ops.logsumexp(input, dims(dim, input.ndim), keepdim)


def _moments(input: Any, dim: Any, correction: Any, keepdim: bool) -> tuple[Any, Any]:  # noqa: A002
    axes = dims(dim, input.ndim)
    avg = ops.mean(input, axes, True)
    count = int(np.prod([input.shape[a] for a in (axes or range(input.ndim))]))
    var_ = ops.sum(ops.square(input - avg), axes, keepdim) / float(builtins.max(count - correction, 0))
    return var_, avg if keepdim else ops.mean(input, axes, False)


def var(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    return _moments(input, dim, correction, keepdim)[0]


def std(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    return ops.sqrt(var(input, dim, correction=correction, keepdim=keepdim))


def var_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    return _moments(input, dim, correction, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    v, m = _moments(input, dim, correction, keepdim)
    return ops.sqrt(v), m


def sort(input, *, dim=-1, descending=False, stable=False):  # noqa: A002
    values, indices = ops.sort(input, one_dim("sort", dim, input.ndim), descending)
    return values, _i64(indices)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    return sort(input, dim=dim, descending=descending, stable=stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    values, indices = ops.topk(input, k, one_dim("topk", dim, input.ndim), largest, sorted)
    return values, _i64(indices)


def count_nonzero(input, dim=None):  # noqa: A002
    return sum(ops.ne(input, ops.zeros_like(input)), dim)


def median(input, dim=None, keepdim=False):  # noqa: A002
    """The lower median (as PyTorch): the whole tensor's, or ``(values, indices)`` along ``dim``."""
    if dim is None:
        flat = ops.reshape(input, (-1,))
        return sort(flat)[0][(flat.shape[0] - 1) // 2]
    axis = one_dim("median", dim, input.ndim)
    values, indices = sort(input, dim=axis)
    middle = (input.shape[axis] - 1) // 2
    pick = (slice(None),) * axis + (slice(middle, middle + 1),)
    values, indices = values[pick], indices[pick]
    if not keepdim:
        values, indices = ops.squeeze(values, axis), ops.squeeze(indices, axis)
    return values, indices


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The vector p-norm over ``dim`` (``'fro'``: 2-norm of all of ``dim``)."""
    x = input if dtype is None else ops.cast(input, dtype)
    order = 2 if p in ("fro", None) else p
    return vector_norm(x, order, dim, keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    x = x if dtype is None else ops.cast(x, dtype)
    axes = dims(dim, x.ndim)
    magnitude = ops.abs(x)
    if ord == float("inf"):
        return ops.amax(magnitude, axes, keepdim)
    if ord == -float("inf"):
        return ops.amin(magnitude, axes, keepdim)
    if ord == 0:
        return ops.sum(ops.cast(ops.ne(x, 0), x.dtype), axes, keepdim)
    if ord == 1:
        return ops.sum(magnitude, axes, keepdim)
    if ord == 2:
        return ops.sqrt(ops.sum(ops.square(x), axes, keepdim))
    return ops.pow(ops.sum(ops.pow(magnitude, float(ord)), axes, keepdim), 1.0 / ord)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion points of ``values`` in the last axis of ``sorted_sequence`` (int64)."""
    if sorter is not None:
        raise argument_error("searchsorted", ValueError("sorter is not supported"))
    right = right or side == "right"
    values = as_tensor(values, sorted_sequence)
    seq = ops.expand_dims(sorted_sequence, -2) if sorted_sequence.ndim > 1 else sorted_sequence
    below = ops.le(seq, ops.expand_dims(values, -1)) if right else \
        ops.less(seq, ops.expand_dims(values, -1))
    count = ops.sum(ops.cast(below, mstype.int32), -1, False)
    return ops.cast(count, mstype.int32 if out_int32 else mstype.int64)


def _unique_runs(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    starts = np.concatenate([[True], a[1:] != a[:-1]]) if a.size else np.zeros(0, bool)
    return np.flatnonzero(starts), np.cumsum(starts) - 1


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The flattened input with runs of equal values collapsed (computed on the host: graph
    mode splits the compiled function here)."""
    if dim is not None:
        raise argument_error("unique_consecutive", ValueError("only dim=None is supported"))

    def runs(a: np.ndarray) -> tuple[np.ndarray, ...]:
        flat = a.reshape(-1)
        starts, inverse = _unique_runs(flat)
        return (flat[starts], inverse.reshape(a.shape).astype(np.int64),
                np.diff(np.append(starts, flat.size)).astype(np.int64))

    values, inverse, counts = host_computed("unique_consecutive", runs, input)
    out = [values] + ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)



def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """The ``k``-th smallest value along ``dim`` and its int64 index."""
    axis = one_dim("kthvalue", dim, input.ndim)
    values, indices = sort(input, dim=axis)
    pick = (slice(None),) * axis + (slice(k - 1, k),)
    values, indices = values[pick], indices[pick]
    if not keepdim:
        values, indices = ops.squeeze(values, axis), ops.squeeze(indices, axis)
    return values, indices


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values, sorted (computed on the host: the count depends on the values,
    so graph mode splits the compiled function here)."""
    if dim is not None:
        raise argument_error("unique", ValueError("only dim=None is supported"))

    def distinct(a: np.ndarray) -> tuple[np.ndarray, ...]:
        values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
        return values, inverse.reshape(a.shape).astype(np.int64), counts.astype(np.int64)

    values, inverse, counts = host_computed("unique", distinct, input)
    out = [values] + ([inverse] if return_inverse else []) + ([counts] if return_counts else [])
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """Counts of each non-negative int value (PyNative only)."""
    arrays = concrete("bincount", input, *(() if weights is None else (weights,)),
                      shape_from_values=True)
    counts = np.bincount(arrays[0].reshape(-1), None if weights is None else arrays[1].reshape(-1),
                         minlength)
    return Tensor(counts if weights is not None else counts.astype(np.int64))


def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both
    are 0), in the input's dtype (PyNative only)."""
    (a,) = concrete("histc", input)
    low, high = (float(a.min()), float(a.max())) if min == max == 0 else (min, max)
    counts, _ = np.histogram(a, bins, (low, high))
    return Tensor(counts.astype(a.dtype))


__all__ = sorted(n for n, v in list(globals().items())
                 if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == __name__)


# mint.softmax and mint.nn.functional's softmax/log_softmax live here, so that mint's functions
# import without mint.nn's Cells (the P.* classes are written with these modules)
def _softmax_input(input, dtype):  # noqa: A002
    return input if dtype is None else ops.cast(input, dtype)


def softmax(input, dim=None, dtype=None):  # noqa: A002
    return ops.softmax(_softmax_input(input, dtype), -1 if dim is None else dim)


def log_softmax(input, dim=None, *, dtype=None):  # noqa: A002
    return ops.log_softmax(_softmax_input(input, dtype), -1 if dim is None else dim)
