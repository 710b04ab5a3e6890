"""Loops in Relax, without a loop instruction.

The Relax VM has none, and it recurses on the C stack (a few thousand nested calls
crash it; TVM_NOTES). :func:`emit_loop` therefore builds a loop as a bounded tree of
calls: ``step`` tests the condition and runs the body once if it holds; ``level1`` tries
``step`` ``FANOUT`` times (skipping once the loop is done), ``level2`` tries ``level1``
``FANOUT`` times, and so on; ``top`` runs the highest level and calls itself until the
loop is done. The recursion depth is iterations / FANOUT**LEVELS, and past
``MAX_ITERATIONS`` the run stops with a clear error instead of a native crash.

The backward of a loop (``WhileGrad``) is in :mod:`.loop_grad`.
"""

from __future__ import annotations

from collections.abc import Callable

import tvm
from tvm import relax

FANOUT, LEVELS = 8, 3
MAX_DEPTH = 1000
MAX_ITERATIONS = FANOUT ** LEVELS * MAX_DEPTH


def fresh_type(ty: relax.TensorType) -> relax.TensorType:
    """``ty`` with new symbolic variables for its symbolic dims (one set per function)."""
    dims = [d if isinstance(d, tvm.tirx.IntImm) else tvm.tirx.Var("n", "int64") for d in ty.shape.values]
    return relax.TensorType(dims, ty.dtype)


def emit_loop(bb: relax.BlockBuilder, name: str, cond_gv: relax.GlobalVar, body_gv: relax.GlobalVar,
              args: list[relax.Expr], n_carried: int,
              stubs: list[str]) -> tuple[list[relax.Expr], relax.Expr]:
    """Run ``body_gv(*args) -> (carried',)`` while ``cond_gv(*args) -> (bool,)`` holds;
    ``args[:n_carried]`` change, the rest stay. Returns (final args, trip count)."""
    arg_types = [a.ty for a in args]
    n_state = 2 + len(args)

    def params() -> list[relax.Var]:
        types = [relax.TensorType((), "bool"), relax.TensorType((), "int64")]
        types += [fresh_type(t) for t in arg_types]
        return [relax.Var(f"s{i}", ty) for i, ty in enumerate(types)]

    def unpack(result: relax.Expr) -> list[relax.Expr]:
        return [bb.emit(relax.TupleGetItem(result, i)) for i in range(n_state)]

    s = params()  # advance: the body once
    with bb.function(f"{name}_advance", s, pure=False, private=True):
        ran = bb.emit(relax.Call(body_gv, s[2:]))
        count = bb.emit(relax.op.add(s[1], relax.const(1, "int64")))
        new = [bb.emit(relax.TupleGetItem(ran, i)) for i in range(n_carried)]
        advance = bb.emit_func_output(relax.Tuple([s[0], count, *new, *s[2 + n_carried:]]))
    s = params()  # step: test the condition; advance if it holds, else done
    with bb.function(f"{name}_step", s, pure=False, private=True):
        go = bb.emit(relax.TupleGetItem(bb.emit(relax.Call(cond_gv, s[2:])), 0))
        done = bb.emit(relax.op.logical_not(go))
        r = bb.emit(relax.If(go, relax.SeqExpr([], relax.Call(advance, s)),
                             relax.SeqExpr([], relax.Tuple([done, *s[1:]]))))
        level = bb.emit_func_output(r)
    for depth in range(1, LEVELS + 1):
        s = params()
        with bb.function(f"{name}_level{depth}", s, pure=False, private=True):
            cur: list[relax.Expr] = s
            for _ in range(FANOUT):
                r = bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)),
                                     relax.SeqExpr([], relax.Call(level, cur))))
                cur = unpack(r)
            level = bb.emit_func_output(relax.Tuple(cur))
    top = _recursive_top(bb, name, params, level, unpack, stubs)
    final = unpack(bb.emit(relax.Call(top, [relax.const(False, "bool"), relax.const(0, "int64"), *args])))
    return final[2:], final[1]


def _recursive_top(bb: relax.BlockBuilder, name: str, params: Callable[[], list[relax.Var]],
                   level: relax.GlobalVar, unpack: Callable, stubs: list[str]) -> relax.GlobalVar:
    """``top(state)``: the highest level, then itself until done (declared first, so that
    its body can call it; the declaration is replaced by the body)."""
    s = params()  # the attribute keeps BlockBuilder from merging it with an equal declaration
    with bb.function(f"{name}_top", s, pure=False, private=True, attrs={"twinmode_loop": name}):
        top = bb.emit_func_output(relax.Tuple(s))
    s = params()
    with bb.function(f"{name}_top_impl", s, pure=False, private=True):
        cur = unpack(bb.emit(relax.Call(level, s)))
        within = bb.emit(relax.op.less(cur[1], relax.const(MAX_ITERATIONS, "int64")))
        ok = bb.emit(relax.op.logical_or(cur[0], within))
        bb.emit(relax.op.assert_op(ok, format=(
            f"graph mode: a while loop ran {MAX_ITERATIONS} iterations without finishing; "
            "check its condition, or run it in PyNative mode")))
        r = bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)),
                             relax.SeqExpr([], relax.Call(top, cur))))
        impl = bb.emit_func_output(r)
    bb.update_func(top, bb.get()[impl])
    stubs.append(impl.name_hint)
    return top


__all__ = ["FANOUT", "LEVELS", "MAX_ITERATIONS", "emit_loop", "fresh_type"]
