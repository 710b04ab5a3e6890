"""Loops in Relax, without a loop instruction.

The Relax VM has none, and it recurses on the C stack (a few thousand nested calls
crash it; TVM_NOTES). :func:`emit_loop` therefore builds a loop as a bounded tree of
calls: ``step`` tests the condition and runs the body if it holds, up to ``UNROLL`` times
(an iteration's test nested in the previous one's branch); ``level1`` tries ``step``
``FANOUT`` times (skipping once the loop is done), ``level2`` tries ``level1`` ``FANOUT``
times, and so on; ``top`` runs the highest level and calls itself until the loop is done.
The recursion depth is iterations / (UNROLL * FANOUT**LEVELS), and past
``MAX_ITERATIONS`` the run stops with a clear error instead of a native crash.

Cost contract: every Relax function entry checks each tensor parameter (two VM calls
each), so the tree passes only ``(done, count, state)`` where ``state`` is one opaque
tuple of the loop's values. ``step`` unpacks it with unchecked typed reads and emits the
conditions and the bodies inline (the callers' callbacks), so ``UNROLL`` iterations cost
one function entry, one read per loop value and the bodies' own calls.

The backward of a loop (``WhileGrad``) is in :mod:`.loop_grad`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import tvm
from tvm import relax

UNROLL, FANOUT, LEVELS = 2, 8, 3
AHEAD = UNROLL * FANOUT  # iterations of one level1 call (what ``reserve`` prepares for)
MAX_DEPTH = 1000
MAX_ITERATIONS = AHEAD * FANOUT ** (LEVELS - 1) * MAX_DEPTH

# With ``count`` the iterations run so far (0-d int64): cond(values, count) emits the test
# into the current block and returns a 0-d bool; body(values, count) emits one iteration
# and returns the new values of values[:n_carried] and, optionally, the test for the next
# iteration (None: ``cond`` is called on the new values). Unrolled iterations run inside
# an If's branch, where a dataflow block cannot be opened: a ``cond`` that opens one (to
# have its ops fused) must come with a body that returns the next test.
Cond = Callable[[list[relax.Expr], relax.Expr], relax.Expr]
Body = Callable[[list[relax.Expr], relax.Expr], tuple[list[relax.Expr], relax.Expr | None]]
# reserve(values, count, ahead) emits what the next ``ahead`` iterations need once (room in
# row buffers) and returns the values with values[:n_carried] replaced where it did.
Reserve = Callable[[list[relax.Expr], relax.Expr, int], list[relax.Expr]]

BOOL, I64, OBJ = relax.TensorType((), "bool"), relax.TensorType((), "int64"), relax.ObjectType()


def fresh_type(ty: relax.TensorType) -> relax.TensorType:
    """``ty`` with new symbolic variables for its symbolic dims (one set per function)."""
    dims = [d if isinstance(d, tvm.tirx.IntImm) else tvm.tirx.Var("n", "int64") for d in ty.shape.values]
    return relax.TensorType(dims, ty.dtype)


def _static(ty: relax.TensorType) -> bool:
    return all(isinstance(d, tvm.tirx.IntImm) for d in ty.shape.values)


def unpack(bb: relax.BlockBuilder, state: relax.Expr, types: list[relax.TensorType],
           shapes: Any = None, outer: Any = None) -> list[relax.Expr]:
    """The values of the opaque tuple ``state``: statically shaped ones read unchecked with
    their type, symbolically shaped ones checked once into fresh symbolic dims; with
    ``shapes`` (a symbolic function, :mod:`.symbolic_shapes`), the ``R.Shape([n])`` first in
    the tuple defines this function's ``n`` and dims affine in ``outer`` (the ``n`` of the
    function that packed it) are re-typed in it."""
    out = []
    for i, ty in enumerate(types):
        if isinstance(ty, relax.ShapeType):
            erased: Any = relax.ShapeType(ndim=len(ty.values))
        else:
            erased = ty if _static(ty) else relax.TensorType(dtype=ty.dtype, ndim=len(ty.shape.values))
        value = bb.emit(relax.op.call_pure_packed("vm.builtin.tuple_getitem", state,
                                                  relax.prim_value(i), ty_args=erased))
        if erased is not ty:
            value = bb.match_cast(value, fresh_type(ty) if shapes is None else shapes.localize(ty, outer))
        out.append(value)
    return out


def call(bb: relax.BlockBuilder, gv: relax.GlobalVar, args: list[relax.Expr], n: int) -> list[relax.Expr]:
    """The first ``n`` items of the tuple that ``gv(*args)`` returns."""
    result = bb.emit(relax.Call(gv, args))
    return [bb.emit(relax.TupleGetItem(result, i)) for i in range(n)]


def emit_loop(bb: relax.BlockBuilder, name: str, cond: Cond, body: Body, args: list[relax.Expr],
              n_carried: int, stubs: list[str], reserve: Reserve | None = None,
              shapes: Any = None) -> tuple[list[relax.Expr], relax.Expr]:
    """Run ``body`` while ``cond`` holds; ``args[:n_carried]`` change, the rest stay;
    ``reserve`` runs before each run of up to ``AHEAD`` iterations. Returns (final args,
    trip count) in the current function. ``shapes``: the builder's symbolic shapes (each
    function of the loop has its own ``n``, carried first in the state)."""
    sym = shapes is not None and shapes.template is not None
    outer = shapes.current() if sym else None
    types = [*([shapes.shape_type()] if sym else []), *(a.ty for a in args)]

    def scope() -> Any:
        return shapes.scope() if sym else contextlib.nullcontext()

    def read(state: relax.Expr) -> list[relax.Expr]:
        values = unpack(bb, state, types, shapes if sym else None, outer)
        return values[1:] if sym else values

    def pack(values: list[relax.Expr]) -> relax.Tuple:
        return relax.Tuple([shapes.shape_value(), *values] if sym else values)

    def params() -> list[relax.Var]:
        return [relax.Var("done", BOOL), relax.Var("count", I64), relax.Var("state", OBJ)]

    def get3(result: relax.Expr) -> list[relax.Expr]:
        return [bb.emit(relax.TupleGetItem(result, i)) for i in range(3)]

    def iterations(values: list[relax.Expr], count: relax.Expr, state: relax.Expr | None,
                   go: relax.Expr, left: int) -> relax.If:
        """if go: body, then the next ``left - 1`` iterations in its branch; the If's value
        is (done, count, state) (``state``: ``values`` packed, None if not packed yet)."""
        bb._begin_binding_block()  # the then-branch: one iteration, inline
        carried, go_next = body(values, count)
        new = [*carried, *values[n_carried:]]
        after = bb.emit(relax.op.add(count, relax.const(1, "int64")))
        if left > 1:
            go_next = cond(new, after) if go_next is None else go_next
            result: relax.Expr = bb.emit(iterations(new, after, None, go_next, left - 1))
        else:
            result = relax.Tuple([relax.const(False, "bool"), after, bb.emit(pack(new))])
        ran = relax.SeqExpr([bb._end_block()], result)
        bb._begin_binding_block()
        packed = state if state is not None else bb.emit(pack(values))
        finished = relax.SeqExpr([bb._end_block()], relax.Tuple([relax.const(True, "bool"), count, packed]))
        return relax.If(go, ran, finished)

    s = params()
    with scope(), bb.function(f"{name}_step", s, pure=False, private=True):
        values = read(s[2])
        go = cond(values, s[1])
        level = bb.emit_func_output(bb.emit(iterations(values, s[1], s[2], go, UNROLL)))
    for depth in range(1, LEVELS + 1):
        s = params()
        with scope(), bb.function(f"{name}_level{depth}", s, pure=False, private=True):
            cur: list[relax.Expr] = s
            if reserve is not None and depth == 1:
                values = reserve(read(s[2]), s[1], AHEAD)
                cur = [s[0], s[1], bb.emit(pack(values))]
            for _ in range(FANOUT):
                cur = get3(bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)),
                                            relax.SeqExpr([], relax.Call(level, cur)))))
            level = bb.emit_func_output(relax.Tuple(cur))
    top = _recursive_top(bb, name, params, level, get3, stubs)
    start = [relax.const(False, "bool"), relax.const(0, "int64"), bb.emit(pack(args))]
    _, count, state = get3(bb.emit(relax.Call(top, start)))
    return read(state), count


def _recursive_top(bb: relax.BlockBuilder, name: str, params: Callable[[], list[relax.Var]],
                   level: relax.GlobalVar, get3: Callable, stubs: list[str]) -> relax.GlobalVar:
    """``top(done, count, state)``: the highest level, then itself until done (declared
    first, so that its body can call it; the declaration is replaced by the body)."""
    s = params()  # the attribute keeps BlockBuilder from merging it with an equal declaration
    with bb.function(f"{name}_top", s, pure=False, private=True, attrs={"twinmode_loop": name}):
        top = bb.emit_func_output(relax.Tuple(s))
    s = params()
    with bb.function(f"{name}_top_impl", s, pure=False, private=True):
        cur = get3(bb.emit(relax.Call(level, s)))
        # not done after one run of the highest level: check the bound (assert_op calls back
        # into Python, so a loop that ends within one level never pays for it), go on
        bb._begin_binding_block()
        within = bb.emit(relax.op.less(cur[1], relax.const(MAX_ITERATIONS, "int64")))
        bb.emit(relax.op.assert_op(within, format=(
            f"graph mode: a while loop ran {MAX_ITERATIONS} iterations without finishing; "
            "check its condition, or run it in PyNative mode")))
        more = relax.SeqExpr([bb._end_block()], relax.Call(top, cur))
        impl = bb.emit_func_output(bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)), more)))
    bb.update_func(top, bb.get()[impl])
    stubs.append(impl.name_hint)
    return top


__all__ = ["AHEAD", "FANOUT", "LEVELS", "MAX_ITERATIONS", "Body", "Cond", "Reserve", "call", "emit_loop",
           "fresh_type", "unpack"]
