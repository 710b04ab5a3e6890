"""What every lowering shares: the call context and small Relax helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tvm
from tvm import relax, te, tirx

from .....dtype import BFLOAT16_NP, is_float, is_low_float
from .....ir.symbolic import NotSymbolic
from .....primitive import Primitive, Spec
from .. import amx_matmul, avx512_bf16_matmul
from ..lower_target import on_cpu  # noqa: F401  (re-exported: the lowerings read it here)

Lowering = Callable[..., Any]


@dataclass(frozen=True)
class LowerContext:
    """What a lowering knows besides its Relax arguments.

    ``prim`` carries the attributes, ``bb`` is the :class:`relax.BlockBuilder` (inside a
    dataflow block), ``in_specs``/``out_specs`` are the IR node's input and output Specs
    (for a ``host_random`` primitive, ``in_specs`` ends with the host-drawn mask).
    """

    prim: Primitive
    bb: relax.BlockBuilder
    in_specs: tuple[Spec, ...]
    out_specs: tuple[Spec, ...]


@dataclass(frozen=True)
class AtUse:
    """A lowering's output to be emitted where it is first used, not where it is made: a
    cheap copy (a row slice of a big tensor) then runs next to its reader, on rows still
    in the cache, instead of all at once, long before (relax_builder emits it)."""

    expr: relax.Expr


def spec_of(expr: relax.Expr) -> Spec:
    """Static shape and NumPy dtype of an emitted (normalized) Relax tensor value."""
    ty = expr.ty
    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        raise TypeError(f"expected a tensor with a static shape, got {ty}")
    return Spec(tuple(int(d) for d in ty.shape.values), np.dtype(str(ty.dtype)))


def const(value: float | int | bool, dtype: Any) -> relax.Expr:
    """A rank-0 constant of ``dtype`` (rounded like NumPy's ``dtype.type(value)``)."""
    dtype = np.dtype(dtype)
    return relax.const(dtype.type(value).item(), dtype.name)


def reciprocal_count(bb: relax.BlockBuilder, dims: Sequence[Any], dtype: Any) -> relax.Expr:
    """``1 / prod(dims)`` as a rank-0 constant of ``dtype`` (``inf`` for no entries); with a
    symbolic dimension (a TIR expression, framework/ir/symbolic.py) computed at run time,
    in float64 as the constant would be."""
    if all(isinstance(d, int) for d in dims):
        n = int(np.prod(dims, dtype=np.int64))
        return const(1.0 / n if n else np.inf, dtype)
    total = tirx.IntImm("int64", 1)
    for d in dims:
        total = total * d
    name = np.dtype(dtype).name

    def compute(count: Any) -> te.Tensor:  # passed as an argument: TVM binds its variable
        return te.compute((), lambda: (tirx.const(1.0, "float64") / count.astype("float64")).astype(name),
                          name="reciprocal_count")

    return bb.emit(bb.call_te(compute, total))


def cast(x: relax.Expr, src: Any, dst: Any) -> relax.Expr:
    """Cast ``x``, whose dtype is ``src``, to ``dst``; a no-op if they are the same.

    Same rules as NumPy's ``astype``: float -> int truncates toward zero, to bool is ``!= 0``
    (0.5 -> True).
    """
    dst = np.dtype(dst)
    if np.dtype(src) == dst:
        return x
    return relax.op.astype(x, dst.name)


def _round_to_bfloat16(x: te.Tensor) -> te.Tensor:
    """float32 -> bfloat16, rounded to nearest even in the float32 bits first: TVM keeps
    bfloat16 values of a fused kernel in float32 and drops a cast to bfloat16 and back, which
    would skip the rounding PyNative (ml_dtypes) does; a rounded value survives that."""

    def at(*i):
        v = x(*i)
        up = avx512_bf16_matmul.rounded_bits(v)
        kept = tirx.reinterpret("float32", tirx.bitwise_and(up, tirx.const(0xFFFF0000, "uint32")))
        return tirx.Cast("bfloat16", tirx.Select(tirx.isnan(v), v, kept))

    return te.compute(x.shape, at, name="round_bf16")


def cast_emit(bb: relax.BlockBuilder, x: relax.Expr, src: Any, dst: Any) -> relax.Expr:
    """:func:`cast` where a builder is at hand: a cast to bfloat16 rounds explicitly
    (:func:`_round_to_bfloat16`)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if dst != BFLOAT16_NP or src == dst or not is_float(src):
        return cast(x, src, dst)
    wide = emit(bb, cast(x, src, np.float32))
    return bb.call_te(_round_to_bfloat16, wide)


def float32_compute(lower: Lowering) -> Lowering:
    """A lowering whose float16/bfloat16 inputs are computed in float32 (a GEMM, convolution,
    reduction or normalization: float32 accumulation) and whose low-precision outputs are
    rounded back: ``lower`` sees float32 Specs; the casts fuse into the neighbouring kernels.
    The NumPy kernels do the same (``ops._utils.float32_accumulation``).

    The result is cast back plainly (not :func:`cast_emit`'s explicit rounding): where it
    is stored, TVM's bfloat16 store rounds to nearest even (as ml_dtypes); inside a fused
    kernel TVM keeps it in float32, so a chain of elementwise ops (a GeLU's gradient) is
    float32 arithmetic in registers with bfloat16 only in memory. Rounding every op
    explicitly, as PyNative does, made such a chain 4x slower than in float32. float16 on
    the CPU keeps PyNative's (and MindSpore's) rounding of every op's result: the round trip
    is two F16C vector conversions in registers, and graph mode equals PyNative exactly."""

    def wrapped(ctx: LowerContext, *args):
        if not any(is_low_float(np.dtype(s.dtype)) for s in ctx.in_specs):
            return lower(ctx, *args)
        f32 = np.dtype(np.float32)

        def wide(spec: Spec) -> Spec:
            return Spec(spec.shape, f32) if is_low_float(np.dtype(spec.dtype)) else spec

        args = [emit(ctx.bb, cast(a, s.dtype, wide(s).dtype)) for a, s in zip(args, ctx.in_specs)]
        inner = LowerContext(ctx.prim, ctx.bb, tuple(map(wide, ctx.in_specs)),
                             tuple(map(wide, ctx.out_specs)))
        out = lower(inner, *args)
        outs = out if isinstance(out, tuple) else (out,)
        back = tuple(emit(ctx.bb, cast(emit(ctx.bb, o), w.dtype, s.dtype))
                     for o, w, s in zip(outs, inner.out_specs, ctx.out_specs))
        return back if isinstance(out, tuple) else back[0]

    wrapped.__name__ = getattr(lower, "__name__", "lower")
    return wrapped


def bf16_tiles(lower: Lowering) -> Lowering:
    """A (batched) matmul lowering that multiplies bfloat16 operands on AMX tiles where the
    target has them (:mod:`..amx_matmul`: bf16 products, float32 sums, the result rounded
    to bfloat16 as the NumPy kernel's; static sizes: a symbolic one compiles per size, as
    VDPBF16PS on an Intel core is no faster than float32 FMAs), else with AVX512-BF16 pair
    dot products (:mod:`..avx512_bf16_matmul`, the same contract); otherwise
    ``float32_compute(lower)``."""
    wide = float32_compute(lower)

    def wrapped(ctx: LowerContext, a, b):
        (sa, sb), out = ctx.in_specs, ctx.out_specs[0]
        if sa.dtype == sb.dtype == BFLOAT16_NP and sa.shape[:-2] == sb.shape[:-2]:
            ta = bool(getattr(ctx.prim, "transpose_a", False))
            tb = bool(getattr(ctx.prim, "transpose_b", False))
            m, k = sa.shape[-2:][::-1] if ta else sa.shape[-2:]
            n = sb.shape[-2] if tb else sb.shape[-1]
            static = all(isinstance(d, int | np.integer) for d in (*sa.shape, *sb.shape))
            if amx_matmul.on_amx() and not static:
                raise NotSymbolic(f"{ctx.prim.name}: bf16 matmuls on AMX tiles take static sizes")
            kernel = next((km for km in (amx_matmul, avx512_bf16_matmul) if km.wanted(m, n, k)), None)
            if kernel is not None:
                low = np.dtype(out.dtype) == BFLOAT16_NP  # rounded in the kernel, as it stores
                product = kernel.matmul(ctx.bb, a, b, sa.shape, sb.shape, ta, tb,
                                        "bfloat16" if low else "float32")
                return product if low else cast(emit(ctx.bb, product), np.float32, out.dtype)
        return wide(ctx, a, b)

    wrapped.__name__ = getattr(lower, "__name__", "lower")
    wrapped.native_low_float = True  # lower_node: no float32_compute around it
    return wrapped


def emit(bb: relax.BlockBuilder, expr: relax.Expr | AtUse) -> relax.Expr:
    """Emit ``expr`` (an :class:`AtUse`'s expression: now) unless it is already a bound
    value (a var or a constant)."""
    if isinstance(expr, AtUse):
        expr = expr.expr
    if isinstance(expr, relax.Var | tvm.ir.expr.Constant):
        return expr
    return bb.emit(expr)


def hw_padding(pads: Sequence[int]) -> tuple[int, int, int, int]:
    """Our (top, bottom, left, right) as Relax's (top, left, bottom, right)."""
    top, bottom, left, right = (int(p) for p in pads)
    return top, left, bottom, right


def crop(x: relax.Expr, shape: Sequence[int], begin: Sequence[int],
         size: Sequence[int]) -> relax.Expr:
    """``x[b0:b0+s0, ...]`` over all axes of ``x`` (of ``shape``); a no-op when it is the
    whole tensor."""
    if tuple(size) == tuple(shape) and not any(begin):
        return x
    axes = list(range(len(shape)))
    return relax.op.strided_slice(x, axes, [int(b) for b in begin],
                                  [int(b) + int(s) for b, s in zip(begin, size)],
                                  assume_inbound=True)
