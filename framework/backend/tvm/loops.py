"""Loops in Relax, without a loop instruction.

The Relax VM has none, and it recurses on the C stack (a few thousand nested calls
crash it; TVM_NOTES). :func:`emit_loop` therefore builds a loop as a bounded tree of
calls: ``step`` tests the condition and runs the body once if it holds; ``level1`` tries
``step`` ``FANOUT`` times (skipping once the loop is done), ``level2`` tries ``level1``
``FANOUT`` times, and so on; ``top`` runs the highest level and calls itself until the
loop is done. The recursion depth is iterations / FANOUT**LEVELS, and past
``MAX_ITERATIONS`` the run stops with a clear error instead of a native crash.

:func:`lower_while_grad` lowers the backward of a ``While`` (``WhileGrad``) as two such
loops: the first runs the body again from the initial values and writes each
iteration's carried values into buffers of ``trip_count + 1`` rows (in place, so each
write costs one row); the second walks ``k = n-1 ... 0`` applying the body's
vector-Jacobian product at rows ``k`` (the state) and ``k + 1`` (the body's result).
Memory: one row per iteration for every carried value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tvm
from tvm import relax
from tvm.script import tirx as T  # noqa: F401  (the row writers are TVMScript)

FANOUT, LEVELS = 8, 3
MAX_DEPTH = 1000
MAX_ITERATIONS = FANOUT ** LEVELS * MAX_DEPTH


def _fresh(ty: relax.TensorType) -> relax.TensorType:
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
        types = [relax.TensorType((), "bool"), relax.TensorType((), "int64")] + [_fresh(t) for t in arg_types]
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


# -- the backward of a While --------------------------------------------------------------------

_ROW_WRITER = '''
@T.prim_func(private=True, s_tir=True)
def write_row(var_buf: T.handle, var_row: T.handle, var_k: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    row = T.match_buffer(var_row, ({dims}), "{dtype}")
    k = T.match_buffer(var_k, (), "int64")
    for {loop} in T.grid({extents}):
        with T.sblock("write"):
            {axes} = T.axis.remap("{kinds}", [{loop}])
            buf[k[()], {axes}] = row[{axes}]
'''


def _row_writer(bb: relax.BlockBuilder, cache: dict, shape: tuple[int, ...], dtype: str) -> relax.GlobalVar:
    """A TIR function writing ``row`` into ``buf[k]`` in place."""
    key = (shape, dtype)
    if key not in cache:
        full = shape or (1,)
        loops = [f"i{d}" for d in range(len(full))]
        text = _ROW_WRITER.format(
            dims=", ".join(f"T.int64({d})" for d in full) + ("," if len(full) == 1 else ""),
            dtype=dtype, loop=", ".join(loops), extents=", ".join(f"T.int64({d})" for d in full),
            axes=", ".join(f"v{x}" for x in loops), kinds="S" * len(full))
        func = tvm.script.from_source(text)
        cache[key] = bb.add_func(func, f"write_row_{dtype}_{'x'.join(map(str, full))}")
    return cache[key]


def lower_while_grad(builder: Any, prim: Any, args: list[relax.Expr], k: int) -> list[relax.Expr]:
    bb = builder.bb
    n, m = prim.n_carried, prim.n_invariants
    init, inv, count, gout = args[:n], args[n:n + m], args[n + m], args[n + m + 1:]
    body_gv = builder.function(f"wgrad{k}_body", prim.body_graph)
    vjp_gv = builder.function(f"wgrad{k}_vjp", prim.vjp_graph)
    specs = [(tuple(int(d) for d in a.ty.shape.values), str(a.ty.dtype)) for a in init]
    stored = ["int8" if dtype == "bool" else dtype for _, dtype in specs]
    rows = [shape or (1,) for shape, _ in specs]
    n_rows = bb.emit(relax.op.add(count, relax.const(1, "int64")))  # states 0 .. n
    shape = bb.emit(relax.op.tensor_to_shape(relax.op.reshape(n_rows, [1])))
    trips = tvm.tirx.Var("rows", "int64")
    bb.match_cast(shape, relax.ShapeType([trips]))
    bufs = [bb.emit(relax.op.zeros(relax.ShapeExpr([trips, *row]), dtype))
            for row, dtype in zip(rows, stored)]
    writers = [_row_writer(bb, builder.row_writers, row, dtype) for row, dtype in zip(rows, stored)]
    i64 = relax.TensorType((), "int64")

    def write(bufs: list, state: list, at: relax.Expr) -> list:
        out = []
        for buf, x, (shp, dtype), row, store, writer in zip(bufs, state, specs, rows, stored, writers):
            x = bb.emit(relax.op.astype(x, store)) if store != dtype else x
            x = bb.emit(relax.op.reshape(x, list(row))) if shp != row else x
            out.append(bb.emit(relax.op.call_tir_inplace(writer, [buf, x, at], [0], [buf.ty])))
        return out

    def read(bufs: list, at: relax.Expr) -> list:
        out = []
        for buf, (shp, dtype), store in zip(bufs, specs, stored):
            x = bb.emit(relax.op.take(buf, at, axis=0, mode="clip"))
            x = bb.emit(relax.op.reshape(x, list(shp))) if not shp else x
            out.append(bb.emit(relax.op.astype(x, dtype)) if store != dtype else x)
        return out

    # save: k = 0 .. n-1: buf[k] = state; state = body(state)   (carried: k, state, bufs)
    save_args = [relax.const(0, "int64"), *init, *bufs, count, *inv]
    s = [relax.Var(f"a{i}", _fresh(a.ty) if i else i64) for i, a in enumerate(save_args)]
    kv, state, sbufs, cnt, sinv = s[0], s[1:1 + n], s[1 + n:1 + 2 * n], s[1 + 2 * n], s[2 + 2 * n:]
    with bb.function(f"wgrad{k}_save_cond", s, private=True):
        save_cond = bb.emit_func_output(relax.Tuple([bb.emit(relax.op.less(kv, cnt))]))
    s = [relax.Var(f"a{i}", _fresh(a.ty) if i else i64) for i, a in enumerate(save_args)]
    kv, state, sbufs, sinv = s[0], s[1:1 + n], s[1 + n:1 + 2 * n], s[2 + 2 * n:]
    with bb.function(f"wgrad{k}_save_body", s, pure=False, private=True):
        written = write(sbufs, state, kv)
        ran = bb.emit(relax.Call(body_gv, [*state, *sinv]))
        nxt = bb.emit(relax.op.add(kv, relax.const(1, "int64")))
        new_state = [bb.emit(relax.TupleGetItem(ran, i)) for i in range(n)]
        save_body = bb.emit_func_output(relax.Tuple([nxt, *new_state, *written]))
    final, _ = emit_loop(bb, f"wgrad{k}_save", save_cond, save_body, save_args, 1 + 2 * n, builder.stubs)
    bufs = write(final[1 + n:1 + 2 * n], final[1:1 + n], count)  # row n: the final state

    # reverse: k = n-1 .. 0: (g, g_inv_k) = vjp(buf[k], inv, buf[k+1], g); g_inv += g_inv_k
    n_g, n_w = len(gout), len(prim.vjp_graph.outputs) - len(gout)
    g_inv0 = [bb.emit(relax.op.zeros(relax.ShapeExpr(list(v.shape)), str(v.dtype)))
              for v in prim.vjp_graph.outputs[n_g:]]
    start = bb.emit(relax.op.subtract(count, relax.const(1, "int64")))
    rev_args = [start, *gout, *g_inv0, *bufs, *inv]
    s = [relax.Var(f"r{i}", _fresh(a.ty) if i else i64) for i, a in enumerate(rev_args)]
    with bb.function(f"wgrad{k}_rev_cond", s, private=True):
        going = bb.emit(relax.op.greater_equal(s[0], relax.const(0, "int64")))
        rev_cond = bb.emit_func_output(relax.Tuple([going]))
    s = [relax.Var(f"r{i}", _fresh(a.ty) if i else i64) for i, a in enumerate(rev_args)]
    kv, g, g_inv = s[0], s[1:1 + n_g], s[1 + n_g:1 + n_g + n_w]
    rbufs, rinv = s[1 + n_g + n_w:1 + n_g + n_w + n], s[1 + n_g + n_w + n:]
    with bb.function(f"wgrad{k}_rev_body", s, pure=False, private=True):
        after = bb.emit(relax.op.add(kv, relax.const(1, "int64")))
        r = bb.emit(relax.Call(vjp_gv, [*read(rbufs, kv), *rinv, *read(rbufs, after), *g]))
        outs = [bb.emit(relax.TupleGetItem(r, i)) for i in range(n_g + n_w)]
        acc = [bb.emit(relax.op.add(a, b)) for a, b in zip(g_inv, outs[n_g:])]
        prev = bb.emit(relax.op.subtract(kv, relax.const(1, "int64")))
        rev_body = bb.emit_func_output(relax.Tuple([prev, *outs[:n_g], *acc]))
    final, _ = emit_loop(bb, f"wgrad{k}_rev", rev_cond, rev_body, rev_args, 1 + n_g + n_w, builder.stubs)
    return final[1:1 + n_g + n_w]


__all__ = ["FANOUT", "LEVELS", "MAX_ITERATIONS", "emit_loop", "lower_while_grad"]
