"""Small structural queries on TIR blocks for the CPU schedule rules (:mod:`.cpu_rules`),
and the closing steps every register-tiled reduction schedule shares (:func:`finish_tile`)."""

from __future__ import annotations

import tvm
import tvm_ffi
from tvm import s_tir, tirx
from tvm.s_tir import Schedule


def blocks(sch: Schedule) -> list:
    """The blocks directly under the root block (legalized PrimFuncs are flat)."""
    return list(sch.get_child_blocks(sch.get_sblock("root")))


# The extent the rules assume for an iterator of a symbolic size (a batch compiled once for
# every size, framework/ir/symbolic.py): large enough that they run it in parallel. The
# schedule primitives stay exact whatever the size: a split they cannot prove raises and
# the kernel keeps its plain schedule.
SYMBOLIC_EXTENT = 64


def extent(value) -> int:
    """An int extent, :data:`SYMBOLIC_EXTENT` for a symbolic one."""
    return int(value) if isinstance(value, tirx.IntImm | int) else SYMBOLIC_EXTENT


def axes(sch: Schedule, block) -> list[tuple[str, int, tirx.Var]]:
    """(kind 'S'|'R', extent, iter var) of each block iterator, in loop order."""
    out = []
    for iv in sch.get(block).iter_vars:
        kind = {0: "S", 2: "R"}.get(int(iv.iter_type))
        if kind is None:
            raise ValueError("unsupported iterator")
        out.append((kind, extent(iv.dom.extent), iv.var))
    return out


def vars_in(exprs) -> set:
    """Every variable the expressions use."""
    found: set = set()
    for e in exprs:
        tvm_ffi.structural_walk(e, (tirx.Var, found.add), order="post")
    return found


def reads(sch: Schedule, block) -> list[tuple[object, set]]:
    """(buffer, iter vars its index uses) for each read buffer other than the output."""
    stmt = sch.get(block)
    out = []
    for r in stmt.reads:
        if any(r.source.same_as(w.source) for w in stmt.writes):
            continue
        out.append((r.source, vars_in([rg.min for rg in r.region])))
    return out


def work(iterators) -> int:
    """The product of the extents of ``(kind, extent, var)`` iterators."""
    n = 1
    for _, e, _ in iterators:
        n *= e
    return n


def divisor_at_most(extent: int, bound: int) -> int:
    """The largest divisor of ``extent`` not above ``bound`` (at least 1)."""
    return max(f for f in range(1, max(1, min(extent, bound)) + 1) if extent % f == 0)


def is_sum_of_products(body) -> bool:
    """``C[i] = C[i] + x * y`` (either operand order, casts allowed)."""
    if not isinstance(body, tirx.BufferStore) or not isinstance(body.value, tirx.Add):
        return False
    terms = [body.value.a, body.value.b]
    terms = [t.value if isinstance(t, tirx.Cast) else t for t in terms]
    own = [t for t in terms if isinstance(t, tvm.ir.expr.TensorLoad) and t.source.same_as(body.buffer)]
    return len(own) == 1 and any(isinstance(t, tirx.Mul) for t in terms)


def contains(stmt, kinds: tuple) -> bool:
    found = []
    tvm_ffi.structural_walk(stmt, (kinds, found.append), order="post")
    return bool(found)


def expr_size(expr) -> int:
    """How many expression nodes ``expr`` holds (a measure of what inlining it copies)."""
    found: list = []
    tvm_ffi.structural_walk(expr, (tvm.ir.expr.Expr, found.append), order="post")
    return len(found)


def loads_of(stmt, buffer) -> int:
    """How many times ``stmt`` reads ``buffer``."""
    found: list = []
    tvm_ffi.structural_walk(stmt, (tvm.ir.expr.TensorLoad, found.append), order="post")
    return sum(1 for load in found if load.source.same_as(buffer))


def is_padding(sch: Schedule, block) -> bool:
    """A spatial block whose value is conditional (``if_then_else``/``Select``): padding."""
    body = sch.get(block).body
    if contains(body, (tirx.Select,)):
        return True
    calls = []
    tvm_ffi.structural_walk(body, (tvm.ir.Call, calls.append), order="post")
    return any(getattr(c.op, "name", "").endswith("if_then_else") for c in calls)


def written_size(sch: Schedule, block) -> int:
    """How many elements the block writes (its first output buffer's size)."""
    size = 1
    for d in sch.get(block).writes[0].source.shape:
        size *= extent(d)
    return size


def attachable(sch: Schedule, consumers, block) -> list:
    """The consumers that may be ``reverse_compute_at`` into ``block``'s tile loops: those
    writing no more elements than it. ``reverse_compute_at`` computes only the part of a
    consumer that reads the tile, so the rest of a larger one (a ``pad`` or ``concat`` of
    the result fused with it) would never be written; those stay at the root."""
    limit = written_size(sch, block)
    return [c for c in consumers if written_size(sch, c) <= limit]


def is_copy(body) -> bool:
    """A plain copy (transpose, flip, cast): ``B[f(i)] = A[g(i)]``."""
    if not isinstance(body, tirx.BufferStore):
        return False
    value = body.value.value if isinstance(body.value, tirx.Cast) else body.value
    return isinstance(value, tvm.ir.expr.TensorLoad)


def loop_kinds(sch: Schedule, loops) -> list[str] | None:
    """'R' for each loop that binds a reduction iterator of the block under it, else 'S'."""
    if not loops:
        return []
    realize = sch.get(loops[-1]).body
    if not hasattr(realize, "iter_values"):
        return None
    reduce_vars = vars_in([value for iv, value in zip(realize.block.iter_vars, realize.iter_values)
                           if int(iv.iter_type) == 2])
    return ["R" if any(sch.get(lp).loop_var.same_as(v) for v in reduce_vars) else "S"
            for lp in loops]


def finish_tile(sch: Schedule, block, unroll_at, unroll: int, vector, reduce_at,
                vectorize_init: bool = True):
    """The end of a register-tiled reduction's schedule: unroll (explicitly) up to
    ``unroll`` steps under loop ``unroll_at``, vectorize loop ``vector``, split the
    initialization off at loop ``reduce_at`` and (``vectorize_init``) vectorize its
    innermost loop. Returns the initialization block."""
    sch.annotate(unroll_at, "pragma_auto_unroll_max_step", unroll)
    sch.annotate(unroll_at, "pragma_unroll_explicit", 1)
    sch.vectorize(vector)
    init = sch.decompose_reduction(block, reduce_at)
    if vectorize_init:
        sch.vectorize(sch.get_loops(init)[-1])
    return init


def rewrite_scheduled(mod: tvm.IRModule, rewrite, logger, what: str) -> tvm.IRModule:
    """``mod`` (a new module) with ``rewrite(func) -> (func, count)`` applied to every
    scheduled PrimFunc; a function it changes nothing in (count 0) or fails on keeps its
    schedule, which is correct as it is (logged at debug level: ``no {what} for NAME``)."""
    mod = mod.clone()
    for gv, func in list(mod.functions.items()):
        if not isinstance(func, tirx.PrimFunc) or not func.attrs.get("tirx.is_scheduled", False):
            continue
        try:
            rewritten, count = rewrite(func)
        except Exception as error:  # noqa: BLE001 - the schedule as it was is correct
            logger.debug("no %s for %s: %s", what, gv.name_hint, error)
            continue
        if count:
            mod.update_func(gv, rewritten)
    return mod


def rebuild(stmt, visit):
    """``stmt`` with ``visit`` applied to its child statements (a loop's body, a sequence's
    statements, both branches of an if, a block's body), for the rewriting visitors of the
    schedules (TVM 0.27 has no Python statement mutator for s_tir blocks); any other
    statement is returned as it is."""
    if isinstance(stmt, tirx.For):
        return tirx.For(stmt.loop_var, stmt.min, stmt.extent, stmt.kind, visit(stmt.body),
                   stmt.thread_binding, stmt.annotations, stmt.step)
    if isinstance(stmt, tirx.SeqStmt):
        return tirx.SeqStmt([visit(s) for s in stmt.seq])
    if isinstance(stmt, tirx.IfThenElse):
        return tirx.IfThenElse(stmt.condition, visit(stmt.then_case),
                          None if stmt.else_case is None else visit(stmt.else_case))
    if isinstance(stmt, s_tir.SBlockRealize):
        b = stmt.block
        block = s_tir.SBlock(b.iter_vars, b.reads, b.writes, b.name_hint, visit(b.body), b.init,
                       b.alloc_buffers, b.match_buffers, b.annotations)
        return s_tir.SBlockRealize(stmt.iter_values, stmt.predicate, block)
    return stmt

