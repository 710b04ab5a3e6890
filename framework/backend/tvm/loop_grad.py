"""The backward of a ``While`` in Relax: saved states and a reverse loop.

The body's vector-Jacobian product at iteration ``k`` needs the carried values before
(row ``k``) and after (row ``k + 1``) it. They are saved in one buffer per carried
value, a row per iteration, written in place by a small TIR function (so a write costs
one row, not the whole buffer):

- when the forward ``While`` is lowered in the same function as its ``WhileGrad`` (the
  usual case: a train step), the forward loop itself saves its states into buffers
  that double when full (:func:`emit_saving_loop`), and the backward reuses them;
- otherwise ``WhileGrad`` runs the body again from the initial values into buffers of
  ``trip_count + 1`` rows.

Then a reverse loop walks ``k = n-1 ... 0`` applying the VJP and summing the
invariants' cotangents. Memory: one row per iteration and carried value (plus up to as
much again for the doubling).
"""

from __future__ import annotations

from typing import Any

import tvm
from tvm import relax
from tvm.script import tirx as T  # noqa: F401  (the row writers are TVMScript)

from .hoist import hoist_transposes
from .loops import call, emit_loop, fresh_type

FIRST_CAPACITY = 8  # rows of a growing buffer at the start (>= loops.FANOUT: see reserve)

_ROW_WRITER = '''
@T.prim_func(private=True, s_tir=True)
def write_row(var_buf: T.handle, var_row: T.handle, var_k: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    row = T.match_buffer(var_row, ({out_dims}), "{dtype}")
    k = T.match_buffer(var_k, (), "int64")
    for {loop} in T.grid({extents}):
        with T.sblock("write"):
            {axes} = T.axis.remap("{kinds}", [{loop}])
            buf[k[()], {axes}] = row[{out_axes}]
'''
# doubles a row buffer: copies its n rows into a 2n-row output (the new rows are left
# unset: call_tir's outputs start uninitialized, and rows are written before they are read)
_ROW_DOUBLER = '''
@T.prim_func(private=True, s_tir=True)
def double_rows(var_buf: T.handle, var_out: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    out = T.match_buffer(var_out, (n * 2, {dims}), "{dtype}")
    for r, {loop} in T.grid(n, {extents}):
        with T.sblock("copy"):
            vr, {axes} = T.axis.remap("S{kinds}", [r, {loop}])
            out[vr, {axes}] = buf[vr, {axes}]
'''
# row ``last - back + offset`` of a row buffer (the reverse loop's reads: ``back`` is its
# iteration count), in the value's own shape (a 0-d value is stored as a row of one)
_ROW_READER = '''
@T.prim_func(private=True, s_tir=True)
def read_row(var_buf: T.handle, var_last: T.handle, var_back: T.handle, var_row: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    last = T.match_buffer(var_last, (), "int64")
    back = T.match_buffer(var_back, (), "int64")
    row = T.match_buffer(var_row, ({out_dims}), "{dtype}")
    for {loop} in T.grid({extents}):
        with T.sblock("read"):
            {axes} = T.axis.remap("{kinds}", [{loop}])
            row[{out_axes}] = buf[last[()] - back[()] + T.int64({offset}), {axes}]
'''
I64 = relax.TensorType((), "int64")


def _int(value: int) -> relax.Expr:
    return relax.const(value, "int64")


class Rows:
    """Row buffers for a list of carried values (their shapes and dtypes)."""

    def __init__(self, builder: Any, values: list[relax.Expr]) -> None:
        self.bb = builder.bb
        self.specs = [(tuple(int(d) for d in a.ty.shape.values), str(a.ty.dtype)) for a in values]
        self.stored = ["int8" if dtype == "bool" else dtype for _, dtype in self.specs]
        self.rows = [shape or (1,) for shape, _ in self.specs]
        self.writers = [self._kernel(builder.row_writers, _ROW_WRITER, "write_row", row, dtype,
                                     scalar=not shape)
                        for (shape, _), row, dtype in zip(self.specs, self.rows, self.stored)]
        self.doublers = [self._kernel(builder.row_writers, _ROW_DOUBLER, "double_rows", row, dtype)
                         for row, dtype in zip(self.rows, self.stored)]
        self.readers = [[self._kernel(builder.row_writers, _ROW_READER, f"read_row{offset}", row, dtype,
                                      offset=offset, scalar=not shape)
                         for (shape, _), row, dtype in zip(self.specs, self.rows, self.stored)]
                        for offset in (0, 1)]

    def _kernel(self, cache: dict, template: str, name: str, shape: tuple[int, ...],
                dtype: str, offset: int = 0, scalar: bool = False) -> relax.GlobalVar:
        """The TIR function of ``template`` for rows of ``shape`` and ``dtype`` (once per
        module); ``scalar``: the row stands for a 0-d value (read out as one)."""
        key = (name, shape, dtype, scalar)
        if key not in cache:
            loops = [f"i{d}" for d in range(len(shape))]
            dims = ", ".join(f"T.int64({d})" for d in shape) + ("," if len(shape) == 1 else "")
            axes = ", ".join(f"v{x}" for x in loops)
            text = template.format(
                dims=dims, dtype=dtype, loop=", ".join(loops), offset=offset,
                extents=", ".join(f"T.int64({d})" for d in shape), axes=axes, kinds="S" * len(shape),
                out_dims="" if scalar else dims, out_axes="()" if scalar else axes)
            cache[key] = self.bb.add_func(tvm.script.from_source(text),
                                          f"{name}_{dtype}_{'x'.join(map(str, shape))}")
        return cache[key]

    def alloc(self, n_rows: relax.Expr) -> list[relax.Expr]:
        """Zeroed buffers of ``n_rows`` (an int64 scalar tensor) rows, symbolically shaped."""
        bb = self.bb
        shape = bb.emit(relax.op.tensor_to_shape(relax.op.reshape(n_rows, [1])))
        rows = tvm.tirx.Var("rows", "int64")
        bb.match_cast(shape, relax.ShapeType([rows]))
        return [bb.emit(relax.op.zeros(relax.ShapeExpr([rows, *row]), dtype))
                for row, dtype in zip(self.rows, self.stored)]

    def write(self, bufs: list, state: list, at: relax.Expr) -> list[relax.Expr]:
        bb, out = self.bb, []
        for buf, x, (_, dtype), store, writer in zip(bufs, state, self.specs, self.stored, self.writers):
            x = bb.emit(relax.op.astype(x, store)) if store != dtype else x
            out.append(bb.emit(relax.op.call_tir_inplace(writer, [buf, x, at], [0], [buf.ty])))
        return out

    def read(self, bufs: list, last: relax.Expr, back: relax.Expr, offset: int) -> list[relax.Expr]:
        """Rows ``last - back + offset`` (``offset`` 0 or 1) of ``bufs``, one kernel each."""
        bb, out = self.bb, []
        for buf, reader, (shp, dtype), store in zip(bufs, self.readers[offset], self.specs, self.stored):
            x = bb.emit(relax.call_tir(reader, [buf, last, back], relax.TensorType(shp, store)))
            out.append(bb.emit(relax.op.astype(x, dtype)) if store != dtype else x)
        return out

    def ensure(self, grow: relax.GlobalVar, at: relax.Expr, cap: relax.Expr,
               bufs: list) -> tuple[relax.Expr, list[relax.Expr]]:
        """(capacity, buffers) holding row ``at``: doubled (copied) when full."""
        bb = self.bb
        fits = bb.emit(relax.op.less(at, cap))
        r = bb.emit(relax.If(fits, relax.SeqExpr([], relax.Tuple([cap, *bufs])),
                             relax.SeqExpr([], relax.Call(grow, [cap, *bufs]))))
        cap = bb.emit(relax.TupleGetItem(r, 0))
        out = []
        for i, row in enumerate(self.rows):
            buf = bb.emit(relax.TupleGetItem(r, i + 1))
            ty = relax.TensorType([tvm.tirx.Var("rows", "int64"), *row], self.stored[i])
            out.append(bb.match_cast(buf, ty))
        return cap, out

    def grow_function(self, name: str, bufs: list) -> relax.GlobalVar:
        bb = self.bb
        params = [relax.Var("cap", I64)] + [relax.Var(f"b{i}", fresh_type(b.ty)) for i, b in enumerate(bufs)]
        with bb.function(name, params, private=True):
            bigger = [bb.emit(relax.call_tir(double, [b], relax.TensorType([b.ty.shape.values[0] * 2,
                                                                           *row], dtype)))
                      for b, double, row, dtype in zip(params[1:], self.doublers, self.rows, self.stored)]
            double = bb.emit(relax.op.multiply(params[0], _int(2)))
            return bb.emit_func_output(relax.Tuple([double, *bigger]))


def emit_saving_loop(builder: Any, name: str, cond_graph: Any, body_gv: relax.GlobalVar,
                     args: list[relax.Expr], n: int) -> tuple[list[relax.Expr], relax.Expr, list]:
    """The forward loop, also writing each iteration's carried values into growing row
    buffers (row k before iteration k, row n the final state). Returns (final args, trip
    count, buffers)."""
    bb = builder.bb
    rows = Rows(builder, args[:n])
    first = [bb.match_cast(b, relax.TensorType([tvm.tirx.Var("rows", "int64"), *row], dtype))
             for b, row, dtype in zip(rows.alloc(_int(FIRST_CAPACITY)), rows.rows, rows.stored)]
    grow = rows.grow_function(f"{name}_grow", first)
    nb = len(first)
    loop_args = [*args[:n], _int(FIRST_CAPACITY), *first, *args[n:]]

    def reserve(v: list[relax.Expr], k: relax.Expr, ahead: int) -> list[relax.Expr]:
        # room for rows k .. k + ahead - 1 (one doubling is enough: capacity >= k, >= ahead)
        cap, bufs = rows.ensure(grow, bb.emit(relax.op.add(k, _int(ahead - 1))), v[n], v[n + 1:n + 1 + nb])
        return [*v[:n], cap, *bufs, *v[n + 1 + nb:]]

    def body(v: list[relax.Expr], k: relax.Expr) -> list[relax.Expr]:
        bufs = rows.write(v[n + 1:n + 1 + nb], v[:n], k)
        return [*call(bb, body_gv, [*v[:n], *v[n + 1 + nb:]], n), v[n], *bufs]

    final, count = emit_loop(bb, name, lambda v, _: builder.inline(cond_graph, [*v[:n], *v[n + 1 + nb:]])[0],
                             body, loop_args, n + 1 + nb, builder.stubs, reserve)
    cap, bufs = rows.ensure(grow, count, final[n], final[n + 1:n + 1 + nb])
    bufs = rows.write(bufs, final[:n], count)  # row n: the final state
    return final[:n] + final[n + 1 + nb:], count, bufs


def lower_while_grad(builder: Any, prim: Any, args: list[relax.Expr], k: int) -> list[relax.Expr]:
    bb = builder.bb
    n, m = prim.n_carried, prim.n_invariants
    init, inv, count, gout = args[:n], args[n:n + m], args[n + m], args[n + m + 1:]
    rows = Rows(builder, init)
    bufs = builder.saved_rows(prim.forward_uid)
    if bufs is None:  # the forward loop saved nothing here: run it again, saving
        body_gv = builder.function(f"wgrad{k}_body", prim.body_graph)
        bufs = _save(builder, rows, f"wgrad{k}_save", body_gv, init, inv, count)
    vjp, hoisted = hoist_transposes(prim.vjp_graph, prim.vjp_graph.inputs[n:n + m])
    vjp_gv = builder.function(f"wgrad{k}_vjp", vjp)
    inv_t = [bb.emit(relax.op.permute_dims(inv[j], [1, 0])) for j in hoisted]  # once, not per iteration

    # reverse: k = n-1 .. 0: (g, sums) = vjp(row k, inv, row k+1, g, sums)
    n_g, n_w = len(gout), len(prim.vjp_graph.outputs) - len(gout)
    g_inv0 = [bb.emit(relax.op.zeros(relax.ShapeExpr(list(v.shape)), str(v.dtype)))
              for v in prim.vjp_graph.outputs[n_g:]]
    last = bb.emit(relax.op.subtract(count, _int(1)))
    rev_args = [*gout, *g_inv0, *bufs, *inv, *inv_t, count, last]
    c = n_g + n_w + n + m + len(inv_t)  # where count and last are in rev_args

    def body(s: list[relax.Expr], back: relax.Expr) -> list[relax.Expr]:
        g, g_inv, rbufs = s[:n_g], s[n_g:n_g + n_w], s[n_g + n_w:n_g + n_w + n]
        rinv, rinv_t = s[n_g + n_w + n:n_g + n_w + n + m], s[n_g + n_w + n + m:c]
        before, after = (rows.read(rbufs, s[c + 1], back, offset) for offset in (0, 1))
        return call(bb, vjp_gv, [*before, *rinv, *after, *g, *g_inv, *rinv_t], n_g + n_w)

    final, _ = emit_loop(bb, f"wgrad{k}_rev", lambda s, back: bb.emit(relax.op.less(back, s[c])),
                         body, rev_args, n_g + n_w, builder.stubs)
    return final[:n_g + n_w]


def _save(builder: Any, rows: Rows, name: str, body_gv: relax.GlobalVar, init: list,
          inv: list, count: relax.Expr) -> list[relax.Expr]:
    """Run the body ``count`` times from ``init``, writing rows 0 .. count."""
    bb, n = builder.bb, len(init)
    bufs = rows.alloc(bb.emit(relax.op.add(count, _int(1))))
    save_args = [*init, *bufs, count, *inv]

    def body(s: list[relax.Expr], kv: relax.Expr) -> list[relax.Expr]:
        written = rows.write(s[n:2 * n], s[:n], kv)
        return [*call(bb, body_gv, [*s[:n], *s[2 * n + 1:]], n), *written]

    final, _ = emit_loop(bb, name, lambda s, kv: bb.emit(relax.op.less(kv, s[2 * n])),
                         body, save_args, 2 * n, builder.stubs)
    return rows.write(final[n:2 * n], final[:n], count)  # row n: the final state
