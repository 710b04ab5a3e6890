"""Matrix functions composed of framework ops (their gradients follow): ``adjoint``,
``matrix_norm``, ``cov``, ``renorm``, ``vander``.

Contracts (MindSpore 2.10):

- ``adjoint(x)``: the conjugate transpose of the last two axes.
- ``matrix_norm(A, ord, axis, keepdims, dtype)``: ``'fro'``, ``'nuc'``, 1, -1, 2, -2, inf,
  -inf over the two ``axis`` (1/-1: max/min column sum, inf/-inf: max/min row sum, 2/-2:
  largest/smallest singular value, ``'nuc'``: their sum).
- ``cov(input, correction, fweights, aweights)``: rows are variables, columns observations
  (1-d: one variable, a 0-d result); weights as NumPy's ``cov``; the normalizer
  ``sum(w) - correction * sum(w * aweights) / sum(w)`` (``sum(w) - correction`` without
  ``aweights``), clamped at 0.
- ``renorm(input, p, axis, maxnorm)``: each slice along ``axis`` whose p-norm exceeds
  ``maxnorm`` is scaled to norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``).
- ``vander(x, N)``: columns ``x^(N-1) ... x^0`` of a 1-d ``x`` (integers give int64).
"""

from __future__ import annotations

from .. import dtype as mstype
from ._utils import argument_error, normalize_axis
from .array_layout import swapaxes
from .complex_ops import conj
from .elementwise import abs as abs_
from .elementwise import cast, greater, maximum, pow, select, sqrt
from .linalg_decompose import singular_values
from .nn_ops import matmul
from .reduce import reduce_sum
from .reductions import amax, amin
from .shape_ops import concat, expand_dims, ones_like, reshape, squeeze, transpose


def adjoint(x):
    out = swapaxes(x, -1, -2)
    return conj(out) if mstype.is_complex(mstype.to_np(x.dtype)) else out


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002, N803
    x = A if dtype is None else cast(A, dtype)
    ndim = len(x.shape)
    if len(axis) != 2:
        raise argument_error("matrix_norm", ValueError(f"axis must be two axes, got {axis!r}"))
    rows, cols = (normalize_axis(int(a), ndim) for a in axis)
    if rows == cols:
        raise argument_error("matrix_norm", ValueError(f"axis must be two different axes, got {axis!r}"))
    if ord == "fro":
        return sqrt(reduce_sum(x * x, (rows, cols), keepdims))
    inf = float("inf")
    if ord in (1, -1, inf, -inf):
        summed, picked = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = reduce_sum(abs_(x), summed, True)
        out = (amax if ord > 0 else amin)(sums, picked, True)
        return out if keepdims else squeeze(out, tuple(sorted((rows, cols))))
    if ord in ("nuc", 2, -2):
        rest = [a for a in range(ndim) if a not in (rows, cols)]
        s = singular_values(transpose(x, tuple(rest) + (rows, cols)))
        out = reduce_sum(s, -1) if ord == "nuc" else (amax if ord == 2 else amin)(s, -1)
        if keepdims:
            for a in sorted((rows, cols)):
                out = expand_dims(out, a)
        return out
    raise argument_error("matrix_norm", ValueError(
        f"ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}"))


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    x = input if len(input.shape) == 2 else reshape(input, (1, -1))
    if len(x.shape) != 2:
        raise argument_error("cov", ValueError(f"input must be 1-d or 2-d, got shape {tuple(input.shape)}"))
    w = None
    for weights in (fweights, aweights):
        if weights is not None:
            weights = cast(weights, x.dtype)
            w = weights if w is None else w * weights
    if w is None:
        n = x.shape[1]
        mean = reduce_sum(x, 1, True) / float(n)
        factor = max(float(n - correction), 0.0)
        centered = x - mean
        out = matmul(centered, centered, False, True) / factor
    else:
        w_sum = reduce_sum(w)
        mean = reduce_sum(x * w, 1, True) / w_sum
        if aweights is None:
            factor = w_sum - float(correction)
        else:
            factor = w_sum - float(correction) * reduce_sum(w * cast(aweights, x.dtype)) / w_sum
        factor = maximum(factor, 0.0)
        centered = x - mean
        out = matmul(centered * expand_dims(w, 0), centered, False, True) / factor
    return reshape(out, ()) if len(input.shape) < 2 else out


def renorm(input, p, axis, maxnorm):  # noqa: A002
    if not isinstance(p, int | float) or p <= 0:
        raise argument_error("renorm", ValueError(f"p must be a positive number, got {p!r}"))
    ndim = len(input.shape)
    axis = normalize_axis(axis, ndim)
    others = tuple(a for a in range(ndim) if a != axis)
    norm = pow(reduce_sum(pow(abs_(input), float(p)), others, True), 1.0 / p)
    factor = select(greater(norm, float(maxnorm)), float(maxnorm) / (norm + 1e-7), norm * 0.0 + 1.0)
    return input * factor


def vander(x, N=None):  # noqa: N803
    if len(x.shape) != 1:
        raise argument_error("vander", ValueError(f"x must be 1-d, got shape {tuple(x.shape)}"))
    n = x.shape[0] if N is None else N
    if not isinstance(n, int) or n < 0:
        raise argument_error("vander", ValueError(f"N must be a non-negative int, got {N!r}"))
    if mstype.kind(mstype.to_np(x.dtype)) in "iub":
        x = cast(x, mstype.int64)
    column = expand_dims(x, 1)
    cols = [ones_like(column)]
    for _ in range(1, n):
        cols.append(cols[-1] * column)
    if n == 0:
        return concat([column], 1)[:, :0]
    return concat(cols[::-1], 1)
