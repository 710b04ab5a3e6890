"""``ops.BatchMatMul`` and NumPy-style ``ops.matmul``.

``BatchMatMul(transpose_a=False, transpose_b=False)(a, b)``: matrix products over the last
two axes, the leading (batch) axes broadcast as in NumPy (``(B, 1, m, k) @ (h, k, n)`` is
``(B, h, m, n)``); each operand has rank >= 2 and at least one rank >= 3 (two matrices
are ``MatMul``'s). ``transpose_a``/``transpose_b`` transpose the last two axes of that
operand first. The bprop gives each operand the product of ``dout`` with the other one
(the same four cases as ``MatMul``) summed back over the batch axes it was broadcast along.

``matmul(input, other)`` follows ``np.matmul``: 1-D operands get a unit axis that the
result drops, two matrices go to ``MatMul``, anything with batch axes to ``BatchMatMul``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec, shape_str
from . import nn_ops as _nn_ops
from ._holomorphic import holomorphic
from ._utils import broadcast_shape, float32_accumulation, result_dtype
from .elementwise import sum_to
from .shape_ops import expand_dims, squeeze


def _matrix(shape: tuple[int, ...], transpose: bool) -> tuple[int, int]:
    return (shape[-1], shape[-2]) if transpose else (shape[-2], shape[-1])


class BatchMatMul(Primitive):
    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        super().__init__(transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))

    def infer(self, a: Any, b: Any) -> Spec:
        mstype.check_complex_pair(a.dtype, b.dtype)
        sa, sb = tuple(a.shape), tuple(b.shape)
        if len(sa) < 2 or len(sb) < 2 or max(len(sa), len(sb)) < 3:
            raise ValueError(f"BatchMatMul: inputs need rank >= 2 and one of them >= 3, got "
                             f"{shape_str(sa)} and {shape_str(sb)}")
        (m, k), (k2, n) = _matrix(sa, self.transpose_a), _matrix(sb, self.transpose_b)
        if k != k2:
            raise ValueError(f"BatchMatMul: inner dimensions differ: {shape_str(sa)}"
                             f"{'^T' if self.transpose_a else ''} @ {shape_str(sb)}"
                             f"{'^T' if self.transpose_b else ''} ({k} != {k2})")
        try:
            batch = broadcast_shape(sa[:-2], sb[:-2])
        except ValueError:
            raise ValueError(f"BatchMatMul: batch axes {shape_str(sa[:-2])} and "
                             f"{shape_str(sb[:-2])} do not broadcast") from None
        return Spec(batch + (m, n), result_dtype(a.dtype, b.dtype))

    @float32_accumulation
    def kernel(self, a, b):
        a = np.swapaxes(a, -1, -2) if self.transpose_a else a
        b = np.swapaxes(b, -1, -2) if self.transpose_b else b
        out = np.matmul(a, b)
        dtype = result_dtype(a.dtype, b.dtype)
        return out if out.dtype == dtype else out.astype(dtype)

    @holomorphic
    def bprop(self, a, b, *, out, dout, needs):
        ta, tb = self.transpose_a, self.transpose_b
        da = db = None
        if needs[0]:
            da = BatchMatMul(tb, True)(b, dout) if ta else BatchMatMul(False, not tb)(dout, b)
            da = sum_to(da, tuple(a.shape))
        if needs[1]:
            db = BatchMatMul(True, ta)(dout, a) if tb else BatchMatMul(not ta, False)(a, dout)
            db = sum_to(db, tuple(b.shape))
        return da, db


_BMM = BatchMatMul()


def matmul(input, other):  # noqa: A002  (MindSpore's parameter names)
    """``ops.matmul(input, other)`` with ``np.matmul``'s rules (see the module docstring)."""
    ra, rb = len(input.shape), len(other.shape)
    if ra == 0 or rb == 0:
        raise ValueError("matmul: scalars are not matrices; use ops.mul")
    a = expand_dims(input, 0) if ra == 1 else input
    b = expand_dims(other, -1) if rb == 1 else other
    out = _nn_ops.MatMul()(a, b) if max(len(a.shape), len(b.shape)) == 2 else _BMM(a, b)
    if ra == 1:
        out = squeeze(out, -2)
    if rb == 1:
        out = squeeze(out, -1)
    return out
