"""``a b`` with a long ``a``: a register tile two vectors wide over a packed panel of ``b``.

The default register tile of :mod:`.cpu_rules` is one vector of columns by 16 rows: every
step of the reduction loads one vector of ``b`` and broadcasts 16 scalars of ``a``, 17 loads
for 16 FMAs, so the loads bound it (an LSTM's input gradient, (2048, 1024) @ (1024, 256):
~8 ms on one core, ~130 GFLOP/s). Here the tile is ``ROWS`` rows by two vectors: 8
broadcasts and 2 vector loads for 16 FMAs. Columns of ``b`` then come in panels of
``K x 2 vectors`` read down rows of ``b``; when ``b``'s rows are a page long (1024 floats)
every row of the panel falls in the same L1 set, so the panel is packed contiguously once
per column block (``j0``, the outer and parallel loop) and every row tile of ``a`` under it
reads it from L1. Measured on one Zen 5 core: (2048, 1024) @ (1024, 256) 8.3 -> 4.0 ms,
(2048, 256) @ (256, 1024) + bias 6.2 -> 4.0 ms, the per-step (32, 1024) @ (1024, 256) + add
0.15 -> 0.09 ms.

Contract: :func:`wants` is True only for a 2-D contraction ``C[i, j] += A[i, k] * B[k, j]``
(iterators S i, S j, R k in that order; ``B`` unit-stride in ``j``; no producer left
un-inlined) whose sizes divide the tile (the reduction's may be symbolic), with at least
``MIN_ROW_TILES`` row tiles to share a packed panel, or with rows of ``b`` shorter than a
page (then without packing). Rows of a symbolic count (a batch; ``b`` in panels, which
``pad_einsum`` cannot pad) are split with a predicate that :mod:`.row_tails` peels into
whole tiles and a tail. Elementwise
consumers (bias, the fused add) are computed per tile. :func:`schedule` schedules the block
and its consumers completely.
"""

from __future__ import annotations

import tvm
from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

ROWS = 8  # rows of the register tile (x 2 vectors: 16 of the 32 AVX-512 registers)
MIN_ROW_TILES = 8  # row tiles under one packed panel from which packing pays
PAGE_FLOATS = 1024  # float32 per 4 KiB: rows of b this long alias in the L1 sets
KSTEP = 8  # reduction steps unrolled with the tile


def _stride_one(read, var) -> bool:
    coef, _ = tvm.sym.detect_linear_equation(read.region[-1].min, [var]) or (None, None)
    return isinstance(coef, tirx.IntImm) and int(coef) == 1


def _is_panels(read, j_var, r_var, width: int) -> bool:
    """``read`` is ``b[j / width, k, j % width]`` (``b^T`` stored in panels of ``width``
    columns, lowerings.nn): the register tile's two vectors are one contiguous panel row."""
    if len(read.region) != 3:
        return False
    mins = [rg.min for rg in read.region]
    want = [tirx.floordiv(j_var, width), r_var, tirx.floormod(j_var, width)]
    analyzer = tvm.sym.Analyzer()
    return all(analyzer.can_prove_equal(x, y) for x, y in zip(mins, want))


def _operands(sch: Schedule, block):
    stmt = sch.get(block)
    return [x for x in stmt.reads if not any(x.source.same_as(w.source) for w in stmt.writes)]


def wants(sch: Schedule, block, axes, vector: int) -> bool:
    if "".join(k for k, _, _ in axes) != "SSR" or sch.get_producers(block):
        return False
    (_, m, i), (_, n, j), (_, _, r) = axes
    reads = _operands(sch, block)
    if len(reads) != 2 or n % (2 * vector) or m % ROWS:
        return False
    used = [ta.vars_in([rg.min for rg in x.region]) for x in reads]
    if sorted(map(len, used)) != [2, 2] or {r, i} not in used or {r, j} not in used:
        return False
    b = reads[used.index({r, j})]
    if _is_panels(b, j, r, 2 * vector):
        return True
    if len(b.region) != 2 or not _stride_one(b, j):
        return False
    return m // ROWS >= MIN_ROW_TILES or n < PAGE_FLOATS


def schedule(sch: Schedule, block, axes, vector: int, unroll: int, min_parallel_work: int) -> None:
    """``j0 [pack] i0 k0 k1 i1 j1``: column blocks (parallel), the packed panel of ``b``,
    row tiles, then the register tile (``i1`` unrolled x ``j1`` two vectors)."""
    (_, m, i_var), (_, n, j_var), (_, k, r_var) = axes
    reads = _operands(sch, block)
    used = [ta.vars_in([rg.min for rg in x.region]) for x in reads]
    b_index = [idx for idx, x in enumerate(sch.get(block).reads)
               if x.source.same_as(reads[used.index({r_var, j_var})].source)][0]
    width = 2 * vector
    if len(sch.get(block).reads[b_index].region) == 3:  # b^T in panels: iterate j as (j0, j1)
        sch.transform_block_layout(block, lambda i, j, k: (i, j // width, j % width, k))
        i, j0, j1, r = sch.get_loops(block)
    else:
        i, j, r = sch.get_loops(block)
        j0, j1 = sch.split(j, [None, width])
    i0, i1 = sch.split(i, [None, ROWS])
    # a symbolic reduction (framework/ir/symbolic.py): a split with a predicate, outside the
    # register tile's vector (the GPT's weight gradients, K = 768: as fast as the static
    # kernel; unsplit, 1.25x slower)
    k0, k1 = sch.split(r, [None, ta.divisor_at_most(k, KSTEP)])
    sch.reorder(j0, i0, k0, k1, i1, j1)
    consumers = ta.attachable(sch, sch.get_consumers(block), block)
    if not sch.get_consumers(block):
        consumers = [sch.cache_write(block, 0, "local")]
    for consumer in consumers:
        sch.reverse_compute_at(consumer, i0, preserve_unit_loops=True)
    if m // ROWS >= MIN_ROW_TILES and len(sch.get(block).reads[b_index].region) == 2:
        packed = sch.cache_read(block, b_index, "local")
        sch.compute_at(packed, j0, preserve_unit_loops=True)
        sch.vectorize(sch.get_loops(packed)[-1])
    if m * n * k >= min_parallel_work and n // (2 * vector) > 1:
        sch.parallel(j0)
    init = ta.finish_tile(sch, block, i0, unroll, j1, k0, vectorize_init=False)
    for later in [init] + consumers:
        loops = sch.get_loops(later)
        sch.vectorize(loops[-1])
