"""Vector loops over a symbolic extent: a predicate-free main loop and a scalar tail.

A kernel compiled once for every size (framework/ir/symbolic.py) cannot split a symbolic
extent ``t`` into whole vectors: the rules split it as ``for a < ceil(t / L): for v <
L (vectorized)`` with the block predicated ``a * L + v < t``. TVM's ``LoopPartition`` does
not peel that predicate here, and ``VectorizeLoop`` turns a vector loop whose body is
conditional on the lane into one scalar, branching iteration per lane: the symbolic GPT's
softmax ran 4x slower than the shape-specialised one, unvectorised.

:func:`peel_func` rewrites every such pair of loops (scheduled TIR, before lowering) into

    for a in range(M): for v in vectorized(L): <block, that conjunct of its predicate dropped>
    for a in range(M, ceil(t / L)): for v in range(L): <block, predicated as before>

with ``M = max(0, min(ceil(t / L), (t - c) // L))`` whole vectors (``a * L + v + c < t``
the conjunct; ``c`` free of the loops between). Loops with constant extents may stand
between ``a`` and ``v`` (a register tile's rows): they are copied into both versions. The
main loop is the same arithmetic on the same elements, so results are bit-identical; the
tail runs at most ``L - 1`` lanes per row scalar. The copy must not share variables with
the original (TIR defines each variable once), so the function is printed and parsed back,
as :mod:`.size_guard` does; a function that does not round-trip stays as it was.
"""

from __future__ import annotations

import logging

import tvm
from tvm import tirx
from tvm.s_tir import SBlockRealize
from tvm.tirx import For, ForKind, SeqStmt

from . import tir_analysis as ta

logger = logging.getLogger(__name__)


def _conjuncts(expr) -> list:
    if isinstance(expr, tirx.And):
        return _conjuncts(expr.a) + _conjuncts(expr.b)
    return [expr]


def _conjoin(terms: list):
    if not terms:
        return tirx.const(True, "bool")
    out = terms[0]
    for term in terms[1:]:
        out = tirx.And(out, term)
    return out


def _chain(stmt):
    """The loops from ``stmt`` (a For's body) down to a vectorized loop directly around a
    predicated block, each the only statement of its parent: (middle loops, vector loop,
    realize) or None."""
    middle = []
    while isinstance(stmt, For):
        if stmt.kind == ForKind.VECTORIZED:
            body = stmt.body
            if isinstance(body, SBlockRealize) and isinstance(stmt.extent, tirx.IntImm):
                return middle, stmt, body
            return None
        if not isinstance(stmt.extent, tirx.IntImm) or stmt.kind != ForKind.SERIAL:
            return None
        middle.append(stmt)
        stmt = stmt.body
    return None


def _split_predicate(realize: SBlockRealize, a: tirx.Var, v: tirx.Var, lanes: int, middle):
    """(bound expression ``(t - c)`` for the conjunct ``a * L + v + c < t``, the other
    conjuncts) or None."""
    between = {lp.loop_var for lp in middle}
    terms = _conjuncts(realize.predicate)
    for i, term in enumerate(terms):
        if not isinstance(term, tirx.LT):
            continue
        coef = tvm.sym.detect_linear_equation(term.a, [a, v])
        if not coef or len(coef) != 3:
            continue
        ca, cv, c = coef
        if not (isinstance(ca, tirx.IntImm) and int(ca) == lanes and isinstance(cv, tirx.IntImm)
                and int(cv) == 1):
            continue
        used = tirx.analysis.undefined_vars(c) + tirx.analysis.undefined_vars(term.b)
        if any(u.same_as(a) or u.same_as(v) or any(u.same_as(b) for b in between) for u in used):
            continue
        return term.b - c, terms[:i] + terms[i + 1:]
    return None


def _rebuild(middle, vector: For, realize: SBlockRealize, predicate, kind) -> tirx.Stmt:
    stmt = SBlockRealize(realize.iter_values, predicate, realize.block)
    stmt = For(vector.loop_var, vector.min, vector.extent, kind, stmt, vector.thread_binding,
               vector.annotations, vector.step)
    for loop in reversed(middle):
        stmt = For(loop.loop_var, loop.min, loop.extent, loop.kind, stmt, loop.thread_binding,
                   loop.annotations, loop.step)
    return stmt


class _Peeler:
    def __init__(self) -> None:
        self.analyzer = tvm.sym.Analyzer()
        self.count = 0

    def peel(self, loop: For):
        """The main loop and tail for ``loop`` (a For over a symbolic extent), or None."""
        if loop.kind != ForKind.SERIAL or isinstance(loop.extent, tirx.IntImm) \
                or not (isinstance(loop.min, tirx.IntImm) and int(loop.min) == 0):
            return None
        found = _chain(loop.body)
        if found is None:
            return None
        middle, vector, realize = found
        lanes = int(vector.extent)
        split = _split_predicate(realize, loop.loop_var, vector.loop_var, lanes, middle)
        if split is None:
            return None
        bound, rest = split
        extent = loop.extent
        whole = tirx.max(tirx.IntImm(str(extent.ty), 0),
                         tirx.min(extent, tirx.floordiv(bound, tirx.IntImm(str(bound.ty), lanes))))
        whole = self.analyzer.simplify(whole)
        main = For(loop.loop_var, loop.min, whole, loop.kind,
                   _rebuild(middle, vector, realize, _conjoin(rest), ForKind.VECTORIZED),
                   loop.thread_binding, loop.annotations, loop.step)
        tail = For(loop.loop_var, whole, self.analyzer.simplify(extent - whole), loop.kind,
                   _rebuild(middle, vector, realize, realize.predicate, ForKind.SERIAL),
                   loop.thread_binding, loop.annotations, loop.step)
        self.count += 1
        return SeqStmt([main, tail])

    def visit(self, stmt):
        if isinstance(stmt, For):
            peeled = self.peel(stmt)
            if peeled is not None:
                return peeled
        return ta.rebuild(stmt, self.visit)


def peel_func(func: tirx.PrimFunc) -> tuple[tirx.PrimFunc, int]:
    """``func`` with its predicated vector loops over symbolic extents peeled (see the
    module); the number peeled."""
    peeler = _Peeler()
    body = peeler.visit(func.body)
    if not peeler.count:
        return func, 0
    parsed = tvm.script.from_source(func.with_body(body).script())  # fresh variables
    return parsed, peeler.count


def peel_module(mod: tvm.IRModule) -> tvm.IRModule:
    """``mod`` with :func:`peel_func` applied to every scheduled PrimFunc (a new module)."""
    return ta.rewrite_scheduled(mod, peel_func, logger, "vector tails")


__all__ = ["peel_func", "peel_module"]
