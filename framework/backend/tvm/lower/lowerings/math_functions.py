"""Lowerings of the primitives of ``ops/math_unary.py``, ``ops/math_binary.py`` and
``ReduceProd`` (``ops/reductions.py``).

Known differences from the NumPy kernels:

- ``Erfc`` is ``1 - erf(x)``: absolute error about 1e-7 in float32 (the kernel's SciPy
  erfc keeps its relative accuracy where erfc is tiny, x > 3);
- ``Sinh``/``Cosh`` are computed from ``expm1``/``exp`` (no LLVM intrinsic), ``Atanh`` and
  ``Asinh`` from ``log1p`` (TVM's forms lose the low bits near 0);
- ``Expm1``/``Log1p`` use Kahan's corrections (``(u - 1) * x / log(u)`` with
  ``u = exp(x)``; ``log(u) * x / (u - 1)`` with ``u = 1 + x``), read through a bit-cast
  the simplifier cannot see through, so ``(1 + x) - 1`` is not folded to ``x``;
- float16 inputs of the transcendental ones compute in float32 (``float32_compute``), as
  NumPy's float16 ufuncs do.
"""

from __future__ import annotations

import numpy as np
from tvm import relax, te, tirx, topi

from .base import LowerContext, Lowering, cast, const, emit, float32_compute
from .elementwise import _opaque, _true_divide


def unary(op) -> Lowering:
    def lower(ctx: LowerContext, x):
        return op(x)

    lower.__name__ = f"lower_{op.__name__}"
    return float32_compute(lower)


def te_expm1(x: te.Tensor) -> te.Tensor:
    one = tirx.const(1, x.dtype)
    u = te.compute(x.shape, lambda *i: tirx.exp(x(*i)), name="exp")

    def at(*i):
        v, a = u(*i), x(*i)
        exact = tirx.Select(v - one == -one, -one, (v - one) * a / tirx.log(v))
        return tirx.Select(v == one, a, exact)

    return te.compute(x.shape, at, name="expm1")


def te_log1p(x: te.Tensor) -> te.Tensor:
    one = tirx.const(1, x.dtype)
    u = _opaque(te.compute(x.shape, lambda *i: x(*i) + one, name="one_plus"))

    def at(*i):
        v, a = u(*i), x(*i)
        return tirx.Select(v == one, a, tirx.log(v) * a / (v - one))

    return te.compute(x.shape, at, name="log1p")


def te_sinh(x: te.Tensor) -> te.Tensor:
    """``sign(x) (E + E / (E + 1)) / 2`` with ``E = expm1(|x|)``: no cancellation near 0
    (LLVM has no sinh intrinsic)."""
    e = te_expm1(te.compute(x.shape, lambda *i: tirx.abs(x(*i)), name="abs"))
    half, zero = tirx.const(0.5, x.dtype), tirx.const(0, x.dtype)

    def at(*i):
        v = e(*i)
        mag = (v + v / (v + tirx.const(1, x.dtype))) * half
        return tirx.Select(x(*i) < zero, -mag, mag)

    return te.compute(x.shape, at, name="sinh")


def te_cosh(x: te.Tensor) -> te.Tensor:
    """``(u + 1 / u) / 2`` with ``u = exp(|x|)`` (LLVM has no cosh intrinsic)."""
    half, one = tirx.const(0.5, x.dtype), tirx.const(1, x.dtype)

    def at(*i):
        u = tirx.exp(tirx.abs(x(*i)))
        return (u + one / u) * half

    return te.compute(x.shape, at, name="cosh")


def te_atanh(x: te.Tensor) -> te.Tensor:
    """``log1p(2x / (1 - x)) / 2``: TVM's own form (a log of a ratio) loses the low bits
    near 0."""
    one = tirx.const(1, x.dtype)
    ratio = te.compute(x.shape, lambda *i: (x(*i) + x(*i)) / (one - x(*i)), name="ratio")
    logged = te_log1p(ratio)
    return te.compute(x.shape, lambda *i: logged(*i) * tirx.const(0.5, x.dtype), name="atanh")


def te_asinh(x: te.Tensor) -> te.Tensor:
    """``sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))``: exact near 0, no overflow of
    ``x^2`` below about 1e19."""
    one, zero = tirx.const(1, x.dtype), tirx.const(0, x.dtype)

    def arg(*i):
        a = tirx.abs(x(*i))
        return a + a * a / (one + tirx.sqrt(one + a * a))

    mag = te_log1p(te.compute(x.shape, arg, name="asinh_arg"))
    return te.compute(x.shape, lambda *i: tirx.Select(x(*i) < zero, -mag(*i), mag(*i)),
                      name="asinh")


def te_lowering(compute) -> Lowering:
    """A lowering that calls the TE function ``compute`` (float16 computes in float32)."""
    name = compute.__name__.removeprefix("te_")

    def lower(ctx: LowerContext, x):
        return ctx.bb.call_te(compute, x, primfunc_name_hint=name)

    lower.__name__ = f"lower_{name}"
    return float32_compute(lower)


def lower_erfc(ctx: LowerContext, x):
    return relax.op.subtract(const(1.0, ctx.in_specs[0].dtype), relax.op.erf(x))


def lower_reciprocal(ctx: LowerContext, x):
    def compute(t: te.Tensor) -> te.Tensor:
        return _true_divide(topi.full_like(t, 1.0), t)

    return ctx.bb.call_te(compute, x, primfunc_name_hint="reciprocal")


def lower_round(ctx: LowerContext, x):
    """Half to even (``nearbyint``), as ``np.rint``."""
    return ctx.bb.call_te(lambda t: te.compute(t.shape, lambda *i: tirx.nearbyint(t(*i)),
                                               name="rint"), x, primfunc_name_hint="rint")


def lower_square(ctx: LowerContext, x):
    return relax.op.multiply(x, x)


def predicate(op, integer_answer: bool) -> Lowering:
    """IsNan/IsInf/IsFinite: integers are never nan or inf (a constant answer)."""

    def lower(ctx: LowerContext, x):
        spec = ctx.in_specs[0]
        if np.dtype(spec.dtype).kind == "f":
            return op(x)
        fill = relax.op.ones if integer_answer else relax.op.zeros
        return fill(relax.ShapeExpr(list(spec.shape)), "bool")

    lower.__name__ = f"lower_{op.__name__}"
    return float32_compute(lower)


def lower_atan2(ctx: LowerContext, y, x):
    (ys, xs), dtype = ctx.in_specs, ctx.out_specs[0].dtype
    return relax.op.atan2(cast(y, ys.dtype, dtype), cast(x, xs.dtype, dtype))


def logical(op) -> Lowering:
    def lower(ctx: LowerContext, x, y):
        return op(x, y)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def bitwise(op) -> Lowering:
    """Bool operands compute in int8 (TVM's bool codegen), then convert back."""

    def lower(ctx: LowerContext, x, y):
        (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
        work = np.dtype(np.int8) if dtype == np.bool_ else dtype
        out = op(cast(x, xs.dtype, work), cast(y, ys.dtype, work))
        return cast(emit(ctx.bb, out), work, dtype)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def lower_invert(ctx: LowerContext, x):
    return relax.op.bitwise_not(x)
