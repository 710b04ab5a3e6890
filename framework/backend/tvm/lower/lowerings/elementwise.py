"""Elementwise primitives: arithmetic, comparisons, select, casts, unary math."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tvm import relax, te, tirx, topi

from .base import LowerContext, Lowering, cast, cast_emit, emit


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
# integer floor division/modulo never divide by 0: ``//`` by zero gives MindSpore's CPU
# result (the dtype's max for x > 0, its min for x < 0, 0 for 0), ``%`` by zero 0 (NumPy's),
# the same as the PyNative kernels (framework/ops/elementwise.py).

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


def _int_floor_div(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Integer ``x // y`` (same shapes); by zero as MindSpore's CPU kernel: the dtype's
    largest value for x > 0, its smallest for x < 0, 0 for 0."""
    info = np.iinfo(str(x.dtype))
    zero = tirx.const(0, x.dtype)

    def at(*i):
        a, b = x(*i), y(*i)
        quotient = tirx.floordiv(a, tirx.Select(b == zero, tirx.const(1, x.dtype), b))
        by_zero = tirx.Select(a > zero, tirx.const(int(info.max), x.dtype),
                              tirx.Select(a < zero, tirx.const(int(info.min), x.dtype), zero))
        return tirx.Select(b == zero, by_zero, quotient)

    return te.compute(x.shape, at, name="floor_divide")


def _int_floor_mod(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """Integer ``x % y`` (same shapes), 0 where ``y`` is 0 (NumPy's value)."""
    zero = tirx.const(0, x.dtype)
    return te.compute(x.shape, lambda *i: tirx.Select(
        y(*i) == zero, zero, tirx.floormod(x(*i), tirx.Select(y(*i) == zero, tirx.const(1, x.dtype),
                                                               y(*i)))), name="floor_mod")


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
