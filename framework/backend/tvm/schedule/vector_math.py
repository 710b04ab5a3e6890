"""Vectorizable float32 ``exp`` and ``erf`` for the CPU (LLVM) target.

TVM lowers ``tirx.exp`` to ``llvm.exp`` and ``tirx.erf`` to a call of libm's ``erff``; LLVM
has no vector form of either here, so every vectorized loop that calls them is split back
into one scalar libm call per lane: about 2 ns per ``exp`` and 8 ns per ``erf`` on one core.
The GPT's GELU (forward ``erf``, backward ``erf`` and ``exp``) and softmax spent ~40% of the
train step there. :func:`install` replaces the two intrinsics' LLVM lowering (process-wide,
float32 only; float64 keeps libm) with branch-free polynomials made of vector operations:

- ``exp(x)``: ``x = n ln2 + r`` (Cody-Waite, ``|r| <= ln2/2``), ``exp(r) = 1 + r + r^2 P(r)``,
  times ``2^n`` built from exponent bits in two halves (gradual underflow down to
  ``exp(-104) = 0``, overflow to ``inf`` above 88.72; below -104, 0 selected without
  computing a subnormal). At most ~1.3 ulp from exp.
- ``erf(x)``: ``x Q(x^2)`` for ``|x| < 0.9``; ``1 - exp(-x^2) R(|x|)`` above, ``R`` fitted
  to ``erfc(x) exp(x^2)``; +-1 beyond 3.93 (where float32 ``erf`` rounds to 1). At most
  ~2.5 ulp.

The coefficients are least-squares fits (float64, 2000 Chebyshev nodes) of those functions
on their intervals, rounded to float32; tests/framework/test_vector_math.py measures the
errors against NumPy/``math.erf`` on dense grids. NaN gives NaN, +-inf give exp's 0/inf and
erf's +-1, as libm.
"""

from __future__ import annotations

import math

import tvm
from tvm import tirx

LOG2E = 1.0 / math.log(2.0)
LN2_HI = 0.693359375  # 9 significant bits: n * LN2_HI is exact for |n| < 2^15
LN2_LO = math.log(2.0) - LN2_HI
EXP_LOW, EXP_HIGH = -104.0, 89.0  # exp rounds to 0 below, overflows to inf above
# exp(r) = 1 + r + r^2 (c0 + c1 r + ...), |r| <= ln2 / 2
EXP_POLY = (0.5, 0.1666666716337204, 0.04166646674275398, 0.0083332983776927,
            0.0013933646259829402, 0.0001989927695831284)
ERF_SPLIT, ERF_ONE = 0.9, 3.93
# erf(x) = x (c0 + c1 x^2 + ...), |x| < ERF_SPLIT
ERF_SMALL = (1.128379225730896, -0.37612634897232056, 0.1128372922539711,
             -0.02686120755970478, 0.0052054263651371, -0.0008192117093130946,
             8.578752749599516e-05)
# erfc(x) exp(x^2) = c0 + c1 x + ..., ERF_SPLIT <= x <= ERF_ONE
ERF_TAIL = (0.9946046471595764, -1.0937002897262573, 0.8987855315208435,
            -0.5731217861175537, 0.28259703516960144, -0.10580293834209442,
            0.029290881007909775, -0.005774711724370718, 0.0007635850924998522,
            -6.0520640545291826e-05, 2.168686933146091e-06)


def _const(value: float, like: tvm.tirx.PrimExpr, base: str = "float32") -> tvm.tirx.PrimExpr:
    lanes = _lanes(like)
    scalar = tirx.const(value, base)
    return tirx.Broadcast(scalar, lanes) if lanes > 1 else scalar


def _lanes(expr: tvm.tirx.PrimExpr) -> int:
    return int(_dtype(expr).lanes)


def _dtype(expr: tvm.tirx.PrimExpr):
    return tvm.runtime.DataType(str(expr.ty.dtype))


def _typed(base: str, like: tvm.tirx.PrimExpr) -> str:
    lanes = _lanes(like)
    return f"{base}x{lanes}" if lanes > 1 else base


def _let(value: tvm.tirx.PrimExpr, body, name: str) -> tvm.tirx.PrimExpr:
    """``body(v)`` with ``v`` bound once to ``value`` (kept a single computation)."""
    var = tirx.Var(name, str(value.ty.dtype))
    return tirx.Let(var, value, body(var))


def _horner(coefs: tuple[float, ...], v: tvm.tirx.PrimExpr) -> tvm.tirx.PrimExpr:
    acc = _const(coefs[-1], v)
    for c in coefs[-2::-1]:
        acc = acc * v + _const(c, v)
    return acc


def _pow2(k: tvm.tirx.PrimExpr) -> tvm.tirx.PrimExpr:
    """``2^k`` for an int32 ``k`` in [-126, 127], from its exponent bits."""
    bits = (k + _const(127, k, "int32")) * _const(1 << 23, k, "int32")
    return tirx.reinterpret(_typed("float32", k), bits)


def exp_f32(x: tvm.tirx.PrimExpr) -> tvm.tirx.PrimExpr:
    """float32 ``exp(x)`` (scalar or vector ``x``) as vector arithmetic; see the module."""
    def body(x):
        low, high = _const(EXP_LOW, x), _const(EXP_HIGH, x)
        # below EXP_LOW (a causal mask's -inf) the result is 0, selected at the end; the
        # lanes compute exp(0) meanwhile: clamped to EXP_LOW they would build a subnormal
        # (2^-75 * 2^-75), a microcode assist of ~100 cycles per vector on x86 (a masked
        # softmax ran 10x slower). NaN fails both comparisons too: restored at the end.
        xc = tirx.Select(x >= low, tirx.Select(x <= high, x, high), _const(0.0, x))

        def scaled(n):
            r = xc - n * _const(LN2_HI, x) - n * _const(LN2_LO, x)

            def poly(r):
                p = _const(1.0, r) + r + r * r * _horner(EXP_POLY, r)
                k = tirx.Cast(_typed("int32", x), n)
                half = tirx.shift_right(k, _const(1, k, "int32"))
                return p * _pow2(half) * _pow2(k - half)
            return _let(r, poly, "exp_r")
        value = _let(tirx.floor(xc * _const(LOG2E, x) + _const(0.5, x)), scaled, "exp_n")
        return tirx.Select(tirx.isnan(x), x, tirx.Select(x < low, _const(0.0, x), value))
    return _let(x, body, "exp_x")


def erf_f32(x: tvm.tirx.PrimExpr) -> tvm.tirx.PrimExpr:
    """float32 ``erf(x)`` (scalar or vector ``x``) as vector arithmetic; see the module."""
    def body(x):
        zero = _const(0.0, x)
        a = tirx.Select(x < zero, -x, x)  # NaN stays NaN (and is returned as is)

        def branches(a):
            small = x * _horner(ERF_SMALL, x * x)
            tail = _const(1.0, x) - exp_f32(-(a * a)) * _horner(ERF_TAIL, a)
            tail = tirx.Select(a > _const(ERF_ONE, x), _const(1.0, x), tail)
            # a Let used twice is bound twice by TVM's simplifier: bind the tail once
            signed = _let(tail, lambda t: tirx.Select(x < zero, -t, t), "erf_tail")
            return tirx.Select(a < _const(ERF_SPLIT, x), small, signed)
        return tirx.Select(tirx.isnan(x), x, _let(a, branches, "erf_a"))
    return _let(x, body, "erf_x")


def _rule(fast, fallback):
    def lower(op):
        dtype = _dtype(op)
        if dtype.type_code == tvm.runtime.DataTypeCode.FLOAT and dtype.bits == 32:
            return fast(op.args[0])
        return fallback(op) if fallback is not None else op
    return lower


_installed = False


def install() -> None:
    """Make LLVM code generation lower float32 ``exp``/``erf`` with the functions above
    (idempotent; other dtypes keep TVM's rules)."""
    global _installed
    if _installed:
        return
    for name, fast in (("tirx.exp", exp_f32), ("tirx.erf", erf_f32)):
        op = tvm.ir.Op.get(name)
        fallback = op.get_attr("llvm.FLowerIntrinsic") or op.get_attr("default.FLowerIntrinsic")
        tirx.register_intrin_lowering(name, "llvm", f=_rule(fast, fallback), level=100)
    _installed = True
