"""bfloat16 (batched) matmul on AMX tiles, float32 accumulation: ``TDPBF16PS``.

Without it a bf16 GEMM is a float32 GEMM with casts around it (``base.float32_compute``):
slower than float32. One ``TDPBF16PS`` multiplies a 16x32 bf16 tile of ``a`` by a 32x16
tile of ``b`` into a 16x16 float32 tile (8192 multiply-adds); a 256^3 product ran at
~880 GFLOP/s on one Sapphire Rapids core, against ~100 for our float32 kernel.

Layout: ``a`` row-major ``(batch, m, k)``; ``b`` re-laid out as pairs along ``k``
(``(batch, k / 2, n, 2)``, the layout the tile multiply reads; :func:`_pack_b`, which also
transposes and zero-pads and, for a weight, runs on the float32->bf16 cast's output).
The kernel computes 32x32 blocks of the output with four accumulator tiles (``C``),
two of ``a`` and two of ``b`` (8 tile registers): ``m``, ``n`` are padded to 32 and ``k``
to 32 with zeros (the padding adds nothing to the sums), the result cropped. The tile
configuration is per thread, so each parallel iteration loads it.

Contract: :func:`wanted` says whether a product of these shapes goes to tiles (the target
has ``amx-bf16`` and this process may use tiles, ``runtime.amx``; shapes large enough and
not too wasteful to pad); :func:`matmul` returns the float32 product.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import tvm
from tvm import relax, te, tirx
from tvm.script import tirx as T  # noqa: F401  (the kernel is TVMScript)
from tvm.target import codegen

from ..runtime import amx

BLOCK = 32  # output block: 2 x 2 tiles of 16 x 16; k steps of 32 bf16 (one 64-byte tile row)
MIN_DIM = 16  # products thinner than this stay on the float32 path
MAX_PADDING = 1.5  # padded work / real work above which the float32 path is kept

_KERNEL = '''
@T.prim_func(private=True)
def amx_bf16_matmul(a: T.Buffer(({batch}, {m}, {k}), "bfloat16"),
                    b: T.Buffer(({batch}, {k2}, {n}, 2), "bfloat16"),
                    c: T.Buffer(({batch}, {m}, {n}), "float32")):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
    for p in T.{loop}({batch} * {m_blocks}):
        cfg = T.alloc_local((64,), "uint8")
        for z in range(64):
            cfg[z] = T.uint8(0)
        cfg[0] = T.uint8(1)  # palette 1
        for t in range(8):  # tiles 0-7: 16 rows of 64 bytes
            cfg[16 + 2 * t] = T.uint8(64)
            cfg[48 + t] = T.uint8(16)
        T.evaluate(T.call_llvm_intrin("void", "llvm.x86.ldtilecfg", T.address_of(cfg[0])))
        bi = p // {m_blocks}
        i = p % {m_blocks} * 32
        for j0 in range({n_blocks}):
            j = j0 * 32
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilezero", T.int8(0)))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilezero", T.int8(1)))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilezero", T.int8(2)))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilezero", T.int8(3)))
            for k0 in range({k_blocks}):
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tileloadd64", T.int8(4),
                                              T.address_of(a[bi, i, k0 * 32]), T.int64({a_stride})))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tileloadd64", T.int8(5),
                                              T.address_of(a[bi, i + 16, k0 * 32]), T.int64({a_stride})))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tileloadd64", T.int8(6),
                                              T.address_of(b[bi, k0 * 16, j, 0]), T.int64({b_stride})))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tileloadd64", T.int8(7),
                                              T.address_of(b[bi, k0 * 16, j + 16, 0]), T.int64({b_stride})))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tdpbf16ps", T.int8(0), T.int8(4), T.int8(6)))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tdpbf16ps", T.int8(1), T.int8(4), T.int8(7)))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tdpbf16ps", T.int8(2), T.int8(5), T.int8(6)))
                T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tdpbf16ps", T.int8(3), T.int8(5), T.int8(7)))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilestored64", T.int8(0),
                                          T.address_of(c[bi, i, j]), T.int64({c_stride})))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilestored64", T.int8(1),
                                          T.address_of(c[bi, i, j + 16]), T.int64({c_stride})))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilestored64", T.int8(2),
                                          T.address_of(c[bi, i + 16, j]), T.int64({c_stride})))
            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilestored64", T.int8(3),
                                          T.address_of(c[bi, i + 16, j + 16]), T.int64({c_stride})))
        T.evaluate(T.call_llvm_intrin("void", "llvm.x86.tilerelease"))
'''


@functools.cache
def kernel_source(batch: int, m: int, n: int, k: int, parallel: bool) -> str:
    """The kernel for padded sizes (``m``, ``n``, ``k`` multiples of :data:`BLOCK`)."""
    return _KERNEL.format(batch=batch, m=m, n=n, k=k, k2=k // 2, m_blocks=m // BLOCK,
                          n_blocks=n // BLOCK, k_blocks=k // BLOCK, a_stride=2 * k,
                          b_stride=4 * n, c_stride=4 * n, loop="parallel" if parallel else "serial")


def on_amx() -> bool:
    """Whether the target being lowered for multiplies bf16 tiles, and this process may."""
    target = tvm.target.Target.current(allow_none=True)
    if target is None or target.kind.name != "llvm":
        return False
    try:
        has = bool(codegen.target_has_features("amx-bf16", target))
    except Exception:  # not an x86 target
        return False
    return has and amx.amx_permitted()


def _padded(x: int) -> int:
    return -(-x // BLOCK) * BLOCK


def wanted(m: int, n: int, k: int) -> bool:
    if min(m, n, k) < MIN_DIM or not on_amx():
        return False
    return _padded(m) * _padded(n) * _padded(k) <= MAX_PADDING * m * n * k


def _pack_a(a: te.Tensor, m: int, k: int, transpose: bool) -> te.Tensor:
    """``a`` (or ``a^T``) as ``(batch, m', k')``, zero-padded."""
    batch = a.shape[0]

    def at(bi, i, r):
        inside = tirx.all(i < m, r < k)
        value = a[bi, r, i] if transpose else a[bi, i, r]
        return tirx.if_then_else(inside, value, tirx.const(0, a.dtype))

    return te.compute((batch, _padded(m), _padded(k)), at, name="amx_pack_a")


def _pack_b(b: te.Tensor, n: int, k: int, transpose: bool) -> te.Tensor:
    """``b`` (or ``b^T``) as ``(batch, k' / 2, n', 2)``: pairs along ``k``, zero-padded."""
    batch = b.shape[0]

    def at(bi, r2, j, pair):
        r = r2 * 2 + pair
        inside = tirx.all(j < n, r < k)
        value = b[bi, j, r] if transpose else b[bi, r, j]
        return tirx.if_then_else(inside, value, tirx.const(0, b.dtype))

    return te.compute((batch, _padded(k) // 2, _padded(n), 2), at, name="amx_pack_b")


def matmul(bb: relax.BlockBuilder, a: relax.Expr, b: relax.Expr, a_shape: Sequence[int],
           b_shape: Sequence[int], transpose_a: bool, transpose_b: bool) -> relax.Expr:
    """float32 ``a @ b`` (``a^T``, ``b^T`` as asked) of bf16 ``a``, ``b`` of the same batch
    shape (``(..., m, k)``, ``(..., k, n)`` before transposing); ``(..., m, n)``."""
    *lead, rows_a, cols_a = a_shape
    *_, rows_b, cols_b = b_shape
    m, k = (cols_a, rows_a) if transpose_a else (rows_a, cols_a)
    n = rows_b if transpose_b else cols_b
    batch = math.prod(lead)
    a3 = bb.emit(relax.op.reshape(a, [batch, rows_a, cols_a]))
    b3 = bb.emit(relax.op.reshape(b, [batch, rows_b, cols_b]))
    pa = bb.emit_te(_pack_a, a3, m, k, transpose_a) \
        if transpose_a or _padded(m) != m or _padded(k) != k else a3
    pb = bb.emit_te(_pack_b, b3, n, k, transpose_b)
    mp, np_, kp = _padded(m), _padded(n), _padded(k)
    parallel = batch * (mp // BLOCK) > 1
    gv = bb.add_func(tvm.script.from_source(kernel_source(batch, mp, np_, kp, parallel)),
                     "amx_bf16_matmul")
    out = bb.emit(relax.call_tir(gv, [pa, pb], relax.TensorType([batch, mp, np_], "float32")))
    if (mp, np_) != (m, n):
        out = bb.emit(relax.op.strided_slice(out, [1, 2], [0, 0], [m, n]))
    return relax.op.reshape(out, [*lead, m, n])
