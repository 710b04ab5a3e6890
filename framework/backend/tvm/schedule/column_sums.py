"""Sums down columns: reductions whose reduced axes are the operand's outer (strided) ones.

A bias gradient sums a ``(rows, columns)`` gradient over its rows (an LSTM's gates over
time x batch: ``(2048, 1024) -> (1024,)``). Legalized, the reduction is the innermost loop,
so each output walks its column with a stride of a whole row: one cache line per element
and no vectors (13 ms for that shape on one core). Here the loops are reordered to
``S0 R S2``: ``S2`` is a tile of consecutive columns (whole vectors, kept in registers), the
rows run above it, so every row is read contiguously, once per tile (0.3 ms).

Contract: :func:`schedule_columns` takes a reduction block whose loops are all its output
axes, then all its reduction axes (``S..S R..R``, as legalized), whose innermost output
axis is unit-stride in every read that uses it, and no read unit-stride in the innermost
reduction axis (those get the lane schedule of :mod:`.cpu_rules`). It returns False, doing
nothing, for any other block.
"""

from __future__ import annotations

import tvm
from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

TILE_VECTORS = 4  # accumulator vectors per tile of columns
PARALLEL_MIN_WORK = 1 << 15  # as cpu_rules: loop iterations below which a block stays serial


def _unit_stride(region, var) -> bool:
    coef, _ = tvm.sym.detect_linear_equation(region[-1].min, [var]) or (None, None)
    return isinstance(coef, tirx.IntImm) and int(coef) == 1


def schedule_columns(sch: Schedule, block, cores: int, vector: int, chunks_per_core: int) -> bool:
    """Schedule ``block`` as a column sum (see the module docstring); True if it did."""
    try:
        axes = ta.axes(sch, block)
    except ValueError:
        return False
    stmt = sch.get(block)
    kinds = "".join(k for k, _, _ in axes)
    n_s = kinds.count("S")
    if stmt.init is None or len(stmt.writes) != 1 or n_s == 0 or kinds != "S" * n_s + "R" * (len(axes) - n_s):
        return False
    loops = sch.get_loops(block)
    if ta.loop_kinds(sch, loops) != list(kinds):
        return False
    _, extent, var = axes[n_s - 1]
    red_var = axes[-1][2]
    reads = [r for r in stmt.reads if not any(r.source.same_as(w.source) for w in stmt.writes)]
    users = [r for r in reads if var in ta.vars_in([rg.min for rg in r.region])]
    if extent < vector or not users or not all(_unit_stride(r.region, var) for r in users):
        return False
    if any(_unit_stride(r.region, red_var) for r in reads):
        return False
    lanes = vector if extent % vector == 0 else ta.divisor_at_most(extent, vector)
    if lanes < vector // 2:
        return False
    tile = lanes * ta.divisor_at_most(extent // lanes, TILE_VECTORS)
    s_loops, r_loops = loops[:n_s], loops[n_s:]
    outer, inner = sch.split(s_loops[-1], [None, tile])
    sch.reorder(*s_loops[:-1], outer, *r_loops, inner)
    cache = sch.cache_write(block, 0, "local")  # the tile's sums in registers
    sch.reverse_compute_at(cache, outer, preserve_unit_loops=True)
    lead = [*s_loops[:-1], outer]
    chunks, n = 1, 0
    for loop in lead:
        n += 1
        chunks *= ta.extent(sch.get(loop).extent)
        if chunks >= chunks_per_core * cores:
            break
    fused = sch.fuse(*lead[:n]) if n > 1 else lead[0]
    if ta.work(axes) >= PARALLEL_MIN_WORK and chunks > 1:
        sch.parallel(fused)
    _vectorize_tile(sch, sch.get_loops(block)[-1], lanes)
    init = sch.decompose_reduction(block, r_loops[0])
    _vectorize_tile(sch, sch.get_loops(init)[-1], lanes)
    _vectorize_tile(sch, sch.get_loops(cache)[-1], lanes)
    return True


def _vectorize_tile(sch: Schedule, loop, lanes: int) -> None:
    """Vectors of ``lanes`` along ``loop`` (a tile of whole vectors), the rest unrolled."""
    extent = ta.extent(sch.get(loop).extent)
    if extent > lanes:
        unrolled, loop = sch.split(loop, [None, lanes])
        sch.unroll(unrolled)
    sch.vectorize(loop)
