"""CPU schedule of a *row kernel*: every block maps or reduces along the last axis of the
same rows (softmax, log-softmax, their gradients, layer-norm statistics and output).

The generic rules (:mod:`.cpu_rules`) schedule each block over the whole tensor, one pass per
block, and inline small elementwise producers into every reader: TOPI's softmax then reads
its input four times and computes ``exp`` twice per element. Here the rows are the parallel
loop and every block is computed inside it, one row at a time, on a row that stays in L1:

- producers that call a transcendental function (``exp``, ``log``, ``erf``...) and are read
  by more than one consumer stay blocks (a row buffer) instead of being inlined;
- spatial blocks vectorize their row; reductions along the row keep partial results in
  vector lanes (``rfactor``), then a small block combines the lanes.

Rows of a symbolic length (framework/ir/symbolic.py) get 16 lanes over a split that need
not divide the row: the lanes' block keeps the split's predicate, which ``compute_at``
would drop (it regenerates the loops from the block's domain: wrong sums), so the blocks'
row loops are merged instead (:func:`_merge_levels`), and the schedule is made without
the affine-binding checks (:func:`symbolic_rows`, see cpu_rules.schedule).
:mod:`.vector_tails` then peels each predicated vector loop into whole vectors and a tail.
Measured on the GPT's attention softmax (12 x 4 x 64 x 64, one core): 0.57 ms unvectorised
-> 0.16 ms (the static kernel: 0.15 ms).

:func:`schedule_rows` says False (and leaves ``sch`` untouched) when the PrimFunc is not such
a kernel.
"""

from __future__ import annotations

import tvm
import tvm_ffi
from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

MIN_ROW = 16  # shorter rows: the generic rules do as well
COSTLY = ("exp", "log", "erf", "tanh", "sigmoid", "pow", "sqrt")


def _axes(sch: Schedule, block) -> tuple[tuple[int, ...], str] | None:
    """(extents, kinds 'S'/'R' per axis) of a block's iterators, or None."""
    try:
        axes = ta.axes(sch, block)
    except ValueError:
        return None
    return tuple(e for _, e, _ in axes), "".join(k for k, _, _ in axes)


def _plan(sch: Schedule):
    """(output block, row extents, row length, row outputs) if ``sch`` is a row kernel, else
    None: one output block, spatial, of ``rows + (length,)``; every other block iterates
    over either ``rows + (length,)`` (a map, or a reduction along the row: last axis 'R') or
    ``rows``; other outputs (row statistics: a layer norm's mean) are spatial over ``rows``."""
    blocks = ta.blocks(sch)
    shapes = [_axes(sch, b) for b in blocks]
    outputs = [(b, s) for b, s in zip(blocks, shapes) if not sch.get_consumers(b)]
    if len(blocks) < 2 or any(s is None for s in shapes):
        return None
    rank = max(len(s[0]) for _, s in outputs)
    wide = [(b, s) for b, s in outputs if len(s[0]) == rank]
    if len(wide) != 1:
        return None
    output, (extents, kinds) = wide[0]
    if rank < 2 or "R" in kinds or extents[-1] < MIN_ROW:
        return None
    rows, length = extents[:-1], extents[-1]
    row_outputs = [b for b, (ext, kind) in outputs if ext == rows and "R" not in kind]
    if len(row_outputs) != len(outputs) - 1:
        return None
    reduces = False
    for ext, kind in shapes:
        if "R" in kind[:-1] or (ext != rows and ext != extents):
            return None
        reduces |= kind.endswith("R") and ext == extents
    return (output, rows, length, row_outputs) if reduces else None


def _costly(stmt) -> bool:
    calls: list = []
    tvm_ffi.structural_walk(stmt, (tvm.ir.Call, calls.append), order="post")
    return any(getattr(c.op, "name", "").split(".")[-1] in COSTLY for c in calls)


def _inline(sch: Schedule, output, rank: int) -> None:
    """Inline the spatial producers, except costly ones read more than once and costly ones
    computed once per row (of fewer than ``rank`` axes: a layer norm's ``1/sqrt(var)``),
    which inlined would be computed once per element."""
    changed = True
    while changed:
        changed = False
        for block in ta.blocks(sch):
            stmt = sch.get(block)
            if stmt.name_hint == sch.get(output).name_hint or stmt.init is not None:
                continue
            if _costly(stmt.body):
                if len(sch.get_loops(block)) < rank:
                    continue
                buffer = stmt.writes[0].source
                if sum(ta.loads_of(sch.get(c).body, buffer) for c in sch.get_consumers(block)) > 1:
                    continue
            try:
                sch.compute_inline(block)
                changed = True
                break
            except Exception:  # noqa: BLE001 - not inlinable: stays a block
                continue


def symbolic_rows(sch: Schedule) -> bool:
    """Is ``sch`` a row kernel whose rows have a symbolic length? Its schedule needs a
    Schedule without the affine-binding checks (``enable_check=False``): the predicate of
    the lanes' split hides from them that the producers cover what the lanes read."""
    plan = _plan(sch)
    return plan is not None and not isinstance(sch.get(plan[0]).iter_vars[-1].dom.extent, tirx.IntImm)


def schedule_rows(sch: Schedule, cores: int, vector: int, min_parallel: int) -> bool:
    """Schedule ``sch`` as a row kernel (see the module); False if it is not one."""
    plan = _plan(sch)
    if plan is None:
        return False
    output, rows, length, row_outputs = plan
    name = sch.get(output).name_hint
    last = [sch.get(b).name_hint for b in row_outputs]
    symbolic = not isinstance(sch.get(output).iter_vars[-1].dom.extent, tirx.IntImm)
    _inline(sch, output, len(rows) + 1)
    lanes = vector if symbolic else ta.divisor_at_most(length, vector)
    partials = [_in_lanes(sch, b, lanes) for b in ta.blocks(sch)]
    partials = [sch.get(p).name_hint for p in partials if p is not None]
    n_rows = 1
    for e in rows:
        n_rows *= e
    if symbolic:  # compute_at would drop the predicate of the lanes' split (wrong sums)
        _vectorize(sch, ta.blocks(sch), partials, length, lanes)
        row = _merge_levels(sch, len(rows))
    elif last:
        row = _merge_rows(sch, len(rows))
    else:
        loops = sch.get_loops(sch.get_sblock(name))
        row = sch.fuse(*loops[:-1]) if len(loops) > 2 else loops[0]
        producers = [b for b in ta.blocks(sch) if sch.get(b).name_hint != name]
        for block in reversed(producers):
            sch.compute_at(block, row, preserve_unit_loops=True)
    if n_rows > 1 and n_rows * length >= min_parallel and cores > 1:
        sch.parallel(row)
    if not symbolic:
        _vectorize(sch, sch.get_child_blocks(row), partials, length, lanes)
    return True


def _vectorize(sch: Schedule, blocks, partials: list[str], length: int, lanes: int) -> None:
    for block in blocks:
        if sch.get(block).name_hint in partials:
            _vectorize_lanes(sch, block, lanes)
        else:
            _vectorize_row(sch, block, length, lanes)


def _merge_rows(sch: Schedule, n_axes: int):
    """One loop over the rows for every block: each block's ``n_axes`` row loops (its
    outermost) fused, then all merged in program order. Used when the kernel has row
    outputs: ``compute_at`` cannot move a producer whose consumer (a row output) is still
    outside the loop, nor an output block into it."""
    rows = []
    for block in ta.blocks(sch):
        loops = sch.get_loops(block)
        rows.append(sch.fuse(*loops[:n_axes]) if n_axes > 1 else loops[0])
    return sch.merge(*rows) if len(rows) > 1 else rows[0]


def _merge_levels(sch: Schedule, n_axes: int):
    """Symbolic rows: every block's ``n_axes`` row loops merged level by level, then the
    leading ones fused up to (without) the next of a symbolic extent: rows fused across a
    symbolic extent are found again by divisions by a symbolic size, ~40 cycles each, per
    row (the GPT's softmax 1.6x slower than the static one). Returns the outer row loop."""
    for level in range(n_axes):
        loops = []
        for block in ta.blocks(sch):
            loop = sch.get_loops(block)[level]
            if not any(sch.get(loop).same_as(sch.get(lp)) for lp in loops):
                loops.append(loop)
        if len(loops) > 1:
            sch.merge(*loops)
    loops = sch.get_loops(ta.blocks(sch)[0])[:n_axes]
    end = next((i for i in range(1, n_axes) if not isinstance(sch.get(loops[i]).extent, tirx.IntImm)),
               n_axes)
    return sch.fuse(*loops[:end]) if end > 1 else loops[0]


def _in_lanes(sch: Schedule, block, lanes: int):
    """Split a reduction along the row into partial results in ``lanes`` vector lanes
    (``rfactor``: the returned block) and a block combining them; None if not one."""
    stmt = sch.get(block)
    loops = sch.get_loops(block)
    kinds = ta.loop_kinds(sch, loops)
    if stmt.init is None or lanes < 4 or kinds is None or kinds[-1] != "R":
        return None
    _, lane = sch.split(loops[-1], [None, lanes])
    return sch.rfactor(lane, len(stmt.writes[0].source.shape))  # lanes innermost


def _vectorize_lanes(sch: Schedule, block, lanes: int) -> None:
    """The partial-results block under the row loop: its lane loop innermost, vectorized."""
    loops = sch.get_loops(block)
    kinds = ta.loop_kinds(sch, loops)
    realize = sch.get(loops[-1]).body
    lane_var = next(v for iv, v in zip(realize.block.iter_vars, realize.iter_values)
                    if int(iv.iter_type) == 0 and int(iv.dom.extent) == lanes
                    and iv.var.same_as(_last_index(realize.block)))
    lane = next(lp for lp in loops if any(sch.get(lp).loop_var.same_as(v)
                                          for v in ta.vars_in([lane_var])))
    reduce_loop = next(lp for lp, k in zip(loops, kinds) if k == "R")
    if not sch.get(loops[-1]).loop_var.same_as(sch.get(lane).loop_var):
        sch.reorder(reduce_loop, lane)
    sch.vectorize(lane)
    init = sch.decompose_reduction(block, reduce_loop)
    sch.vectorize(sch.get_loops(init)[-1])


def _row_extent(sch: Schedule, block):
    """The extent of the last axis of what ``block`` writes (its row's length)."""
    return sch.get(block).writes[0].source.shape[-1]


def _last_index(block):
    """The iterator indexing the last axis of the block's output (the lane axis)."""
    return block.writes[0].region[-1].min


def _vectorize_row(sch: Schedule, block, length: int, lanes: int) -> None:
    """Vectorize a spatial block's row loop."""
    loops = sch.get_loops(block)
    inner = sch.get(loops[-1])
    kinds = ta.loop_kinds(sch, loops)
    if isinstance(inner.extent, tirx.IntImm):
        along_row = int(inner.extent) == length
    else:  # a symbolic row: the loop over it (not over the rows: a row output's)
        along_row = bool(tvm_ffi.structural_equal(inner.extent, _row_extent(sch, block)))
    if not along_row or kinds is None or kinds[-1] != "S" or lanes < 4:
        return
    _, lane = sch.split(loops[-1], [None, lanes])
    sch.vectorize(lane)
