"""bfloat16 (batched) matmul on AVX512-BF16 (``VDPBF16PS``), float32 accumulation: the bf16
GEMM of CPUs without AMX tiles (AMD Zen 4/5, Intel Cooper Lake).

Without it a bf16 GEMM on such a CPU is a float32 GEMM with casts around it
(``base.float32_compute``), slower than float32. One ``VDPBF16PS`` adds to 16 float32 sums
the products of 16 bf16 pairs (32 multiply-adds, twice a float32 FMA's) and reads half the
bytes; it is emitted through
:mod:`.avx512_bf16`'s shim.

Layout (as oneDNN's ``avx512_core_bf16`` GEMM): ``a`` row-major ``(batch, m, k)`` (``k``
padded to even by :func:`.amx_matmul._pack_a` only where needed), read as ``int32`` bf16
pairs along ``k``; or, for ``a^T`` (a weight gradient's activations), ``a`` as it is stored,
``(batch, k, m)``, its rows zipped in pairs into words ``(batch, k / 2, m)`` (:func:`words`:
no transpose, which gathered 16-bit lanes one by one: 4-10x the zip's time). ``b`` as words
of pairs along ``k``, ``(batch, k / 2, n')`` ``int32`` with ``n`` padded to 16
(:func:`words`; for an amp weight it reads the float32 master and rounds it itself). A word
holds the even element of a pair in its low half. A
register block of ``rows x 16 * vectors`` float32 sums (at most :data:`ACCUMULATORS` zmm)
runs the ``k`` pairs innermost: per pair, ``vectors`` loads of ``b`` and, per row, one
``a`` pair broadcast as an int32 to 16 lanes (~90% of the instruction's peak on a Zen 5
core: ~440 GFLOP/s, our float32 kernel ~230). Work units, run in parallel: a column block of
``b`` against a group of row blocks (:func:`kernel_source`). The last row block and the last
column block may be narrower (no padding of ``m``), and a last partial vector of ``n`` is
stored element by element (no crop of the result).

Contract: :func:`wanted` says whether a product of these shapes goes to this kernel (the
target has ``avx512bf16``; ``n`` and ``k`` large enough and not too wasteful to pad);
:func:`matmul` returns ``(..., m, n)`` in float32, or in bfloat16 rounded to nearest even
once, from the float32 sums, as it stores.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence

import numpy as np
import tvm
from tvm import relax, te, tirx

from . import amx_matmul as am
from . import avx512_bf16 as isa

LANES = 16  # float32 sums per zmm register
ACCUMULATORS = 16  # zmm sums of a register block (of 32: the rest hold b's vectors and a's pairs;
# 24 left too few for LLVM's unrolled loop, which spilled two: 16 measured 5-10% faster on Zen 4)
MAX_VECTORS = 4  # zmm columns of a block (64 columns)
MAX_ROWS = 8  # rows of a block (12 rows of 2 vectors measured slower)
MIN_DIM = 16  # n, k thinner than this stay on the float32 path
MAX_PADDING = 1.5  # padded work / real work above which the float32 path is kept
TASKS_PER_CORE = 4  # parallel iterations per thread at most
GROUP_BYTES = 64 * 1024  # rows of a that a column block of b meets in turn (L2)


def _shape(n_vectors: int) -> tuple[int, int]:
    """Register block (rows, vectors) for ``n_vectors`` zmm columns of ``b``."""
    vectors = min(MAX_VECTORS, n_vectors)
    return min(MAX_ROWS, ACCUMULATORS // vectors), vectors


def rounded_bits(value: tirx.PrimExpr) -> tirx.PrimExpr:
    """A float32 value's bits rounded to nearest even at bit 16 (uint32): the high half is the
    bfloat16 of ``value`` (as ml_dtypes rounds; a NaN stays a quiet NaN)."""
    bits = tirx.reinterpret("uint32", value)
    odd = tirx.bitwise_and(tirx.shift_right(bits, tirx.const(16, "uint32")), tirx.const(1, "uint32"))
    return tirx.Select(tirx.isnan(value), tirx.bitwise_or(bits, tirx.const(0x00400000, "uint32")),
                       bits + tirx.const(0x7FFF, "uint32") + odd)


def words(x: te.Tensor, pairs: int, cols: int, transpose: bool, cols_pad: int | None = None
          ) -> te.Tensor:
    """``x (batch, pairs', cols)`` (``transpose``: ``(batch, cols, pairs')``), bf16 or float32
    (an amp weight's master, rounded here), as bf16 ``int32`` words ``(batch, ceil(pairs' / 2),
    cols_pad)``: word ``[bi, r2, j]`` holds elements ``2 r2`` (low half) and ``2 r2 + 1`` of
    the pair axis at column ``j``; zero past the pair axis' ``pairs`` elements and past
    ``cols``. Untransposed, a vector of words is two row loads, a shift and an or."""
    batch = x.shape[0]
    cols_pad = cols if cols_pad is None else cols_pad
    high = tirx.const(0xFFFF0000, "uint32")

    def half(r, j, bi):  # the element's bf16 bits in the high half of a uint32
        value = x[bi, j, r] if transpose else x[bi, r, j]
        if x.dtype == "float32":
            bits = tirx.bitwise_and(rounded_bits(value), high)
        else:
            bits = tirx.Cast("uint32", tirx.reinterpret("uint16", value)) << tirx.const(16, "uint32")
        return tirx.if_then_else(tirx.all(r < pairs, j < cols), bits, tirx.const(0, "uint32"))

    def at(bi, r2, j):
        low = tirx.shift_right(half(2 * r2, j, bi), tirx.const(16, "uint32"))
        return tirx.reinterpret("int32", tirx.bitwise_or(low, half(2 * r2 + 1, j, bi)))

    return te.compute((batch, -(-pairs // 2), cols_pad), at, name="bf16_words")


def _float32_master(bb: relax.BlockBuilder, x: relax.Expr) -> relax.Expr:
    """The float32 input of the rounding kernel whose output ``x`` is (amp's cast of a float32
    master weight, ``lowerings.base._round_to_bfloat16``), else ``x``: :func:`words` rounds
    it itself, and FuseOps puts the master's reading into the words kernel."""
    value = bb.lookup_binding(x) if isinstance(x, relax.Var) else None
    if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) \
            and value.op.name == "relax.call_tir" and isinstance(value.args[0], relax.GlobalVar) \
            and value.args[0].name_hint.startswith("_round_to_bfloat16"):
        return value.args[1].fields[0]
    return x


def _block(rows: int, vectors: int, n: int, j: str, a_index: str, out_dtype: str,
           indent: int, panel: bool = False) -> str:
    """TVMScript for one register block: rows ``i ..``, columns ``j ..`` (``vectors`` zmm
    wide; the last one partial where it passes ``n``, whose offset ``j`` then is constant)."""
    pad = " " * indent
    text, buffers = isa.register_sums(rows * vectors, indent)
    acc = [f"{name}[T.Ramp(0, 1, {LANES})]" for name in buffers]
    text += "".join(pad + f"{sums} = T.Broadcast(T.float32(0), {LANES})\n" for sums in acc)
    text += pad + "for r in range(k2):\n"
    for y in range(vectors):
        b = f"bp[r, T.Ramp({y * LANES}, 1, {LANES})]" if panel else \
            f"b[bi, r, T.Ramp({j} + {y * LANES}, 1, {LANES})]"
        text += pad + f"    b{y} = {b}\n"
    for x in range(rows):
        at = a_index.replace("ROW", f"i + {x}")  # "bi, ROW, r" or, a^T as words, "bi, r, ROW"
        text += pad + f"    a{x} = T.Broadcast(a[{at}], {LANES})\n"
        for y in range(vectors):
            sums = acc[x * vectors + y]
            text += pad + f"    {sums} = {isa.dot_call(sums, f'a{x}', f'b{y}')}\n"
    for x in range(rows):
        for y in range(vectors):
            t = x * vectors + y
            left = n - int(j) - y * LANES if j.isdigit() else LANES
            if left >= LANES:
                text += pad + (f"c[bi, i + {x}, T.Ramp({j} + {y * LANES}, 1, {LANES})] = "
                               f"T.Cast(\"{out_dtype}x{LANES}\", {acc[t]})\n")
            else:  # the last columns of n
                text += pad + f"for q in T.unroll({left}):\n"
                text += pad + (f"    c[bi, i + {x}, {j} + {y * LANES} + q] = "
                               f"T.Cast(\"{out_dtype}\", {buffers[t]}[q])\n")
    return text


def _columns(rows: int, vectors: int, n: int, n_pad: int, a_index: str, out_dtype: str,
             indent: int, panel: bool = False) -> tuple[str, int]:
    """The block of rows ``i .. i + rows`` and column block ``jb``; the number of column
    blocks (the last one narrower, or holding the partial vector, where ``n`` asks)."""
    full, tail = divmod(n_pad // LANES, vectors)
    if n < n_pad and tail == 0:  # the last full block holds the partial vector
        full, tail = full - 1, vectors
    if not tail:
        return _block(rows, vectors, n, f"jb * {vectors * LANES}", a_index, out_dtype, indent, panel), full
    last = _block(rows, tail, n, str(full * vectors * LANES), a_index, out_dtype, indent + 4, panel)
    if not full:
        return _block(rows, tail, n, "0", a_index, out_dtype, indent, panel), 1
    pad = " " * indent
    return (pad + f"if jb < {full}:\n"
            + _block(rows, vectors, n, f"jb * {vectors * LANES}", a_index, out_dtype, indent + 4, panel)
            + pad + "else:\n" + last, full + 1)


def _zip_panel(k2: int, vectors: int, n: int, indent: int) -> str:
    """TVMScript that zips column block ``jb`` of a row-major bf16 ``b`` (``b16``, its bits)
    into the panel ``bp (k2, 16 * vectors)`` of words, as :func:`words` would (``n`` a
    multiple of 16): two row loads widened, a shift and an or per vector."""
    pad, width = " " * indent, vectors * LANES
    rows = [f"T.Cast(\"int32x{LANES}\", b16[bi, 2 * r + {h}, T.Ramp(jb * {width} + y * {LANES}, 1, {LANES})])"
            for h in (0, 1)]
    return (pad + f"bp = T.alloc_buffer(({k2}, {width}), \"int32\")\n"
            + pad + f"for r in range({k2}):\n"
            + pad + f"    for y in T.unroll({vectors}):\n"
            + pad + f"        if jb * {width} + y * {LANES} < {n}:\n"
            + pad + f"            bp[r, T.Ramp(y * {LANES}, 1, {LANES})] = T.bitwise_or({rows[0]}, "
            + f"T.shift_left({rows[1]}, T.Broadcast(16, {LANES})))\n")


@functools.cache
def kernel_source(batch: int | None, m: int | None, n: int, k2: int, cores: int,
                  a_batched: bool = True, out_dtype: str = "float32", a_words: bool = False,
                  b_rows: bool = False) -> str:
    """The kernel's TVMScript: ``a (batch | 1, m, 2 * k2)`` bf16 (``a_words``: ``a^T`` as
    :func:`words`, ``(batch | 1, k2, m)`` int32), ``b (batch, k2, n')`` int32 words (``n'``:
    ``n`` padded to 16; ``b_rows``: ``b`` itself, ``(batch, 2 * k2, n)`` bf16 with ``n`` a
    multiple of 16, each unit zipping its column block into a panel of words first, so an
    activation's words never go through memory), ``c (batch, m, n)`` in ``out_dtype``;
    ``cores`` threads. ``batch`` or ``m`` None: symbolic (one kernel for every size; with
    ``m`` symbolic, its last rows run one at a time).

    Work units: a column block of ``b`` (``k2 x 64`` pairs, from L2) against a group of row
    blocks of ``a`` (:data:`GROUP_BYTES` at most), the group fastest, so that a thread's
    consecutive units share the column block. A parallel iteration (a task) runs several
    units: TVM allocates each let-bound vector from its workspace pool once per parallel
    iteration, a call each (LLVM keeps them in registers)."""
    n_pad = -(-n // LANES) * LANES
    rows, vectors = _shape(n_pad // LANES)
    # b_rows: a unit is a whole column block (zipped once), against every row block
    group = (1 << 30) if b_rows else max(1, GROUP_BYTES // (rows * k2 * 4))
    a_index = ("bi" if a_batched else "0") + (", r, ROW" if a_words else ", ROW, r")
    assert not b_rows or n % LANES == 0, "b_rows: n a multiple of 16"
    body, col_blocks = _columns(rows, vectors, n, n_pad, a_index, out_dtype, 28, b_rows)
    nb, size = ("nb" if batch is None else str(batch)), ("m" if m is None else str(m))
    if batch is None or m is None:
        tasks = TASKS_PER_CORE * cores
        if b_rows:
            group, groups = f"(({size} + {rows - 1}) // {rows})", "1"
        else:
            groups = f"((({size} + {rows - 1}) // {rows} + {group - 1}) // {group})"
        units = f"{nb} * {col_blocks} * {groups}"
        per = f"({units} + {tasks - 1}) // {tasks}"
    else:
        blocks = -(-m // rows)
        group = min(blocks, group)
        groups = -(-blocks // group)
        units = batch * col_blocks * groups
        tasks = min(units, TASKS_PER_CORE * cores)
        per = -(-units // tasks)
    u = f"(t * ({per}) + s)"
    a_batch = nb if a_batched else 1
    if a_words:  # a^T as words
        a_buffer, a_view = f'    a = T.match_buffer(a_h, ({a_batch}, {k2}, {size}), "int32")\n', ""
    else:  # a's bf16 rows, read as pairs
        a_buffer = f'    a_ = T.match_buffer(a_h, ({a_batch}, {size}, {2 * k2}), "bfloat16")\n'
        a_view = f'    a = T.decl_buffer(({a_batch}, {size}, {k2}), "int32", data=a_.data)\n'
    if b_rows:  # b's bf16 rows, zipped by the kernel
        b_buffer = f'    b_ = T.match_buffer(b_h, ({nb}, {2 * k2}, {n}), "bfloat16")\n'
        b_view = f'    b16 = T.decl_buffer(({nb}, {2 * k2}, {n}), "uint16", data=b_.data)\n'
    else:
        b_buffer, b_view = f'    b = T.match_buffer(b_h, ({nb}, {k2}, {n_pad}), "int32")\n', ""
    symbols = "".join(f"    {v} = T.int64()\n" for v, x in (("nb", batch), ("m", m)) if x is None)
    text = f"""
@T.prim_func(private=True)
def avx512_bf16_matmul(a_h: T.handle, b_h: T.handle, c_h: T.handle):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
{symbols}{a_buffer}{b_buffer}    c = T.match_buffer(c_h, ({nb}, {size}, {n}), "{out_dtype}")
{a_view}{b_view}{isa.import_attr(4)}        for t in T.{"parallel" if tasks > 1 else "serial"}({tasks}):
            for s in range({per}):
                if {u} < {units}:
                    bi = {u} // ({col_blocks} * {groups})
                    jb = {u} // {groups} % {col_blocks}
{_zip_panel(k2, vectors, n, 20) if b_rows else ""}                    for g in range({group}):
                        i = ({u} % {groups} * {group} + g) * {rows}
                        if i < {size}:
"""
    if m is None:  # the last rows (fewer than a block), one at a time
        one = _columns(1, vectors, n, n_pad, a_index, out_dtype, 36, b_rows)[0].replace("i + 0", "i + x1")
        text += " " * 28 + f"if i + {rows} <= m:\n"
        text += _columns(rows, vectors, n, n_pad, a_index, out_dtype, 32, b_rows)[0]
        text += " " * 28 + "else:\n" + " " * 32 + "for x1 in range(m - i):\n" + one
    elif m % rows:
        text += " " * 28 + f"if i + {rows} <= {m}:\n"
        text += _columns(rows, vectors, n, n_pad, a_index, out_dtype, 32, b_rows)[0]
        text += " " * 28 + "else:\n"
        text += _columns(m % rows, vectors, n, n_pad, a_index, out_dtype, 32, b_rows)[0]
    else:
        text += body
    return text.replace("range(k2)", f"range({k2})")


def _cores() -> int:
    target = tvm.target.Target.current(allow_none=True)
    cores = target.attrs.get("num-cores") if target is not None else None
    return int(cores) if cores else os.cpu_count() or 1


def wanted(m: int, n: int, k: int) -> bool:
    """Whether the target multiplies bf16 pairs faster than float32 (``isa.pays``) and these sizes pay (``m``
    may be symbolic, ``n`` and ``k`` not)."""
    if not isa.pays() or not all(isinstance(x, int | np.integer) for x in (n, k)) \
            or min(n, k) < MIN_DIM:
        return False
    return am._padded(n) * am._padded(k, 2) <= MAX_PADDING * n * k


def matmul(bb: relax.BlockBuilder, a: relax.Expr, b: relax.Expr, a_shape: Sequence[int],
           b_shape: Sequence[int], transpose_a: bool, transpose_b: bool,
           out_dtype: str = "float32") -> relax.Expr:
    """``a @ b`` (``a^T``, ``b^T`` as asked) of bf16 ``a``, ``b`` of the same batch shape
    (``(..., m, k)``, ``(..., k, n)`` before transposing), summed in float32 and returned
    in ``out_dtype`` (float32, or bfloat16: the sums rounded once); ``(..., m, n)``."""
    lead, (rows_a, cols_a), (rows_b, cols_b), (m, n, k) = am.operands(a_shape, b_shape, transpose_a,
                                                                       transpose_b)
    batch = math.prod(lead)
    static = [isinstance(x, int | np.integer) for x in (batch, m)]
    a3 = bb.emit(relax.op.reshape(a, [batch, rows_a, cols_a]))
    if transpose_a:  # a^T: a's rows zipped in pairs (any k: a last odd row pairs with 0)
        pa = bb.emit_te(words, a3, k, m, False)
    elif k % 2:
        pa = bb.emit_te(am._pack_a, a3, m, k, False, 1, 2)
    else:
        pa = a3
    master = _float32_master(bb, b)
    b3 = bb.emit(relax.op.reshape(master, [batch, rows_b, cols_b]))
    # an activation (bf16, untransposed): zipped by the kernel, column block by column block
    b_rows = master is b and not transpose_b and n % LANES == 0 and k % 2 == 0
    pb = b3 if b_rows else bb.emit_te(words, b3, k, n, transpose_b, -(-n // LANES) * LANES)
    k2 = -(-k // 2)
    source = kernel_source(*(int(x) if known else None for x, known in zip((batch, m), static)),
                           int(n), int(k2), _cores(), out_dtype=out_dtype, a_words=transpose_a,
                           b_rows=b_rows)
    gv = bb.add_func(isa.parse(source), "avx512_bf16_matmul")
    out = bb.emit(relax.call_tir(gv, [pa, pb], relax.TensorType([batch, m, n], out_dtype)))
    return relax.op.reshape(out, [*lead, m, n])
