"""Inlining producer blocks into their consumers in a CPU schedule (:mod:`.cpu_rules`): every
spatial block that can be inlined is, except those a rule keeps and, for elementwise
PrimFuncs, costly ones read more than once (each read copies the expression)."""

from __future__ import annotations

from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

INLINE_ANY_READS = 24  # expression nodes up to which a block is inlined however often it is read
# expression nodes a multiply-read block may copy into its consumers: LLVM computes the copies
# of a pure expression once (common subexpressions), so a bounded copy costs nothing at run
# time, while storing and reloading a full-size intermediate costs a pass over memory (a
# bf16 BatchNorm + rounding + ReLU chain: 2.7x slower materialized); the bound keeps a chain of
# ``fast_tanh`` from growing exponentially
INLINE_COPIED = 512


def inline_all(sch: Schedule, keep, guard: bool = False) -> None:
    """Inline every spatial block that can be inlined, except the blocks in ``keep`` and,
    with ``guard`` (elementwise PrimFuncs), costly ones read more than once: inlining
    copies the expression per read, and a chain of ``fast_tanh`` would grow exponentially."""
    changed = True
    while changed:
        changed = False
        for block in ta.blocks(sch):
            if sch.get(block).name_hint in keep or (guard and _costly_to_inline(sch, block)):
                continue
            try:
                sch.compute_inline(block)
                changed = True
                break
            except Exception:  # output blocks, reductions: not inlinable
                continue


def _costly_to_inline(sch: Schedule, block) -> bool:
    stmt = sch.get(block)
    if not isinstance(stmt.body, tirx.BufferStore) or len(stmt.writes) != 1 \
            or ta.expr_size(stmt.body.value) <= INLINE_ANY_READS:
        return False
    out = stmt.writes[0].source
    reads = sum(ta.loads_of(sch.get(c).body, out) for c in sch.get_consumers(block))
    return reads > 1 and ta.expr_size(stmt.body.value) * reads > INLINE_COPIED
