"""``a^T b`` over a long reduction: cache blocking for a matmul that reads ``a`` down columns.

MatMul lowers ``a^T b`` (``a``: K x M, ``b``: K x N) to one kernel reading ``a`` in place
(:func:`..lower.lowerings.nn.lower_matmul`). The default register tile of :mod:`.cpu_rules`
(``S0 R S2``) walks the whole reduction under every output tile: every step of it reads
one line of ``a`` a row (often a page) further on, and each column block of ``a`` is read
again for every tile of ``b``'s columns. For an LSTM's input weight gradient, (2048,
1024)^T (2048, 256), that ran at 28 ms on one core. Here the reduction is blocked
(``KB`` rows) under a chunk of ``CHUNK`` output rows whose sums stay in a cache-resident
buffer; each block of ``a`` is first packed contiguously, then every tile of ``b``'s
columns and of the chunk's rows reads it from L1: 7-8 ms. With 32 registers the tile is 4
rows x 4 vectors (8 loads per 16 FMAs, was 16 rows x 1 vector: 17): 5.5 -> 4.8 ms.

Contract: :func:`wants` is True only for a 2-D contraction ``C[i, j] += A[k, i] * B[k, j]``
(iterators S i, S j, R k in that loop order; ``A`` unit-stride in ``i``, ``B`` in ``j``)
without fused consumers, with K >= ``MIN_K`` and ``A`` of at least ``MIN_BYTES``; short
reductions (a per-step weight gradient over a batch of 32) keep the default tile, which is
faster there. :func:`schedule` then schedules the block completely.
"""

from __future__ import annotations

import tvm
from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

MIN_K = 256  # reduction length from which blocking pays (measured: at K=32 it loses ~10%)
MIN_BYTES = 1 << 20  # float32 bytes of ``a`` from which it pays (beyond L2 per core)
KB = 32  # reduction rows per block (the packed block of ``a``: KB x CHUNK floats)
CHUNK = 256  # output rows per parallel chunk (its sums: CHUNK x N floats)
WIDE_VECTORS = 4  # vectors per tile row where 16+ registers allow (4 rows x 4 vectors)


def _stride_one(read, var) -> bool:
    coef, _ = tvm.sym.detect_linear_equation(read.region[-1].min, [var]) or (None, None)
    return isinstance(coef, tirx.IntImm) and int(coef) == 1


def wants(sch: Schedule, block, axes) -> bool:
    if "".join(k for k, _, _ in axes) != "SSR" or sch.get_consumers(block) or sch.get_producers(block):
        return False
    (_, m, i), (_, n, j), (_, k, r) = axes
    stmt = sch.get(block)
    reads = [x for x in stmt.reads if not any(x.source.same_as(w.source) for w in stmt.writes)]
    if len(reads) != 2 or k < MIN_K or k * m * 4 < MIN_BYTES:
        return False
    a, b = reads
    used = [ta.vars_in([rg.min for rg in x.region]) for x in reads]
    return (used[0] == {r, i} and used[1] == {r, j} and len(a.region) == 2 and len(b.region) == 2
            and _stride_one(a, i) and _stride_one(b, j) and not _stride_one(a, r))


def schedule(sch: Schedule, block, axes, vector: int, register_vectors: int, unroll: int,
             min_parallel_work: int) -> None:
    """``i00 k0 j0 i01 k1 i1 j1``: chunks of rows (parallel), reduction blocks, then a
    register tile (``i1`` unrolled x ``j1`` one or four vectors) over the packed block of ``a``."""
    (_, m, _), (_, n, _), (_, k, _) = axes
    wide = WIDE_VECTORS if register_vectors >= 16 and n % (WIDE_VECTORS * vector) == 0 else 1
    tj = wide * vector if n % vector == 0 else ta.divisor_at_most(n, vector)
    ti = ta.divisor_at_most(m, register_vectors // wide)
    chunk = ti * ta.divisor_at_most(m // ti, max(1, CHUNK // ti))
    i, j, r = sch.get_loops(block)
    i00, i01, i1 = sch.split(i, [None, chunk // ti, ti])
    j0, j1 = sch.split(j, [None, tj])
    k0, k1 = sch.split(r, [None, ta.divisor_at_most(k, KB)])
    sch.reorder(i00, k0, j0, i01, k1, i1, j1)
    sums = sch.cache_write(block, 0, "local")
    sch.reverse_compute_at(sums, i00, preserve_unit_loops=True)
    packed = sch.cache_read(block, 0, "local")
    sch.compute_at(packed, k0, preserve_unit_loops=True)
    sch.vectorize(sch.get_loops(packed)[-1])
    if ta.work(axes) >= min_parallel_work and m // chunk > 1:
        sch.parallel(i00)
    sch.annotate(i01, "pragma_auto_unroll_max_step", unroll)
    sch.annotate(i01, "pragma_unroll_explicit", 1)
    sch.vectorize(j1)
    init = sch.decompose_reduction(block, k0)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.vectorize(sch.get_loops(sums)[-1])
