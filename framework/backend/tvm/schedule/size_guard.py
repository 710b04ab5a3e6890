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
keeps its unguarded schedule (correct, slower at small sizes).
"""

from __future__ import annotations

import logging

import tvm
from tvm import tirx
from tvm.s_tir import SBlock, SBlockRealize
from tvm.tirx import For, ForKind, IfThenElse, SeqStmt

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
    def __init__(self) -> None:
        self.analyzer = tvm.sym.Analyzer()
        self.guarded = 0

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

    def visit(self, stmt: tirx.Stmt) -> tirx.Stmt:
        if isinstance(stmt, For):
            if stmt.kind == ForKind.PARALLEL:
                w = work(stmt.body)
                if w is not None and self.small_possible(w):
                    self.guarded += 1
                    return IfThenElse(w >= tirx.IntImm("int64", PARALLEL_MIN_WORK), stmt, _serial(stmt))
                return stmt
            return For(stmt.loop_var, stmt.min, stmt.extent, stmt.kind, self.visit(stmt.body),
                       stmt.thread_binding, stmt.annotations, stmt.step)
        if isinstance(stmt, SeqStmt):
            return SeqStmt([self.visit(s) for s in stmt.seq])
        if isinstance(stmt, IfThenElse):
            return IfThenElse(stmt.condition, self.visit(stmt.then_case),
                              None if stmt.else_case is None else self.visit(stmt.else_case))
        if isinstance(stmt, SBlockRealize):
            return SBlockRealize(stmt.iter_values, stmt.predicate, _with_body(stmt.block, self.visit(stmt.block.body)))
        return stmt


def guard_func(func: tirx.PrimFunc) -> tuple[tirx.PrimFunc, int]:
    """``func`` with its size-dependent parallel loops guarded; the number guarded."""
    if func.attrs is not None and func.attrs.get(ATTR, False):
        return func, 0
    guard = _Guard()
    body = guard.visit(func.body)
    if not guard.guarded:
        return func, 0
    rewritten = func.with_body(body)
    parsed = tvm.script.from_source(rewritten.script())  # fresh variables in the copy
    return parsed.with_attr(ATTR, True), guard.guarded


def guard_module(mod: tvm.IRModule) -> tvm.IRModule:
    """``mod`` with :func:`guard_func` applied to every scheduled PrimFunc (a new module)."""
    mod = mod.clone()
    for gv, func in list(mod.functions.items()):
        if not isinstance(func, tirx.PrimFunc) or not func.attrs.get("tirx.is_scheduled", False):
            continue
        try:
            guarded, count = guard_func(func)
        except Exception as error:  # noqa: BLE001 - keeps its unguarded (correct) schedule
            logger.debug("no size guard for %s: %s", gv.name_hint, error)
            continue
        if count:
            mod.update_func(gv, guarded)
    return mod


__all__ = ["ATTR", "guard_func", "guard_module", "work"]
