"""Parallel loops of kernels with symbolic extents, guarded by the size at run time.

The CPU rules (:mod:`.cpu_rules`) run a block's leading loops in parallel only when the
block does at least ``PARALLEL_MIN_WORK`` iterations: below that, waking the thread pool
costs more than the work (a few microseconds per launch, more on a loaded machine). For a
symbolic extent (a batch compiled once for every size, :mod:`framework.ir.symbolic`) the
rules cannot know the work and assume a large size, so a kernel compiled once ran its small
sizes in parallel: a 1-row matmul in a loop body paid ~3-7 us of launch for ~0.2 us of work,
at every iteration.

:func:`guard_module` rewrites every scheduled PrimFunc whose parallel loop's work depends on
a symbolic size: the loop becomes ``if work >= PARALLEL_MIN_WORK: <parallel loop> else:
<the same loop nest, serial>``, where ``work`` is, as the rules count it, the largest
iteration domain (product of the iterator extents) of a block under the loop, an
expression in the sizes evaluated at run time. A loop whose work is static, or provably at
least the threshold for every size >= 1, is left alone. The duplicated nest must not share
variables with the original (TIR defines each variable once), so the rewritten function is
printed and parsed back (fresh variables per definition); a function that does not round-trip
keeps its unguarded schedule (correct, slower at small sizes). A root buffer that only the
guarded loop uses is allocated inside each version (an opaque block around it): TVM then
still places it inside the parallel loop, one per thread; left at the root, both threads
shared it and a batch-32 ``h^T g`` ran 1.7x slower.

Measured (bench/symbolic_batch.py --model rnn_while, symbolic / per-size step time): batch
1: 7-21x -> 1.25x, batch 7: 13-19x -> 1.26x; batch 32 and above unchanged (~1.1-1.7x: tile
predicates and packing, not the thread pool).
"""

from __future__ import annotations

import logging

import tvm
from tvm import tirx
from tvm.s_tir import SBlock, SBlockRealize
from tvm.tirx import For, ForKind, IfThenElse, SeqStmt

from . import tir_analysis as ta
from .cpu_rules import PARALLEL_MIN_WORK

logger = logging.getLogger(__name__)

ATTR = "twinmode.size_guarded"  # marks a guarded PrimFunc (the guard is applied once)


def _blocks(stmt: tirx.Stmt, out: list) -> list:
    if isinstance(stmt, For):
        _blocks(stmt.body, out)
    elif isinstance(stmt, SeqStmt):
        for s in stmt.seq:
            _blocks(s, out)
    elif isinstance(stmt, SBlockRealize):
        out.append(stmt.block)
        _blocks(stmt.block.body, out)
    elif isinstance(stmt, IfThenElse):
        _blocks(stmt.then_case, out)
        if stmt.else_case is not None:
            _blocks(stmt.else_case, out)
    return out


def work(stmt: tirx.Stmt) -> tirx.PrimExpr | None:
    """The largest iteration domain of a block in ``stmt`` (None: no block)."""
    out = None
    for block in _blocks(stmt, []):
        w = tirx.IntImm("int64", 1)
        for iv in block.iter_vars:
            e = iv.dom.extent
            w = w * (e if str(e.ty) == "int64" else tirx.Cast("int64", e))
        out = w if out is None else tirx.max(out, w)
    return out


def _serial(stmt: tirx.Stmt) -> tirx.Stmt:
    """``stmt`` with its parallel loops serial (the rest shared)."""
    if isinstance(stmt, For):
        kind = ForKind.SERIAL if stmt.kind == ForKind.PARALLEL else stmt.kind
        return For(stmt.loop_var, stmt.min, stmt.extent, kind, _serial(stmt.body), stmt.thread_binding,
                   stmt.annotations, stmt.step)
    if isinstance(stmt, SeqStmt):
        return SeqStmt([_serial(s) for s in stmt.seq])
    if isinstance(stmt, IfThenElse):
        return IfThenElse(stmt.condition, _serial(stmt.then_case),
                          None if stmt.else_case is None else _serial(stmt.else_case))
    if isinstance(stmt, SBlockRealize):
        return SBlockRealize(stmt.iter_values, stmt.predicate, _with_body(stmt.block, _serial(stmt.block.body)))
    return stmt


def _with_body(block: SBlock, body: tirx.Stmt) -> SBlock:
    return SBlock(block.iter_vars, block.reads, block.writes, block.name_hint, body, block.init,
                  block.alloc_buffers, block.match_buffers, block.annotations)


class _Guard:
    """Finds the parallel loops to guard (``loops``), then rewrites them (``visit``)."""

    def __init__(self) -> None:
        self.analyzer = tvm.sym.Analyzer()
        self.loops: list[tuple[For, tirx.PrimExpr]] = []  # (loop, its work)
        self.moved: list[list] = []  # per loop: the root buffers only it uses

    def small_possible(self, w: tirx.PrimExpr) -> bool:
        """Whether ``w`` is not static and can be below the threshold for sizes >= 1."""
        w = self.analyzer.simplify(w)
        sizes = tirx.analysis.undefined_vars(w)
        if not sizes:
            return False
        positive = sizes[0] >= tirx.IntImm(str(sizes[0].ty), 1)
        for v in sizes[1:]:
            positive = tirx.And(positive, v >= tirx.IntImm(str(v.ty), 1))
        with self.analyzer.constraint_scope(positive):
            return not self.analyzer.can_prove(w >= tirx.IntImm("int64", PARALLEL_MIN_WORK))

    def find(self, stmt: tirx.Stmt) -> None:
        if isinstance(stmt, For) and stmt.kind == ForKind.PARALLEL:
            w = work(stmt.body)
            if w is not None and self.small_possible(w):
                self.loops.append((stmt, w))
            return
        for s in _children(stmt):
            self.find(s)

    def _index(self, stmt: tirx.Stmt) -> int | None:
        return next((i for i, (loop, _) in enumerate(self.loops) if loop.same_as(stmt)), None)

    def plan(self, root: SBlock) -> None:
        """Which of ``root``'s buffers each guarded loop alone uses: allocated inside its two
        versions, so that TVM still places them per thread (inside the parallel loop)."""
        users: list[tuple[object, set]] = []  # (buffer, owners: loop index or -1 outside)

        def note(stmt: tirx.Stmt, owner: int) -> None:
            for block in _blocks(stmt, []):
                for region in [*block.reads, *block.writes]:
                    entry = next((u for u in users if u[0].same_as(region.source)), None)
                    if entry is None:
                        users.append((region.source, {owner}))
                    else:
                        entry[1].add(owner)

        def walk(stmt: tirx.Stmt) -> None:
            i = self._index(stmt)
            if i is not None:
                note(stmt, i)
            elif isinstance(stmt, SBlockRealize):
                note(stmt, -1)
            else:
                for s in _children(stmt):
                    walk(s)

        walk(root.body)
        self.moved = [[b for b in root.alloc_buffers
                       if any(u[0].same_as(b) and u[1] == {i} for u in users)] for i in range(len(self.loops))]

    def visit(self, stmt: tirx.Stmt) -> tirx.Stmt:
        i = self._index(stmt)
        if i is not None:
            loop, w = self.loops[i]
            return IfThenElse(w >= tirx.IntImm("int64", PARALLEL_MIN_WORK), self._wrap(loop, i, "parallel"),
                              self._wrap(_serial(loop), i, "serial"))
        return ta.rebuild(stmt, self.visit)

    def _wrap(self, loop: tirx.Stmt, i: int, name: str) -> tirx.Stmt:
        if not self.moved[i]:
            return loop
        block = SBlock([], [], [], f"size_guard_{name}", loop, None, self.moved[i], [], {})
        return SBlockRealize([], tirx.const(True, "bool"), block)


def _children(stmt: tirx.Stmt) -> list:
    if isinstance(stmt, For):
        return [stmt.body]
    if isinstance(stmt, SeqStmt):
        return list(stmt.seq)
    if isinstance(stmt, IfThenElse):
        return [stmt.then_case] + ([] if stmt.else_case is None else [stmt.else_case])
    if isinstance(stmt, SBlockRealize):
        return [stmt.block.body]
    return []


def guard_func(func: tirx.PrimFunc) -> tuple[tirx.PrimFunc, int]:
    """``func`` with its size-dependent parallel loops guarded; the number guarded."""
    if func.attrs is not None and func.attrs.get(ATTR, False):
        return func, 0
    realize = func.body
    if not isinstance(realize, SBlockRealize):
        return func, 0
    guard = _Guard()
    guard.find(realize.block.body)
    if not guard.loops:
        return func, 0
    root = realize.block
    guard.plan(root)
    moved = [b for group in guard.moved for b in group]
    kept = [b for b in root.alloc_buffers if not any(b.same_as(m) for m in moved)]
    root = SBlock(root.iter_vars, root.reads, root.writes, root.name_hint, guard.visit(root.body), root.init,
                  kept, root.match_buffers, root.annotations)
    rewritten = func.with_body(SBlockRealize(realize.iter_values, realize.predicate, root))
    parsed = tvm.script.from_source(rewritten.script())  # fresh variables in the copy
    return parsed.with_attr(ATTR, True), len(guard.loops)


def guard_module(mod: tvm.IRModule) -> tvm.IRModule:
    """``mod`` with :func:`guard_func` applied to every scheduled PrimFunc (a new module)."""
    return ta.rewrite_scheduled(mod, guard_func, logger, "size guard")


__all__ = ["ATTR", "guard_func", "guard_module", "work"]
