"""bfloat16 (batched) matmul on AMX tiles, float32 accumulation: ``TDPBF16PS``.

Without it a bf16 GEMM is a float32 GEMM with casts around it (``base.float32_compute``):
slower than float32. One ``TDPBF16PS`` multiplies a 16x32 bf16 tile of ``a`` by a 32x16
tile of ``b`` into a 16x16 float32 tile (8192 multiply-adds); a 256^3 product ran at
~880 GFLOP/s on one Sapphire Rapids core, against ~100 for our float32 kernel.

Layout: ``a`` row-major ``(batch, m, k)``; ``b`` re-laid out as pairs along ``k``
(``(batch, k / 2, n, 2)``, the layout the tile multiply reads; :func:`_pack_b`, which also
transposes and zero-pads and, for a weight, runs on the float32->bf16 cast's output).
The kernel computes blocks of the output of up to 32x32, with up to four accumulator tiles
(``C``), two of ``a`` and two of ``b`` (8 tile registers): ``m``, ``n`` are padded to 16 and
``k`` to 32 with zeros (the padding adds nothing to the sums), the result cropped; a
dimension whose padded size divides by 32 takes blocks of 32. The tile configuration is per
thread, so each parallel iteration loads it. ~880 GFLOP/s was measured with 32x32 blocks at
256^3; a 16-wide block reloads its other operand twice as often.

Contract: :func:`wanted` says whether a product of these shapes goes to tiles (the target
has ``amx-bf16`` and this process may use tiles, ``runtime.amx``; shapes large enough and
not too wasteful to pad); :func:`matmul` returns the product in float32, or in bfloat16
rounded by the kernel as it stores.
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

TILE = 16  # rows of a tile; m and n are padded to multiples of it
K_STEP = 32  # bf16 per 64-byte tile row: k is padded to multiples of it
MIN_DIM = 16  # products thinner than this stay on the float32 path
MAX_PADDING = 1.5  # padded work / real work above which the float32 path is kept

_HEAD = """
@T.prim_func(private=True)
def amx_bf16_matmul(a: T.Buffer(({a_batch}, {m}, {k}), "bfloat16"),
                    b: T.Buffer(({batch}, {k2}, {n}, 2), "bfloat16"),
                    c: T.Buffer(({batch}, {m}, {n}), "{out_dtype}")):
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
        i = p % {m_blocks} * {bm}
        for j0 in range({n_blocks}):
            j = j0 * {bn}
"""
_CALL = '            T.evaluate(T.call_llvm_intrin("void", "llvm.x86.{name}", {args}))\n'


def _call(name: str, *args: str, indent: int = 0) -> str:
    return " " * indent + _CALL.format(name=name, args=", ".join(args))


def _block(bm: int, bn: int) -> tuple[list[int], list[int]]:
    """Tile offsets along rows (``a`` tiles 4, 5) and columns (``b`` tiles 6, 7) of a block."""
    return list(range(0, bm, 16)), list(range(0, bn, 16))


def _body(bm: int, bn: int, a_index: str, a_stride: int, b_stride: int, c_stride: int,
          k_blocks: int, out_dtype: str = "float32") -> str:
    rows, cols = _block(bm, bn)
    acc = {(r, c): x * len(cols) + y for x, r in enumerate(rows) for y, c in enumerate(cols)}
    text = "".join(_call("tilezero", f"T.int8({t})") for t in acc.values())
    text += f"            for k0 in range({k_blocks}):\n"
    for x, r in enumerate(rows):
        text += _call("tileloadd64", f"T.int8({4 + x})", f"T.address_of(a[{a_index}, i + {r}, k0 * 32])",
                      f"T.int64({a_stride})", indent=4)
    for y, c in enumerate(cols):
        text += _call("tileloadd64", f"T.int8({6 + y})", f"T.address_of(b[bi, k0 * 16, j + {c}, 0])",
                      f"T.int64({b_stride})", indent=4)
    for (r, c), t in acc.items():
        text += _call("tdpbf16ps", f"T.int8({t})", f"T.int8({4 + rows.index(r)})",
                      f"T.int8({6 + cols.index(c)})", indent=4)
    if out_dtype == "float32":
        for (r, c), t in acc.items():
            text += _call("tilestored64", f"T.int8({t})", f"T.address_of(c[bi, i + {r}, j + {c}])",
                          f"T.int64({c_stride})")
        return text
    # a bf16 result: the block's float32 sums through a local buffer (4 KiB at most, in L1),
    # rounded to nearest even as they are written: half the bytes to memory, no rounding pass
    for (r, c), t in acc.items():
        text += _call("tilestored64", f"T.int8({t})", f"T.address_of(sums[{r} * {bn} + {c}])",
                      f"T.int64({4 * bn})")
    text += f"            for r in range({bm}):\n"
    text += f"                for q in T.vectorized({bn}):\n"
    text += f"                    c[bi, i + r, j + q] = T.Cast(\"{out_dtype}\", sums[r * {bn} + q])\n"
    return text


def _tile(x: int) -> int:
    """The block along a dimension padded to 16: 32 (two tiles) where it divides, else 16."""
    return 32 if x % 32 == 0 else 16


@functools.cache
def kernel_source(batch: int, m: int, n: int, k: int, parallel: bool, a_batched: bool = True,
                  out_dtype: str = "float32") -> str:
    """The kernel for padded sizes (``m``, ``n`` multiples of 16, ``k`` of 32); ``a`` is
    one matrix for every batch when not ``a_batched`` (a convolution's weights); the
    product in ``out_dtype`` (float32, or bfloat16 rounded from the float32 sums)."""
    bm, bn = _tile(m), _tile(n)
    head = _HEAD.format(a_batch=batch if a_batched else 1, batch=batch, m=m, n=n, k=k, k2=k // 2,
                        m_blocks=m // bm, n_blocks=n // bn, bm=bm, bn=bn, out_dtype=out_dtype,
                        loop="parallel" if parallel else "serial")
    if out_dtype != "float32":
        head = head.replace("        for j0 in", f"        sums = T.alloc_local(({bm * bn},), \"float32\")\n"
                            "        for j0 in")
    body = _body(bm, bn, "bi" if a_batched else "0", 2 * k, 4 * n, 4 * n, k // K_STEP, out_dtype)
    return head + body + "        " + _CALL.strip().format(name="tilerelease", args="") + "\n"


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


def _padded(x: int, step: int = TILE) -> int:
    return -(-x // step) * step


def wanted(m: int, n: int, k: int) -> bool:
    if not on_amx() or min(m, n, k) < MIN_DIM:  # (on_amx first: sizes may be symbolic)
        return False
    return _padded(m) * _padded(n) * _padded(k, K_STEP) <= MAX_PADDING * m * n * k


def _pack_a(a: te.Tensor, m: int, k: int, transpose: bool, m_step: int = TILE,
            k_step: int = K_STEP) -> te.Tensor:
    """``a`` (or ``a^T``) as ``(batch, m', k')``, zero-padded (to multiples of the steps)."""
    batch = a.shape[0]

    def at(bi, i, r):
        inside = tirx.all(i < m, r < k)
        value = a[bi, r, i] if transpose else a[bi, i, r]
        return tirx.if_then_else(inside, value, tirx.const(0, a.dtype))

    return te.compute((batch, _padded(m, m_step), _padded(k, k_step)), at, name="amx_pack_a")


def _pack_b(b: te.Tensor, n: int, k: int, transpose: bool, k_step: int = K_STEP) -> te.Tensor:
    """``b`` (or ``b^T``) as ``(batch, k' / 2, n', 2)``: pairs along ``k``, zero-padded
    (``n`` to 16, ``k`` to ``k_step``)."""
    batch = b.shape[0]

    def at(bi, r2, j, pair):
        r = r2 * 2 + pair
        inside = tirx.all(j < n, r < k)
        value = b[bi, j, r] if transpose else b[bi, r, j]
        return tirx.if_then_else(inside, value, tirx.const(0, b.dtype))

    return te.compute((batch, _padded(k, k_step) // 2, _padded(n), 2), at, name="amx_pack_b")


def _rounded_for_this_use(bb: relax.BlockBuilder, x: relax.Expr) -> relax.Expr:
    """``x``; or, where ``x`` is the output of a float32 -> bfloat16 rounding kernel
    (``lowerings.base``'s ``_round_to_bfloat16``: amp's cast of a float32 master weight),
    the same rounding emitted again for this operand alone. A weight's rounding feeds two
    packs (the forward's ``b`` and the input gradient's ``b^T``): with two readers it stays
    a kernel of its own, one more pass over the weight and one more call per weight and
    step; with one, FuseOps puts it into the pack, which then reads the float32 weight."""
    value = bb.lookup_binding(x) if isinstance(x, relax.Var) else None
    if not isinstance(value, relax.Call) or not isinstance(value.op, tvm.ir.Op) \
            or value.op.name != "relax.call_tir" or not isinstance(value.args[0], relax.GlobalVar) \
            or not value.args[0].name_hint.startswith("_round_to_bfloat16"):
        return x
    return bb.emit(relax.call_tir(value.args[0], value.args[1], value.ty_args[0]))


def operands(a_shape: Sequence, b_shape: Sequence, transpose_a: bool, transpose_b: bool
             ) -> tuple[list, tuple, tuple, tuple]:
    """A batched product's shapes: (batch dims, ``a``'s last two, ``b``'s last two,
    ``(m, n, k)`` after the transposes asked)."""
    *lead, rows_a, cols_a = a_shape
    *_, rows_b, cols_b = b_shape
    m, k = (cols_a, rows_a) if transpose_a else (rows_a, cols_a)
    n = rows_b if transpose_b else cols_b
    return lead, (rows_a, cols_a), (rows_b, cols_b), (m, n, k)


def matmul(bb: relax.BlockBuilder, a: relax.Expr, b: relax.Expr, a_shape: Sequence[int],
           b_shape: Sequence[int], transpose_a: bool, transpose_b: bool,
           out_dtype: str = "float32") -> relax.Expr:
    """``a @ b`` (``a^T``, ``b^T`` as asked) of bf16 ``a``, ``b`` of the same batch shape
    (``(..., m, k)``, ``(..., k, n)`` before transposing), summed in float32 and returned
    in ``out_dtype`` (float32, or bfloat16: the sums rounded once); ``(..., m, n)``."""
    lead, (rows_a, cols_a), (rows_b, cols_b), (m, n, k) = operands(a_shape, b_shape, transpose_a, transpose_b)
    batch = math.prod(lead)
    a3 = bb.emit(relax.op.reshape(a, [batch, rows_a, cols_a]))
    mp, np_, kp = _padded(m), _padded(n), _padded(k, K_STEP)
    if (mp, kp) != (m, k):
        pa = bb.emit_te(_pack_a, a3, m, k, transpose_a)
    elif transpose_a:  # a plain transpose: the CPU rules' cache-blocked transpose schedules it
        pa = bb.emit(relax.op.permute_dims(a3, [0, 2, 1]))
    else:
        pa = a3
    pb = bb.emit_te(_pack_b, bb.emit(relax.op.reshape(_rounded_for_this_use(bb, b), [batch, rows_b, cols_b])),
                    n, k, transpose_b)
    parallel = batch * (mp // _tile(mp)) > 1
    gv = bb.add_func(tvm.script.from_source(kernel_source(batch, mp, np_, kp, parallel,
                                                          out_dtype=out_dtype)), "amx_bf16_matmul")
    out = bb.emit(relax.call_tir(gv, [pa, pb], relax.TensorType([batch, mp, np_], out_dtype)))
    if (mp, np_) != (m, n):
        out = bb.emit(relax.op.strided_slice(out, [1, 2], [0, 0], [m, n]))
    return relax.op.reshape(out, [*lead, m, n])
