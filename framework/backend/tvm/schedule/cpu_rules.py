"""Default CPU schedules: deterministic rules for the legalized, fused PrimFuncs.

No search, no measurement: each PrimFunc gets a schedule picked from its structure alone
(measured defaults in :class:`Params`). On LeNet-5 they take the training step from ~31 ms
(unscheduled) to ~1.4 ms at batch 32 on 2 cores.

- A *contraction* (a reduction block ``C[s] += A[..] * B[..]``: matmul, conv2d,
  conv2d_transpose, the TE weight gradient) gets a register-tiled loop nest ``S0 R S2``.
  ``S2`` is a tile of output accumulators kept in registers: the innermost output axis
  vectorized, other output axes unrolled, first those the vectorized operand does not
  depend on (its vector loads are then reused). ``S0`` is fused and run in parallel.
  Pure-copy producers (``pad_temp`` without padding, flipped weights) are inlined; padding
  is computed per parallel iteration when that repeats no work, else once. Elementwise
  consumers (bias, ReLU, the Momentum update) are computed per tile; without one the tile
  accumulates in a small cache.
- Convolutions whose rows give at most half a vector (8x8 maps) vectorize along an output
  channel instead, with that operand re-laid out channel-last; weight gradients whose input
  channels fill whole vectors always do (:mod:`.channel_vectors`).
- When the innermost output axis is short (a 5x5 kernel) and the innermost reduction axis
  runs contiguously through both operands (weight gradients), that reduction axis is
  vectorized instead: partial sums in vector lanes (``rfactor``), then a block sums lanes.
- Small outputs with large reductions split the reduction across threads (``rfactor``).
- ``a^T b`` matmuls over long reductions are cache-blocked (:mod:`.strided_matmul`); long
  ``a b`` ones get a two-vector tile over packed panels of ``b`` (:mod:`.packed_matmul`).
- Row kernels (softmax and the like: maps and reductions along the last axis of the same
  rows) are computed row by row, each row once through L1 (:mod:`.row_fusion`).
- Sums down columns (bias gradients) read whole rows under a tile of column sums
  (:mod:`.column_sums`); whole-tensor sums use vector lanes (:mod:`.full_sums`), transposes
  L1-sized tiles (:mod:`.transpose_tiles`).
- Everything else (elementwise, broadcast, reductions, pooling and its gradient): producers
  inlined into consumers, a few leading loops fused and parallel when the block does enough
  work, a spatial innermost loop vectorized.
- Symbolic extents (a batch or length compiled once for every size): a contraction pads
  only the axes its register tile splits (:mod:`.symbolic_tiles`); a reduction over a
  symbolic extent is not padded. Vector loops over a symbolic extent are split with a
  predicate that :mod:`.vector_tails` (after these rules) peels into whole vectors and a
  scalar tail.

A PrimFunc the rules cannot handle stays unscheduled (correct, slow); reshapes are left to
``RewriteDataflowReshape``. :mod:`.tuning` measures variants of :class:`Params` and
MetaSchedule candidates against these.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import tvm
from tvm import tirx
from tvm.relax.analysis import has_reshape_pattern
from tvm.s_tir import Schedule

from . import (channel_vectors, column_sums, full_sums, lane_rows, packed_matmul, row_fusion, strided_matmul,
               transpose_tiles)
from . import tir_analysis as ta
from .inline_producers import inline_all as _inline_all
from .symbolic_tiles import pad_symbolic, tiling_view

logger = logging.getLogger(__name__)

VECTOR = 16  # float32 lanes of an elementwise vector loop (LLVM splits it where narrower)
PARALLEL_MIN_WORK = 1 << 15  # loop iterations below which a block stays serial


@dataclass(frozen=True)
class Params:
    """The knobs of the rules; the defaults were measured on LeNet's kernels (2 cores,
    AVX-512). :mod:`.tuning` measures variants of them per kernel."""

    vector: int = 16  # float32 lanes per register (AVX-512); the register tile's vector width
    register_vectors: int = 16  # accumulator vectors per register tile (32 AVX-512 registers)
    unroll: int = 64  # pragma_auto_unroll_max_step on tiled loop nests
    chunks_per_core: int = 8  # fuse outer loops until this many parallel chunks per core
    lane_weights: int = 4  # lane reductions: tile of the weights-like operand's axis
    lane_vectors: int = 20  # lane reductions: accumulator vectors per tile


DEFAULT = Params()
NARROW = Params(vector=8, register_vectors=8, lane_vectors=10)  # AVX2: 16 registers of 8


def target_params(target: tvm.target.Target) -> Params:
    from tvm.target import codegen

    try:
        wide = bool(codegen.target_has_features("avx512f", target))
    except Exception:  # not an x86 LLVM target
        wide = False
    return DEFAULT if wide else NARROW


def schedule_module(mod: tvm.IRModule, target: tvm.target.Target) -> tvm.IRModule:
    """Schedule every unscheduled PrimFunc of ``mod`` (a new module; ``mod`` is unchanged)."""
    cores = int(target.attrs.get("num-cores", 1) or 1)
    params = target_params(target)
    mod = mod.clone()
    for gv, func in list(mod.functions.items()):
        if not isinstance(func, tirx.PrimFunc) or func.attrs.get("tirx.is_scheduled", False):
            continue
        if has_reshape_pattern(func):  # left for RewriteDataflowReshape (a no-copy view)
            continue
        try:
            scheduled = schedule_func(func, cores, params)
        except Exception as error:  # a pattern these rules do not handle: keep it unscheduled
            logger.debug("no default schedule for %s: %s", gv.name_hint, error)
            continue
        mod.update_func(gv, scheduled.with_attr("tirx.is_scheduled", True))
    return mod


def schedule_func(func: tirx.PrimFunc, cores: int, params: Params = DEFAULT) -> tirx.PrimFunc:
    return schedule(tvm.IRModule({"main": func}), cores, params).mod["main"]


def schedule(mod: tvm.IRModule, cores: int, params: Params = DEFAULT) -> Schedule:
    """The rules' schedule of ``mod["main"]`` (its trace can be replayed and stored)."""
    sch = Schedule(mod)
    if row_fusion.symbolic_rows(sch):
        sch = Schedule(mod, enable_check=False)
    apply_rules(sch, cores, params)
    return sch


def apply_rules(sch: Schedule, cores: int, params: Params = DEFAULT) -> None:
    anchor = _contraction(sch)
    if anchor is None and row_fusion.schedule_rows(sch, cores, params.vector, PARALLEL_MIN_WORK):
        return
    widening = set() if anchor is not None else transpose_tiles.widening_casts(sch)
    if anchor is not None:
        _schedule_contraction(sch, anchor, cores, params)
    else:
        _inline_all(sch, keep=widening, guard=True)
    for block in ta.blocks(sch):  # (a widening cast is scheduled under its transpose)
        if sch.get(block).name_hint in widening or _is_scheduled(sch, block) \
                or _sum_in_lanes(sch, block, cores, params):
            continue
        if not (column_sums.schedule_columns(sch, block, cores, params.vector, params.chunks_per_core)
                or transpose_tiles.schedule(sch, block, PARALLEL_MIN_WORK)):
            _schedule_simple(sch, block, cores, params)


def _contraction(sch: Schedule):
    """The heaviest block that reduces a product of two or more tensors, if any."""
    best, best_work = None, 0
    for block in ta.blocks(sch):
        try:
            axes = ta.axes(sch, block)
        except ValueError:
            continue
        red = [e for k, e, _ in axes if k == "R"]
        if not red or ta.work([a for a in axes if a[0] == "R"]) < 2:
            continue
        stmt = sch.get(block)
        if stmt.init is None or len(stmt.writes) != 1 or len(ta.reads(sch, block)) < 2:
            continue
        if not ta.is_sum_of_products(stmt.body):
            continue
        if ta.work(axes) > best_work:
            best, best_work = block, ta.work(axes)
    return best


def _is_scheduled(sch: Schedule, block) -> bool:
    return any(sch.get(loop).kind != 0 or sch.get(loop).annotations for loop in sch.get_loops(block))


# -- transformations ------------------------------------------------------------------------


def _vector_factor(extent: int, lanes: int = VECTOR) -> int:
    if extent <= lanes:
        return extent
    return next((f for f in (lanes, lanes // 2) if extent % f == 0),
                max(f for f in range(1, lanes + 1) if extent % f == 0))


def _register_tile(sch: Schedule, block, axes, params: Params,
                   vector_axis: int | None = None, wide: bool = False) -> list[int]:
    """Innermost tile factor of every spatial axis (see the module docstring); the vector
    runs along ``vector_axis`` (an index into ``axes``), by default the innermost one."""
    spatial = [(i, e, v) for i, (k, e, v) in enumerate(axes) if k == "S"]
    tiles = {i: 1 for i, _, _ in spatial}
    big = [s for s in spatial if s[1] > 1]
    if not big:
        return [tiles[i] for i, _, _ in spatial]
    vi, ve, vv = next(s for s in spatial if s[0] == vector_axis) if vector_axis is not None \
        else big[-1]
    tiles[vi] = _vector_factor(ve, params.vector)
    if wide and ve % (2 * params.vector) == 0:  # two vectors a row (packed_matmul's tile)
        tiles[vi] = 2 * params.vector
    budget = max(1, params.register_vectors // -(-tiles[vi] // params.vector))
    vec_users = [used for _, used in ta.reads(sch, block) if vv in used]
    others = [s for s in reversed(spatial) if s[0] != vi]
    reuse = [s for s in others if not any(s[2] in used for used in vec_users)]
    for i, e, _ in reuse + [s for s in others if s not in reuse]:
        tiles[i] = ta.divisor_at_most(e, budget)
        budget //= tiles[i]
    return [tiles[i] for i, _, _ in spatial]


def _schedule_contraction(sch: Schedule, block, cores: int, params: Params) -> None:
    name = sch.get(block).name_hint
    symbolic = pad_symbolic(
        sch, block, lambda view: _register_tile(sch, block, view, params, wide=True))
    block = sch.get_sblock(name)
    padded, computed = _sort_producers(sch, block)
    _inline_all(sch, keep={name} | {sch.get(p).name_hint for p in padded + computed})
    block = sch.get_sblock(name)
    axes = ta.axes(sch, block)
    if symbolic:  # tiles dividing SYMBOLIC_TILE along the padded axes: the generic rules
        axes = tiling_view(axes, symbolic)
    elif strided_matmul.wants(sch, block, axes):
        strided_matmul.schedule(sch, block, axes, params.vector, params.register_vectors,
                                params.unroll, PARALLEL_MIN_WORK)
        return
    static_output = all(axes[i][0] == "R" for i in symbolic)  # only a reduction symbolic
    if static_output and params.vector == DEFAULT.vector \
            and packed_matmul.wants(sch, block, axes, params.vector):
        return packed_matmul.schedule(sch, block, axes, params.vector, params.unroll, PARALLEL_MIN_WORK)
    channel = None if symbolic else channel_vectors.wgrad_choice(sch, block, axes, params.vector)
    if channel is not None:
        for later in channel_vectors.schedule_wgrad(sch, block, channel, cores, params.vector,
                                                    params.register_vectors, params.unroll):
            _vectorize_innermost(sch, later)
        return
    if not symbolic and _lane_reduction(sch, block, axes, params.vector):
        if lane_rows.wants_rows(sch, block, axes, cores):
            lanes = _vector_factor(axes[-1][1], params.vector)
            lane_rows.schedule_rows(sch, block, lanes, cores, params.unroll, padded)
            for pad in padded:
                _vectorize_innermost(sch, pad)
            _schedule_simple(sch, block, cores, params)
        else:
            _schedule_lanes(sch, block, axes, cores, padded, params)
        return
    rows = [e for k, e, _ in axes if k == "S" and e > 1]
    channel = None if symbolic else channel_vectors.plan(sch, block, axes, cores, params.vector, params.register_vectors,
                                   _vector_factor(rows[-1], params.vector) if rows else params.vector)
    s_tiles = _register_tile(sch, block, axes, params, channel.axis if channel else None,
                             wide=bool(symbolic))
    loops = sch.get_loops(block)
    s_loops = [(lp, e) for lp, (k, e, _) in zip(loops, axes) if k == "S"]
    r_loops = [(lp, e) for lp, (k, e, _) in zip(loops, axes) if k == "R"]
    s0, s2 = [], []
    for (lp, _), f in zip(s_loops, s_tiles):
        outer, inner = sch.split(lp, [None, f])  # (f divides e; None: also a symbolic e)
        s0.append(outer)
        s2.append(inner)
    if channel is not None:  # the channel's tile loop innermost: the vector
        at = [i for i, (k, _, _) in enumerate(axes) if k == "S"].index(channel.axis)
        s2.append(s2.pop(at))
    r0, r1 = [lp for lp, _ in r_loops[:1]], [lp for lp, _ in r_loops[1:]]
    if len(r_loops) == 1 and isinstance(sch.get(r_loops[0][0]).extent, tirx.IntImm):
        # a matmul: a short inner reduction to unroll with the tile (a symbolic one: whole)
        lp, e = r_loops[0]
        r0, r1 = list(sch.split(lp, [None, ta.divisor_at_most(e, 8)]))
        r0, r1 = [r0], [r1]
    sch.reorder(*s0, *r0, *r1, *s2)
    outer_work = 1
    for (_, e), f in zip(s_loops, s_tiles):
        outer_work *= e // f
    consumers = sch.get_consumers(block)
    if outer_work < 2 * cores and ta.work(axes) >= PARALLEL_MIN_WORK and not consumers \
            and channel is None:
        block, s0, r0, s2 = _rfactor(sch, block, s0, r0, cores, params)
    elif not consumers or channel is not None or symbolic:
        # a tile on the stack: no workspace calls; channel vectors lay it out channel-last
        consumers = [sch.cache_write(block, 0, "local")] + consumers
        if channel is not None:
            channel_vectors.relayout_tile(sch, block, channel, axes)
    consumers = ta.attachable(sch, consumers, block)  # a padded consumer stays at the root
    for consumer in consumers:
        sch.reverse_compute_at(consumer, s0[-1], preserve_unit_loops=True)
    fused = _parallelize(sch, block, s0, cores * params.chunks_per_core, ta.work(axes), padded)
    init = ta.finish_tile(sch, block, fused, params.unroll, s2[-1], r0[0], vectorize_init=False)
    _vectorize_innermost(sch, init)
    for consumer in consumers:
        _vectorize_innermost(sch, consumer)


def _lane_reduction(sch: Schedule, block, axes, lanes: int) -> bool:
    """Vectorize the innermost reduction axis instead of the innermost output axis?

    Yes when the innermost reduction axis runs contiguously through every operand that
    depends on it (a per-channel mean subtracted inside a variance does not) and the
    innermost output axis is either short (a 5x5 kernel's weight gradient: 5 of 16 lanes)
    or strided in every operand (BatchNorm's per-channel sums over N, H, W of NCHW data:
    vectors along the channels would gather)."""
    spatial = [(e, v) for k, e, v in axes if k == "S" and e > 1]
    kind, extent, var = axes[-1]
    if kind != "R" or extent < lanes // 2 or not spatial:
        return False
    reads = [r for r in sch.get(block).reads
             if not any(r.source.same_as(w.source) for w in sch.get(block).writes)]
    invariant = [r for r in reads if var not in ta.vars_in([rg.min for rg in r.region])]
    if len(invariant) == len(reads) or not all(_unit_stride(r, var) or r in invariant
                                               for r in reads):
        return False
    extent_s, var_s = spatial[-1]
    return _vector_factor(extent_s, lanes) < lanes // 2 or not any(_unit_stride(r, var_s)
                                                                    for r in reads)


def _unit_stride(read, var) -> bool:
    """Does ``read``'s innermost index move by exactly 1 with ``var``?"""
    coef, _ = tvm.sym.detect_linear_equation(read.region[-1].min, [var]) or (None, None)
    return isinstance(coef, tirx.IntImm) and int(coef) == 1


def _sum_in_lanes(sch: Schedule, block, cores: int, params: Params) -> bool:
    """Partial sums in vector lanes for a sum or mean over a long contiguous innermost axis,
    or of a whole tensor (:mod:`.full_sums`); True if it scheduled ``block``."""
    if full_sums.schedule(sch, block, params.vector):
        return True
    try:
        axes = ta.axes(sch, block)
    except ValueError:
        return False
    stmt = sch.get(block)
    if stmt.init is None or len(stmt.writes) != 1 or axes[-1][1] < params.vector // 2:
        return False
    kinds = "".join(k for k, _, _ in axes)
    if "RS" in kinds:  # output axes inside reduction axes: not this layout
        return False
    if ta.work(axes) < PARALLEL_MIN_WORK or not _lane_reduction(sch, block, axes, params.vector):
        return False
    _schedule_lanes(sch, block, axes, cores, [], params)
    return True


def _schedule_lanes(sch: Schedule, block, axes, cores: int, padded, params: Params) -> None:
    """``S0 R S2 lane``: partial sums of the innermost reduction axis in vector lanes
    (``rfactor``), a register tile of output positions, then a block summing the lanes."""
    n_s = sum(1 for k, _, _ in axes if k == "S")
    spatial = [(e, v) for k, e, v in axes if k == "S"]
    tiles = _lane_tile(sch, block, spatial, params)
    lanes = _vector_factor(axes[-1][1], params.vector)
    _, lane = sch.split(sch.get_loops(block)[-1], [None, lanes])
    final = block
    block = sch.rfactor(lane, n_s)  # the partial sums, lanes innermost
    loops = sch.get_loops(block)
    s_loops, r_loops, lane = loops[:n_s], loops[n_s:-1], loops[-1]
    s0, s2 = [], []
    for lp, _, f in zip(s_loops, spatial, tiles):
        outer, inner = sch.split(lp, [None, f])  # (f divides e; None: also a symbolic e)
        s0.append(outer)
        s2.append(inner)
    sch.reorder(*s0, *r_loops, *s2, lane)
    cache = sch.cache_write(block, 0, "global")
    sch.reverse_compute_at(cache, s0[-1], preserve_unit_loops=True)
    fused = _parallelize(sch, block, s0, cores * params.chunks_per_core, ta.work(axes), padded)
    ta.finish_tile(sch, block, fused, params.unroll, lane, r_loops[0])
    sch.vectorize(sch.get_loops(cache)[-1])
    _schedule_simple(sch, final, cores, params)


def _lane_tile(sch: Schedule, block, spatial, params: Params) -> list[int]:
    """Register tile of a lane reduction: up to ``lane_weights`` positions along the operand
    with the fewest output axes (the weights-like one) times what fits along the other, at
    most ``lane_vectors`` accumulators (each one vector of lanes)."""
    reads = sorted((used for _, used in ta.reads(sch, block)), key=len)
    small = reads[0] if reads else set()
    tiles = [1] * len(spatial)
    order = list(reversed(range(len(spatial))))
    side_b = [i for i in order if spatial[i][1] in small and spatial[i][0] > 1]
    side_a = [i for i in order if spatial[i][1] not in small and spatial[i][0] > 1]
    budget = params.lane_vectors
    if side_b:
        tiles[side_b[0]] = ta.divisor_at_most(spatial[side_b[0]][0], params.lane_weights)
        budget //= tiles[side_b[0]]
    if side_a:
        tiles[side_a[0]] = ta.divisor_at_most(spatial[side_a[0]][0], budget)
    return tiles


def _sort_producers(sch: Schedule, block) -> tuple[list, list]:
    """The contraction's producers that are not inlined into its inner loop: padding (kept,
    with its own producers inlined into it) and real computations (materialized once);
    plain copies (transposes, flips, casts) are left to inline."""
    padded, computed = [], []
    for producer in sch.get_producers(block):
        if ta.is_padding(sch, producer):
            _inline_all_into(sch, producer)
            padded.append(producer)
        elif not ta.is_copy(sch.get(producer).body):
            computed.append(producer)
    return padded, computed


def _inline_all_into(sch: Schedule, block) -> None:
    for producer in sch.get_producers(block):
        try:
            sch.compute_inline(producer)
        except Exception:
            continue


def _rfactor(sch: Schedule, block, s0, r0, cores: int, params: Params):
    """Split the outer reduction across threads; a final serial block sums the parts."""
    n_s = len(s0)
    extent = sch.get(r0[0]).extent
    # a symbolic reduction stays whole (rfactor drops the predicate of a split that need
    # not divide it: wrong sums)
    parts = ta.divisor_at_most(int(extent), 4 * cores) if isinstance(extent, tirx.IntImm) else 1
    if parts < 2:
        loops = sch.get_loops(block)
        return block, s0, r0, loops[len(loops) - n_s:]
    outer, _ = sch.split(r0[0], [parts, None])
    sch.reorder(outer, *s0)
    partial = sch.rfactor(outer, 0)
    _schedule_simple(sch, block, cores, params)
    loops = sch.get_loops(partial)
    return partial, loops[:1 + n_s], [loops[1 + n_s]], loops[len(loops) - n_s:]


def _parallelize(sch: Schedule, block, s0, want_chunks: int, work: int, padded=()):
    """Fuse leading outer loops until there are ``want_chunks`` chunks (parallel if worth it),
    and compute the padding producers inside it where that repeats no work."""
    n, chunks = 0, 1
    for loop in s0:
        n += 1
        chunks *= ta.extent(sch.get(loop).extent)
        if chunks >= want_chunks:
            break
    inside = [pad for pad in padded if _partitions(sch, block, s0[:n], pad)]
    fused = sch.fuse(*s0[:n]) if n > 1 else s0[0]
    if work >= PARALLEL_MIN_WORK and chunks > 1:
        sch.parallel(fused)
    for pad in inside:
        sch.compute_at(pad, fused, preserve_unit_loops=True)
        _vectorize_innermost(sch, pad)
    return fused


def _partitions(sch: Schedule, block, loops, producer) -> bool:
    """Does every loop in ``loops`` (extent > 1) select its own part of what ``block`` reads
    from ``producer``? Then computing the producer per iteration repeats nothing."""
    realize = sch.get(sch.get_loops(block)[-1]).body
    buffer = sch.get(producer).writes[0].source
    used: set = set()
    for source, vars_ in ta.reads(sch, block):
        if source.same_as(buffer):
            used |= vars_
    for loop in loops:
        stmt = sch.get(loop)
        if ta.extent(stmt.extent) == 1:
            continue
        bound = [iv.var for iv, value in zip(realize.block.iter_vars, realize.iter_values)
                 if any(stmt.loop_var.same_as(v) for v in ta.vars_in([value]))]
        if not any(b.same_as(u) for b in bound for u in used):
            return False
    return True


def _vectorize_innermost(sch: Schedule, block) -> None:
    loops = sch.get_loops(block)
    kinds = ta.loop_kinds(sch, loops)
    if not loops or kinds is None or kinds[-1] != "S":
        return
    extent = sch.get(loops[-1]).extent
    if not isinstance(extent, tirx.IntImm) or int(extent) < 2:
        return
    e = int(extent)
    sch.vectorize(sch.split(loops[-1], [None, _vector_factor(e)])[1] if e > 64 else loops[-1])


def _schedule_simple(sch: Schedule, block, cores: int, params: Params = DEFAULT) -> None:
    """Parallel over a few fused leading spatial loops; vectorize a spatial innermost loop."""
    loops = sch.get_loops(block)
    kinds = ta.loop_kinds(sch, loops)
    if not loops or kinds is None:
        return
    extents = [ta.extent(sch.get(lp).extent) for lp in loops]
    work = math.prod(extents)
    lead = next((i for i, k in enumerate(kinds) if k != "S"), len(kinds))
    if lead == len(kinds) and extents[-1] > 1:
        _vectorize_innermost(sch, block)
        lead -= 1
    n, chunks = 0, 1
    for e in extents[:lead]:
        n += 1
        chunks *= e
        if chunks >= params.chunks_per_core * cores:
            break
    if n == 0:
        return
    outer = sch.fuse(*loops[:n]) if n > 1 else loops[0]
    if work >= PARALLEL_MIN_WORK and chunks > 1:
        sch.parallel(outer)
    else:
        sch.annotate(outer, "pragma_auto_unroll_max_step", 16)
        sch.annotate(outer, "pragma_unroll_explicit", 1)


