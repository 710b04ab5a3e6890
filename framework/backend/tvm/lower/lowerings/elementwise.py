"""Elementwise primitives: arithmetic, comparisons, select, casts, unary math."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tvm import relax, te, tirx, topi

from .....ops.int_edges import indefinite
from .base import LowerContext, Lowering, cast, cast_emit, emit, on_cpu


def binary(op: Callable[..., relax.Expr], float_only: bool = False) -> Lowering:
    """Broadcasting arithmetic in the node's output dtype.

    TVM cannot do arithmetic or comparisons on bool tensors (LLVM verification fails), so
    bools compute in int8 and convert back with ``!= 0`` (``+`` is or, ``*`` is and, as in
    NumPy). ``float_only`` ops (TVM's ``power``) compute integers in float64.
    """

    def lower(ctx: LowerContext, x, y):
        (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
        if dtype.kind == "f":
            return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))
        work = np.dtype(np.float64 if float_only else np.int8 if dtype == np.bool_ else dtype)
        if work == dtype:
            return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))
        return cast(ctx.bb.emit(op(cast(x, xs.dtype, work), cast(y, ys.dtype, work))), work, dtype)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


# A float compared with itself: TVM's arithmetic simplifier folds ``e == e`` to true (and
# ``e != e`` to false) once FuseOps inlines both sides into one kernel, which is wrong for
# NaN; written through isnan instead (``x == x`` is the usual NaN test, ``out == out``).
_SELF = {"equal": False, "not_equal": True, "less_equal": False, "greater_equal": False}


def compare(op: Callable[..., relax.Expr]) -> Lowering:
    def lower(ctx: LowerContext, x, y):
        xs, ys = ctx.in_specs
        dtype = np.result_type(xs.dtype, ys.dtype)
        name = op.__name__
        if x.same_as(y) and np.issubdtype(dtype, np.floating) and name in _SELF:
            nan = relax.op.isnan(x)
            return nan if _SELF[name] else relax.op.logical_not(nan)
        if dtype == np.bool_:  # no bool comparisons in TVM's codegen
            dtype = np.dtype(np.int8)
        return op(cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def unary(op: Callable[..., relax.Expr]) -> Lowering:
    def lower(ctx: LowerContext, x):
        return op(x)

    lower.__name__ = f"lower_{op.__name__}"
    return lower


def lower_tanh(ctx: LowerContext, x):
    """TOPI's ``fast_tanh`` (a clamped rational approximation): within 2 float32 ulps of
    ``tanh`` and about 6x faster than the libm call per element (RNN cells are bound by it)."""
    if ctx.in_specs[0].dtype != np.float32:
        return relax.op.tanh(x)
    return ctx.bb.call_te(topi.fast_tanh, x)


def lower_sigmoid(ctx: LowerContext, x):
    """float16 on the CPU: MindSpore's (and the kernel's) ``1 / (1 + exp(-x))`` with each step
    computed in float32 and rounded to float16, fused in one kernel; else TVM's sigmoid."""
    if ctx.in_specs[0].dtype != np.float16 or not on_cpu():
        return relax.op.sigmoid(x)

    def rounded(v):
        return relax.op.astype(relax.op.astype(v, "float16"), "float32")

    one = relax.const(1.0, "float32")
    e = rounded(relax.op.exp(relax.op.negative(relax.op.astype(x, "float32"))))
    return relax.op.astype(relax.op.divide(one, rounded(relax.op.add(one, e))), "float16")


def lower_select(ctx: LowerContext, cond, x, y):
    _, xs, ys = ctx.in_specs
    dtype = ctx.out_specs[0].dtype
    return relax.op.where(cond, cast(x, xs.dtype, dtype), cast(y, ys.dtype, dtype))


def lower_cast(ctx: LowerContext, x):
    # float -> int truncates toward zero in both NumPy and LLVM (fptosi)
    return cast_emit(ctx.bb, x, ctx.in_specs[0].dtype, ctx.out_specs[0].dtype)


# -- division: no input may abort the process ---------------------------------------------
# TVM's constant folder refuses a division by a literal zero with a C++ error that, raised
# inside scheduling (compute_inline substitutes a ``zeros_like`` into the divisor), ends the
# process (std::terminate, exit 134); and an integer division by a zero read at run time
# traps (SIGFPE). So float division reads its divisor through a bit-cast round trip that
# the simplifier does not fold (LLVM removes it; x / 0 is then IEEE: +-inf, nan), and
# integer floor division/modulo never divide by 0 (nor the minimum by -1): ``//`` by zero
# gives MindSpore's CPU result (the dtype's max for x > 0, its min for x < 0, 0 for 0), ``%``
# by zero MindSpore's too, as the PyNative kernels (framework/ops/int_edges.py).

_BITS = {"float16": "int16", "float32": "int32", "float64": "int64"}


def _opaque(y: te.Tensor) -> te.Tensor:
    bits = _BITS[str(y.dtype)]
    return te.compute(y.shape, lambda *i: tirx.call_intrin(
        y.dtype, "tirx.reinterpret", tirx.call_intrin(bits, "tirx.reinterpret", y(*i))),
        name="opaque_divisor")


def _true_divide(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    return topi.divide(x, _opaque(y))


def _float_floor_div(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Float ``x // y`` (float64, same shapes) as MindSpore's: ``floor(x / y)``; by zero
    ``+inf`` for x > 0, NaN for 0, ``-inf`` otherwise (NaN included)."""
    b = _opaque(y)
    zero = tirx.const(0.0, x.dtype)

    def at(*i):
        by_zero = tirx.Select(x(*i) == zero, tirx.const(float("nan"), x.dtype), tirx.Select(
            x(*i) > zero, tirx.const(float("inf"), x.dtype), tirx.const(float("-inf"), x.dtype)))
        return tirx.Select(y(*i) == zero, by_zero, tirx.floor(x(*i) / b(*i)))

    return te.compute(x.shape, at, name="float_floor_divide")


def _float_multiple(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """``floor(x / y) * y`` (float64, same shapes), the product rounded: emitted as its own
    unfused kernel (``OPAQUE``), so that LLVM cannot contract ``x - floor(x / y) * y`` into
    a fused multiply-add (which gives the exact residue, not MindSpore's)."""
    b = _opaque(y)
    return te.compute(x.shape, lambda *i: tirx.floor(x(*i) / b(*i)) * b(*i), name="multiple")


OPAQUE = 8  # TVM's OpPatternKind kOpaque: FuseOps leaves the kernel alone


def _float_floor_mod(bb, x, y):
    """Float ``x % y`` (float64 Relax values, same shapes) as MindSpore's: ``x - floor(x /
    y) * y``, each operation rounded; NaN where ``y`` is 0 or infinite."""
    multiple = bb.emit(bb.call_te(_float_multiple, x, y, primfunc_name_hint="float_multiple",
                                  primfunc_attrs={"op_pattern": OPAQUE}))
    return relax.op.subtract(x, multiple)


def _safe_divisor(b: tirx.PrimExpr, dtype: str) -> tuple[tirx.PrimExpr, tirx.PrimExpr]:
    """``(b, minus_one)``: the divisor with 0 and -1 replaced by 1, and whether it was -1.
    The hardware traps (SIGFPE) on a division by 0 and on the dtype's minimum divided by
    -1 (its quotient does not fit); both are answered without dividing."""
    one, zero = tirx.const(1, dtype), tirx.const(0, dtype)
    if not dtype.startswith("int"):  # unsigned: no -1
        return tirx.Select(b == zero, one, b), tirx.const(False, "bool")
    minus_one = b == tirx.const(-1, dtype)
    return tirx.Select(tirx.Or(b == zero, minus_one), one, b), minus_one


def _wrapping_negative(a: tirx.PrimExpr, dtype: str) -> tirx.PrimExpr:
    """``-a``, where the minimum stays the minimum (its negative wraps, as MindSpore's and
    NumPy's ``min // -1``); never an overflowing negation (undefined in LLVM)."""
    low = tirx.const(int(np.iinfo(dtype).min), dtype)
    return tirx.Select(a == low, low, tirx.const(0, dtype) - tirx.Select(a == low, tirx.const(0, dtype), a))


def _int_floor_div(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Integer ``x // y`` (same shapes); by zero as MindSpore's CPU kernel: the dtype's
    largest value for x > 0, its smallest for x < 0, 0 for 0; ``min // -1`` is ``min``."""
    dtype = str(x.dtype)
    info = np.iinfo(dtype)
    zero = tirx.const(0, dtype)

    def at(*i):
        a, b = x(*i), y(*i)
        divisor, minus_one = _safe_divisor(b, dtype)
        quotient = tirx.Select(minus_one, _wrapping_negative(a, dtype) if info.min else a,
                               tirx.floordiv(a, divisor))
        by_zero = tirx.Select(a > zero, tirx.const(int(info.max), dtype),
                              tirx.Select(a < zero, tirx.const(int(info.min), dtype), zero))
        return tirx.Select(b == zero, by_zero, quotient)

    return te.compute(x.shape, at, name="floor_divide")


def _int_floor_mod(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Integer ``x % y`` (same shapes); ``x % -1`` is 0; by zero MindSpore's CPU value
    (``int_edges.indefinite``: the minimum for 32 and 64 bits, else 0)."""
    dtype = str(x.dtype)
    zero = tirx.const(0, dtype)
    by_zero = tirx.const(indefinite(np.dtype(dtype)), dtype)

    def at(*i):
        a, b = x(*i), y(*i)
        divisor, minus_one = _safe_divisor(b, dtype)
        return tirx.Select(b == zero, by_zero,
                           tirx.Select(minus_one, zero, tirx.floormod(a, divisor)))

    return te.compute(x.shape, at, name="floor_mod")


def division(kind: str) -> Lowering:
    """``true``: Div (integers in float64, as ``binary(float_only=True)``); ``floor`` /
    ``mod``: FloorDiv / FloorMod (floats in float64 as MindSpore's CPU kernels, see
    framework/ops/floor_float.py; integers as NumPy's, by zero as above)."""

    def lower(ctx: LowerContext, x, y):
        (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
        bb, is_float = ctx.bb, dtype.kind == "f"
        # float64 work: true division of integers, floor division/modulo of floats
        work = np.dtype(np.float64) if is_float != (kind == "true") else dtype
        x, y = emit(bb, cast(x, xs.dtype, work)), emit(bb, cast(y, ys.dtype, work))
        if kind == "true":
            return cast(bb.emit(bb.call_te(_true_divide, x, y, primfunc_name_hint="true_divide")),
                        work, dtype)
        # same shapes first: one TE expression reads both at each output position
        shape = list(ctx.out_specs[0].shape)
        x = x if tuple(xs.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(x, shape))
        y = y if tuple(ys.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(y, shape))
        if kind == "mod" and is_float:
            return cast(emit(bb, _float_floor_mod(bb, x, y)), work, dtype)
        te_op = {("floor", True): _float_floor_div, ("floor", False): _int_floor_div,
                 ("mod", False): _int_floor_mod}[kind, is_float]
        return cast(bb.emit(bb.call_te(te_op, x, y, primfunc_name_hint=f"{kind}_divide")), work, dtype)

    lower.__name__ = f"lower_{kind}_division"
    return lower


# -- integer powers: TVM's ``power`` is float-only, so integers compute in float64; a negative
# exponent takes MindSpore's answer explicitly (framework/ops/int_edges.py), never the
# conversion of 1 / 0 = inf to an integer (undefined in LLVM).

_float_power = binary(relax.op.power, float_only=True)


def _int_power(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Integer ``x ** y`` (same shapes): ``pow`` in float64 for ``y >= 0``; for ``y < 0``
    1 (x == 1), +-1 (x == -1, by the parity of y), the indefinite value (x == 0), else 0."""
    dtype = str(x.dtype)

    def at(*i):
        a, b = x(*i), y(*i)
        zero, one = tirx.const(0, dtype), tirx.const(1, dtype)
        exponent = tirx.Cast("float64", tirx.Select(b < zero, zero, b)) if dtype.startswith("int") \
            else tirx.Cast("float64", b)
        plain = tirx.Cast(dtype, tirx.pow(tirx.Cast("float64", a), exponent))
        if not dtype.startswith("int"):  # unsigned: no negative exponent
            return plain
        odd = tirx.floormod(b, tirx.const(2, dtype)) != zero
        minus_one = tirx.Select(odd, tirx.const(-1, dtype), one)
        fraction = tirx.Select(a == one, one, tirx.Select(a == tirx.const(-1, dtype), minus_one, tirx.Select(
            a == zero, tirx.const(indefinite(np.dtype(dtype)), dtype), zero)))
        return tirx.Select(b < zero, fraction, plain)

    return te.compute(x.shape, at, name="int_power")


def lower_pow(ctx: LowerContext, x, y):
    """Pow: floats (and bools) as ``binary(float_only=True)``, integers by :func:`_int_power`."""
    (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
    if dtype.kind not in "iu":
        return _float_power(ctx, x, y)
    bb = ctx.bb
    x, y = emit(bb, cast(x, xs.dtype, dtype)), emit(bb, cast(y, ys.dtype, dtype))
    shape = list(ctx.out_specs[0].shape)
    x = x if tuple(xs.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(x, shape))
    y = y if tuple(ys.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(y, shape))
    return bb.call_te(_int_power, x, y, primfunc_name_hint="int_power")


# -- NaN propagates through max/min/ReLU, as in NumPy (and so PyNative) ----------------------
# TIR's max/min become LLVM compares whose NaN result depends on the operand order (max(NaN,
# 0) is 0, max(0, NaN) NaN), so graph mode dropped NaN where PyNative kept it. These pick
# with explicit selects: the first operand where it wins or is NaN, else the second (which
# is then NaN if it is one). Integers and bools keep TIR's max/min.


def _pick(better):
    def pick(x: te.Tensor, y: te.Tensor) -> te.Tensor:
        keep = topi.logical_or(better(x, y), topi.isnan(x))
        return topi.where(keep, x, y)

    return pick


def extremum(kind: str) -> Lowering:
    """``max`` / ``min`` (Maximum, Minimum): broadcasting, NaN-propagating for floats."""
    plain = binary(relax.op.maximum if kind == "max" else relax.op.minimum)
    better = topi.greater_equal if kind == "max" else topi.less_equal

    def lower(ctx: LowerContext, x, y):
        (xs, ys), dtype = ctx.in_specs, ctx.out_specs[0].dtype
        if dtype.kind != "f":
            return plain(ctx, x, y)
        bb = ctx.bb
        x, y = emit(bb, cast(x, xs.dtype, dtype)), emit(bb, cast(y, ys.dtype, dtype))
        # broadcast both to the output shape first: topi.where wants equal shapes
        shape = list(ctx.out_specs[0].shape)
        x = x if tuple(xs.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(x, shape))
        y = y if tuple(ys.shape) == tuple(shape) else bb.emit(relax.op.broadcast_to(y, shape))
        return bb.call_te(_pick(better), x, y, primfunc_name_hint=f"nan_{kind}imum")

    lower.__name__ = f"lower_{kind}imum"
    return lower


def lower_relu(ctx: LowerContext, x):
    """``x < 0 ? 0 : x``: NaN stays NaN (np.maximum(x, 0) in PyNative)."""
    dtype = ctx.out_specs[0].dtype
    if dtype.kind != "f":
        return relax.op.nn.relu(x)
    return ctx.bb.call_te(lambda t: te.compute(t.shape, lambda *i: tirx.Select(
        t(*i) < tirx.const(0, t.dtype), tirx.const(0, t.dtype), t(*i)), name="relu"), x,
        primfunc_name_hint="relu")
