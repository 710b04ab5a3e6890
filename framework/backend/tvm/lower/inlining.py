"""Inlining of loop-body functions after fusion.

A loop's body and a loop gradient's VJP are lowered as functions of their own, so that
FuseOps (which fuses dataflow blocks of a function, not the branches of a ``relax.If``)
fuses their kernels. Called as functions, though, each call checks every tensor
parameter (two VM calls each) and packs its results in a tuple: for a small loop body
that is a third of an iteration's VM work. Once fusion is done, nothing needs them to be
functions any more: this pass (placed after ``ToNonDataflow``) puts the body of every
function marked with :data:`INLINE` in place of its calls and drops the function.

Contract: a marked function is private, not recursive, and called from few places (its
code is copied into each caller).
"""

from __future__ import annotations

import tvm
from tvm import relax

INLINE = "twinmode_inline"  # function attribute: inline after fusion


@tvm.transform.module_pass(opt_level=0, name="InlineMarkedFunctions")
def inline_marked(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    marked = {gv: f for gv, f in mod.functions.items()
              if isinstance(f, relax.Function) and f.attrs is not None and INLINE in f.attrs}
    if not marked:
        return mod
    # a marked function may call another (a loop inside a loop's body): inline those first
    for _ in range(len(marked)):
        changed = {gv: f.inline_functions(marked) for gv, f in marked.items()}
        if all(changed[gv].same_as(marked[gv]) for gv in marked):
            break
        marked = changed
    kept = {gv: (f.inline_functions(marked) if isinstance(f, relax.Function) else f)
            for gv, f in mod.functions.items() if gv not in marked}
    return tvm.IRModule(kept, attrs=mod.attrs)


__all__ = ["INLINE", "inline_marked"]
