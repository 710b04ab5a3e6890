"""Register tiles over a symbolic extent: whole tiles without their predicate, then a tail.

A register tile that splits a symbolic extent ``n`` (framework/ir/symbolic.py) into
``ceil(n / R)`` tiles of ``R`` leaves the predicate ``i0 * R + i1 < n`` on every block under
the tile loop ``i0``, where ``symbolic_tiles`` cannot pad the operands (``pad_einsum``
refuses a read that is no einsum: the packed panels of ``b`` of :mod:`.packed_matmul`, read
``b[j / w, k, j % w]``, which an LSTM's recurrent step takes for a symbolic batch). That
predicate does not depend on the tile's vector lanes, yet ``VectorizeLoop`` runs a
predicated block one lane at a time, and the tile's sums no longer stay in registers: the
LSTM LM's per-step ``(n, 512) @ (512, 2048)`` took 1.0 ms at n = 32, against 0.4 ms for
the kernel compiled for 32 rows.

:func:`peel_func` rewrites every serial loop ``a`` over a symbolic extent whose blocks
below carry conjuncts ``a * R + r < t`` (``r`` a function of loops inside ``a`` with
constant extents, at most ``r_max``; ``t`` free of them) into

    for a in range(M):        <the same loops, those conjuncts dropped>
    for a in range(M, extent): <the same loops, the predicates kept; the conjuncts free of
                               a vectorized loop's variable tested once around it, the loops
                               they use moved outermost (one row's sums in registers)>

with ``M = max(0, min(extent, (t - r_max - 1) // R + 1))``, the tiles in which every
conjunct holds for every inner iteration (one ``M`` for all the blocks, else the loop is
left as it was). Only a loop over the rows of a predicated reduction is peeled: where the
operands were padded only the padded tile's write-back is, and peeling that made a
symbolic GPT's attention matmuls 2x slower; a symbolic reduction's split (packed_matmul)
runs as fast predicated (peeled, the GPT's weight gradients gained nothing). The main
loop computes the same arithmetic on the same elements, so results are bit-identical; the
tail (at most one tile) runs vectorized behind an ``if`` per row. LSTM LM step at batch
32: 1.0 -> 0.36 ms per recurrent matmul, as the static kernel.

Like :mod:`.vector_tails` (which peels conjuncts that do depend on the lanes, and runs
first), the function is printed and parsed back (fresh variables for the copy); one that
does not round-trip keeps its schedule.
"""

from __future__ import annotations

import logging

import tvm
from tvm import tirx
from tvm.s_tir import SBlockRealize
from tvm.tirx import For, ForKind, IfThenElse, SeqStmt

from . import tir_analysis as ta
from .vector_tails import _conjoin, _conjuncts

logger = logging.getLogger(__name__)


def _realizes(stmt, loops: dict, out: list) -> None:
    """Every block realize under ``stmt`` with the constant-extent loops around it (inside
    the peeled loop): ``out`` gets ``(realize, {var: extent})``; None for a symbolic loop
    (its variable may appear nowhere in a dropped conjunct)."""
    if isinstance(stmt, For):
        extent = int(stmt.extent) if isinstance(stmt.extent, tirx.IntImm) and \
            isinstance(stmt.min, tirx.IntImm) and int(stmt.min) == 0 else None
        _realizes(stmt.body, {**loops, stmt.loop_var: extent}, out)
    elif isinstance(stmt, SeqStmt):
        for s in stmt.seq:
            _realizes(s, loops, out)
    elif isinstance(stmt, IfThenElse):
        _realizes(stmt.then_case, loops, out)
        if stmt.else_case is not None:
            _realizes(stmt.else_case, loops, out)
    elif isinstance(stmt, SBlockRealize):
        out.append((stmt, loops))


def _tiles_rows(realize: SBlockRealize, a: tirx.Var) -> bool:
    """Is ``realize`` a reduction whose loop ``a`` runs over output rows only (a register
    tile's rows, not a split of the reduction itself)?"""
    ivs = realize.block.iter_vars
    if not any(int(iv.iter_type) == 2 for iv in ivs):
        return False
    uses = [iv for iv, value in zip(ivs, realize.iter_values)
            if any(u.same_as(a) for u in tirx.analysis.undefined_vars(value))]
    return bool(uses) and all(int(iv.iter_type) == 0 for iv in uses)


class _Peeler:
    def __init__(self) -> None:
        self.analyzer = tvm.sym.Analyzer()
        self.count = 0

    def _tile_bound(self, term, a: tirx.Var, loops: dict):
        """``(t - r_max - 1) // R + 1`` for a conjunct ``a * R + r < t`` (see the module),
        else None."""
        if not isinstance(term, tirx.LT):
            return None
        coef = tvm.sym.detect_linear_equation(term.a, [a])
        if not coef or len(coef) != 2 or not isinstance(coef[0], tirx.IntImm) or int(coef[0]) < 2:
            return None
        tile, rest = int(coef[0]), coef[1]
        used = tirx.analysis.undefined_vars(rest)
        bound_vars = tirx.analysis.undefined_vars(term.b)
        if any(u.same_as(a) or any(u.same_as(v) for v in loops) for u in bound_vars):
            return None  # t: free of the peeled loop and of every loop inside it
        inner = {v: e for v, e in loops.items() if any(u.same_as(v) for u in used)}
        if not inner or any(e is None for e in inner.values()) \
                or len(inner) != len(used):  # r: inner constant loops only
            return None
        analyzer = tvm.sym.Analyzer()
        for v, e in inner.items():
            analyzer.bind(v, tvm.ir.Range.from_min_extent(0, e))
        r_max = analyzer.const_int_bound(rest).max_value
        if r_max >= 1 << 40:
            return None
        one = tirx.IntImm(str(term.b.ty), 1)
        return tirx.floordiv(term.b - tirx.IntImm(str(term.b.ty), r_max) - one,
                             tirx.IntImm(str(term.b.ty), tile)) + one

    def peel(self, loop: For):
        if loop.kind != ForKind.SERIAL or isinstance(loop.extent, tirx.IntImm) \
                or not (isinstance(loop.min, tirx.IntImm) and int(loop.min) == 0):
            return None
        found: list = []
        _realizes(loop.body, {}, found)
        bound, dropped = None, {}
        for realize, loops in found:
            for term in _conjuncts(realize.predicate):
                b = self._tile_bound(term, loop.loop_var, loops)
                if b is None:
                    continue
                if bound is not None and not self.analyzer.can_prove_equal(b, bound):
                    return None
                bound = b
                dropped.setdefault(realize.block.name_hint, []).append(term)
        if bound is None or not any(_tiles_rows(realize, loop.loop_var) for realize, _ in found
                                    if realize.block.name_hint in dropped):
            return None
        extent = loop.extent
        zero = tirx.IntImm(str(extent.ty), 0)
        whole = self.analyzer.simplify(tirx.max(zero, tirx.min(extent, bound.astype(extent.ty))))

        def strip(stmt):
            if isinstance(stmt, SBlockRealize) and stmt.block.name_hint in dropped:
                gone = dropped[stmt.block.name_hint]
                kept = [t for t in _conjuncts(stmt.predicate)
                        if not any(t.same_as(g) for g in gone)]
                return SBlockRealize(stmt.iter_values, _conjoin(kept), stmt.block)
            return ta.rebuild(stmt, strip)

        main = For(loop.loop_var, loop.min, whole, loop.kind, strip(loop.body),
                   loop.thread_binding, loop.annotations, loop.step)
        tail = For(loop.loop_var, whole, self.analyzer.simplify(extent - whole), loop.kind,
                   _hoist(loop.body), loop.thread_binding, loop.annotations, loop.step)
        self.count += 1
        return SeqStmt([main, tail])

    def visit(self, stmt):
        if isinstance(stmt, For):
            peeled = self.peel(stmt)
            if peeled is not None:
                return peeled
        return ta.rebuild(stmt, self.visit)


def _loop(loop: For, body) -> For:
    return For(loop.loop_var, loop.min, loop.extent, loop.kind, body, loop.thread_binding,
               loop.annotations, loop.step)


def _hoist(stmt):
    """Serial loops of constant extent down to a vectorized loop right around a predicated
    block: the conjuncts free of the vector's variable tested once, under the loops they
    use, which go first (the reduction's loops then run under the test: one row's sums
    stay in registers; each output's reduction keeps its order)."""
    chain, inner = [], stmt
    while isinstance(inner, For) and inner.kind == ForKind.SERIAL and isinstance(inner.extent, tirx.IntImm):
        chain.append(inner)
        inner = inner.body
    if not (isinstance(inner, For) and inner.kind == ForKind.VECTORIZED
            and isinstance(inner.body, SBlockRealize)):
        return ta.rebuild(stmt, _hoist)
    realize = inner.body
    terms = _conjuncts(realize.predicate)
    free = [t for t in terms if not isinstance(t, tirx.IntImm)
            and not any(u.same_as(inner.loop_var) for u in tirx.analysis.undefined_vars(t))]
    if not free:
        return stmt
    used = [u for t in free for u in tirx.analysis.undefined_vars(t)]
    first = [lp for lp in chain if any(u.same_as(lp.loop_var) for u in used)]
    rest = [lp for lp in chain if not any(lp.same_as(f) for f in first)]
    kept = [t for t in terms if not any(t.same_as(f) for f in free)]
    body = _loop(inner, SBlockRealize(realize.iter_values, _conjoin(kept), realize.block))
    for lp in reversed(rest):
        body = _loop(lp, body)
    body = IfThenElse(_conjoin(free), body, None)
    for lp in reversed(first):
        body = _loop(lp, body)
    return body


def peel_func(func: tirx.PrimFunc) -> tuple[tirx.PrimFunc, int]:
    """``func`` with its predicated register tiles over symbolic extents peeled (see the
    module); the number peeled."""
    peeler = _Peeler()
    body = peeler.visit(func.body)
    if not peeler.count:
        return func, 0
    parsed = tvm.script.from_source(func.with_body(body).script())  # fresh variables
    return parsed, peeler.count


def peel_module(mod: tvm.IRModule) -> tvm.IRModule:
    """``mod`` with :func:`peel_func` applied to every scheduled PrimFunc (a new module)."""
    return ta.rewrite_scheduled(mod, peel_func, logger, "row tails")


__all__ = ["peel_func", "peel_module"]
