"""``mint.linalg``: norms on ``framework.ops`` (``vector_norm``; ``matrix_norm`` for the
Frobenius, nuclear-free orders ``'fro'``, 1, -1, inf, -inf; ``norm`` dispatching on
``ord``/``dim`` as PyTorch does), ``inv`` and ``qr`` (PyNative only: NumPy).
"""

from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor
from ..ops import functional as ops
from ..ops._utils import argument_error
from ._util import concrete
from .reduce import vector_norm

__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: N803, A002
    x = A if dtype is None else ops.cast(A, dtype)
    rows, cols = (d % x.ndim for d in dim)
    if ord == "fro":
        return ops.sqrt(ops.sum(ops.square(x), (rows, cols), keepdim))
    if ord in (1, -1, float("inf"), -float("inf")):
        summed_axis, picked_axis = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = ops.sum(ops.abs(x), summed_axis, True)
        pick = ops.amax if ord > 0 else ops.amin
        out = pick(sums, picked_axis, True)
        return out if keepdim else ops.squeeze(out, (rows, cols))
    raise argument_error("matrix_norm", ValueError(f"ord {ord!r} is not supported"))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: N803, A002
    """``vector_norm`` for a 1-d ``dim`` (or ``ord=None`` over everything), else
    ``matrix_norm``."""
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if isinstance(dim, int) or (dim is None and A.ndim == 1):
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)


def inv(input):  # noqa: A002
    (a,) = concrete("linalg.inv", input)
    return Tensor(np.linalg.inv(a).astype(a.dtype))


def qr(A, mode="reduced"):  # noqa: N803
    (a,) = concrete("linalg.qr", A)
    q, r = np.linalg.qr(a, mode=mode)
    return Tensor(q.astype(a.dtype)), Tensor(r.astype(a.dtype))

# an absent MindSpore name: one line naming it, the coverage table and the closest name here
from .. import absent_names as _absent_names  # noqa: E402

__getattr__ = _absent_names.module_getattr("mint.linalg", __name__)
