"""MindSpore's ``coo_*`` and ``csr_*`` functions on :mod:`.sparse_tensor`'s tensors.

Contracts (MindSpore 2.10's documented behaviour):

- ``coo_<op>(x)`` / ``csr_<op>(x)`` for the element-wise ops (abs ... tanh; ``inv`` is the
  reciprocal): the dense op on ``values``, the structure kept (so ``coo_exp`` of a COO
  tensor is not the dense ``exp``: the implicit zeros stay zeros). Predicates give bool
  values.
- Structural ones are compositions of dense primitives: ``coo2csr(row_indices, height)``
  (the row pointer, int32), ``csr2coo(indptr, nnz)`` (the row of each value, int32),
  ``csr_to_coo``, ``csr_to_dense``, ``csr_mul(x, y)``/``csr_div(x, y)`` (``x``'s values times
  / divided by the dense ``y``, broadcast to ``x.shape``, at their positions),
  ``csr_mv(csr_tensor, dense)`` (a dense ``(n, 1)`` column), ``csr_gather(indptr, indices,
  dense, sparse_shape)`` (the dense values at the CSR positions), ``csr_reduce_sum(x, axis)``
  (``axis`` 1: each row's sum, ``(m, 1)``), ``csr_softmax(logits, dtype)`` (each row's
  softmax over its stored values), ``coo_concat(sp_input, concat_dim=0)`` (entries in
  row-major order of the result).
- ``coo_add(x1, x2, thresh)``, ``csr_add(a, b, alpha, beta)`` and ``COOTensor.coalesce``
  give as many entries as the union of positions holds, a number known only from the
  indices' values: they read the indices on the host, so in graph mode the function runs
  interpreted (JIT Fallback), as MindSpore 2.x runs such code; gradients reach the values.
  ``coo_add`` drops a position both operands hold when its sum's magnitude is below
  ``thresh`` (MindSpore's CPU kernel keeps the others whatever their magnitude);
  ``coalesce`` sums repeated positions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtype as mstype
from ._utils import argument_error
from .composed_activations import relu6, softsign
from .creation import zeros
from .elementwise import abs as _abs
from .elementwise import cast, cos, equal, exp, log, neg, relu, select, sigmoid, sin, sqrt, square, tanh
from .math_unary import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    cosh,
    expm1,
    floor,
    isfinite,
    isinf,
    isnan,
    log1p,
    reciprocal,
    round,
    sinh,
    tan,
)
from .reduce import reduce_max
from .scatter_gather import gather, index_add
from .shape_ops import concat, reshape
from .sorting import sort
from .sparse_tensor import COOTensor, CSRTensor, const, flat_index, indptr_of, is_tensor, rows_of

__all__ = ["COOTensor", "CSRTensor"]


def _check(op: str, x: Any, kind: type) -> None:
    if not isinstance(x, kind):
        raise argument_error(op, TypeError(f"expects a {kind.__name__}, got {type(x).__name__}"))


def _on_values(op: Callable[[Any], Any], prefix: str, kind: type, name: str) -> Callable[[Any], Any]:
    def apply(x):
        _check(f"{prefix}_{name}", x, kind)
        return x.with_values(op(x.values))

    apply.__name__ = apply.__qualname__ = f"{prefix}_{name}"
    apply.__doc__ = f"``{name}`` of the stored values of a {kind.__name__} (the structure kept)."
    return apply


_ELEMENTWISE = {
    "abs": _abs, "acos": acos, "acosh": acosh, "asin": asin, "asinh": asinh, "atan": atan,
    "atanh": atanh, "ceil": ceil, "cos": cos, "cosh": cosh, "exp": exp, "expm1": expm1,
    "floor": floor, "inv": reciprocal, "isfinite": isfinite, "isinf": isinf, "isnan": isnan,
    "log": log, "log1p": log1p, "neg": neg, "relu": relu, "relu6": relu6, "round": round,
    "sigmoid": sigmoid, "sin": sin, "sinh": sinh, "softsign": softsign, "sqrt": sqrt,
    "square": square, "tan": tan, "tanh": tanh,
}
for _name, _op in _ELEMENTWISE.items():
    for _prefix, _kind in (("coo", COOTensor), ("csr", CSRTensor)):
        globals()[f"{_prefix}_{_name}"] = _on_values(_op, _prefix, _kind, _name)
        __all__.append(f"{_prefix}_{_name}")


# -- components -------------------------------------------------------------------------
def coo_tensor_get_indices(coo_tensor):
    return coo_tensor.indices


def coo_tensor_get_values(coo_tensor):
    return coo_tensor.values


def coo_tensor_get_dense_shape(coo_tensor):
    return coo_tensor.shape


def csr_tensor_get_indptr(csr_tensor):
    return csr_tensor.indptr


def csr_tensor_get_indices(csr_tensor):
    return csr_tensor.indices


def csr_tensor_get_values(csr_tensor):
    return csr_tensor.values


def csr_tensor_get_dense_shape(csr_tensor):
    return csr_tensor.shape


# -- layouts ----------------------------------------------------------------------------
def coo2csr(row_indices, height):
    """The CSR row pointer (int32, ``height + 1``) of values whose rows (sorted) are given."""
    return indptr_of(row_indices, int(height))


def csr2coo(indptr, nnz):
    """The row (int32) of each of the ``nnz`` values of a CSR row pointer."""
    return rows_of(indptr, int(nnz))


def csr_to_coo(tensor):
    _check("csr_to_coo", tensor, CSRTensor)
    return tensor.to_coo()


def csr_to_dense(csr_tensor):
    _check("csr_to_dense", csr_tensor, CSRTensor)
    return csr_tensor.to_dense()


# -- CSR with dense operands ------------------------------------------------------------
def csr_mul(x, y):
    _check("csr_mul", x, CSRTensor)
    return x * y


def csr_div(x, y):
    _check("csr_div", x, CSRTensor)
    return x / y


def csr_mv(csr_tensor, dense):
    _check("csr_mv", csr_tensor, CSRTensor)
    return csr_tensor.mv(dense)


def csr_reduce_sum(csr_tensor, axis):
    _check("csr_reduce_sum", csr_tensor, CSRTensor)
    return csr_tensor.sum(axis)


def csr_gather(indptr, indices, dense, sparse_shape):
    """The entries of ``dense`` (its first two axes ``sparse_shape``) at the CSR positions."""
    shape = tuple(int(s) for s in sparse_shape)
    if tuple(dense.shape[:2]) != shape:
        raise argument_error("csr_gather", ValueError(
            f"dense's first two axes {tuple(dense.shape[:2])} must be sparse_shape {shape}"))
    rows = cast(rows_of(indptr, int(indices.shape[0])), mstype.int64)
    flat = rows * shape[1] + cast(indices, mstype.int64)
    return gather(reshape(dense, (shape[0] * shape[1],) + tuple(dense.shape[2:])), flat, 0)


def csr_softmax(logits, dtype):
    """Each row's softmax over its stored values (the implicit zeros take no part)."""
    _check("csr_softmax", logits, CSRTensor)
    values = cast(logits.values, dtype)
    rows, height = logits.rows(), logits.shape[0]
    column = reshape(rows, (1, -1))
    mine = equal(reshape(const(np.arange(height, dtype=np.int32)), (-1, 1)), column)  # (height, nnz)
    low = zeros(tuple(mine.shape), values.dtype) - const(np.array(np.inf, mstype.to_np(values.dtype)))
    spread = select(mine, zeros(tuple(mine.shape), values.dtype) + reshape(values, (1, -1)), low)
    peak = gather(reduce_max(spread, 1), rows, 0)  # each row's largest value, for exp's range
    e = exp(values - peak)
    total = index_add(zeros((height,), e.dtype), rows, e, 0)
    return logits.with_values(e / gather(total, rows, 0))


# -- joining and structure from values ------------------------------------------------
def coo_concat(sp_input, concat_dim=0):
    """The COO tensors joined along ``concat_dim`` (the other axes equal); the entries in
    the result's row-major order."""
    parts = list(sp_input)
    if not parts or not all(isinstance(p, COOTensor) for p in parts):
        raise argument_error("coo_concat", TypeError("sp_input must be a non-empty tuple of COOTensors"))
    ndim = parts[0].ndim
    axis = int(concat_dim) + ndim if int(concat_dim) < 0 else int(concat_dim)
    if not 0 <= axis < ndim:
        raise argument_error("coo_concat",
                             ValueError(f"concat_dim {concat_dim} is out of range for {ndim}-D tensors"))
    for p in parts[1:]:
        others = [(a, b) for k, (a, b) in enumerate(zip(p.shape, parts[0].shape)) if k != axis]
        if p.ndim != ndim or any(a != b for a, b in others):
            raise argument_error("coo_concat", ValueError(
                f"shapes {parts[0].shape} and {p.shape} differ outside concat_dim {axis}"))
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    offset, pieces = 0, []
    for p in parts:
        shift = np.zeros(ndim, mstype.to_np(p.indices.dtype))
        shift[axis] = offset
        pieces.append(p.indices + const(shift))
        offset += p.shape[axis]
    indices = concat(tuple(cast(i, parts[0].indices.dtype) for i in pieces), 0)
    values = concat(tuple(p.values for p in parts), 0)
    _, order = sort(cast(flat_index(indices, tuple(shape)), mstype.float64))
    return COOTensor._make(gather(indices, order, 0), gather(values, order, 0), tuple(shape))


def _host(op: str, t: Any) -> np.ndarray:
    """A tensor's values on the host: in graph mode this stops tracing (NeedsValueError),
    so the function runs interpreted (JIT Fallback)."""
    return np.asarray(t.asnumpy())


def _merged(indices: Any, values: Any, shape: tuple[int, ...]) -> tuple[Any, Any, np.ndarray]:
    """Repeated positions summed: (indices, values) in row-major order, and the flat
    positions (host)."""
    flat = np.ravel_multi_index(tuple(_host("sparse", indices).astype(np.int64).T), shape) \
        if indices.shape[0] else np.zeros(0, np.int64)
    unique, inverse = np.unique(flat, return_inverse=True)
    where = np.stack(np.unravel_index(unique, shape), 1).astype(mstype.to_np(indices.dtype))
    summed = index_add(zeros((len(unique),), values.dtype), const(inverse.astype(np.int64)), values, 0)
    return const(where.reshape(len(unique), len(shape))), summed, unique


def coalesce(x):
    """The COO tensor with repeated positions summed, in row-major order."""
    _check("coalesce", x, COOTensor)
    indices, values, _ = _merged(x.indices, x.values, x.shape)
    return COOTensor._make(indices, values, x.shape)


def coo_add(x1, x2, thresh):
    """``x1 + x2`` as a COO tensor over the positions of either (each operand canonical:
    no repeats); a position both hold is kept when its sum's magnitude is at least
    ``thresh`` (a position one holds is kept as it is)."""
    _check("coo_add", x1, COOTensor)
    _check("coo_add", x2, COOTensor)
    if tuple(x1.shape) != tuple(x2.shape):
        raise argument_error("coo_add", ValueError(f"shapes differ: {x1.shape} and {x2.shape}"))
    indices, values, unique = _merged(concat((x1.indices, cast(x2.indices, x1.indices.dtype)), 0),
                                      concat((x1.values, x2.values), 0), x1.shape)
    limit = float(np.asarray(_host("coo_add", thresh) if is_tensor(thresh) else thresh))
    shared = np.isin(unique, _flat_host(x1)) & np.isin(unique, _flat_host(x2))
    keep = np.flatnonzero(~shared | (np.abs(_host("coo_add", values)) >= limit))
    if len(keep) == values.shape[0]:
        return COOTensor._make(indices, values, x1.shape)
    kept = const(keep.astype(np.int64))
    return COOTensor._make(gather(indices, kept, 0), gather(values, kept, 0), x1.shape)


def _flat_host(x: COOTensor) -> np.ndarray:
    if not x.indices.shape[0]:
        return np.zeros(0, np.int64)
    return np.ravel_multi_index(tuple(_host("coo_add", x.indices).astype(np.int64).T), x.shape)


def _scalar(value: Any, dtype: Any) -> Any:
    return cast(value if is_tensor(value) else const(value), dtype)


def csr_add(a, b, alpha, beta):
    """``alpha * a + beta * b`` as a CSR tensor over the positions of either."""
    _check("csr_add", a, CSRTensor)
    _check("csr_add", b, CSRTensor)
    if tuple(a.shape) != tuple(b.shape):
        raise argument_error("csr_add", ValueError(f"shapes differ: {a.shape} and {b.shape}"))
    coo = (a.to_coo(), b.to_coo())
    indices = concat(tuple(cast(c.indices, mstype.int64) for c in coo), 0)
    values = concat((a.values * _scalar(alpha, a.values.dtype), b.values * _scalar(beta, a.values.dtype)), 0)
    merged, summed, _ = _merged(indices, values, a.shape)
    rows = reshape(gather(merged, const(np.array([0], np.int64)), 1), (-1,))
    cols = reshape(gather(merged, const(np.array([1], np.int64)), 1), (-1,))
    return CSRTensor._make(indptr_of(cast(rows, mstype.int32), a.shape[0]),
                           cast(cols, a.indices.dtype), summed, a.shape)


__all__ += ["coalesce", "coo2csr", "coo_add", "coo_concat", "coo_tensor_get_dense_shape",
            "coo_tensor_get_indices", "coo_tensor_get_values", "csr2coo", "csr_add", "csr_div",
            "csr_gather", "csr_mul", "csr_mv", "csr_reduce_sum", "csr_softmax", "csr_tensor_get_dense_shape",
            "csr_tensor_get_indices", "csr_tensor_get_indptr", "csr_tensor_get_values", "csr_to_coo",
            "csr_to_dense"]
