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

from ....ir import Graph
from . import row_kernels
from .hoist import hoist_transposes
from .loops import AHEAD, I64, call, emit_loop, fresh_type

FIRST_CAPACITY = AHEAD  # rows of a growing buffer at the start (>= loops.AHEAD: see reserve)



def _int(value: int) -> relax.Expr:
    return relax.const(value, "int64")


class Rows:
    """Row buffers for a list of carried values (their shapes and dtypes)."""

    def __init__(self, builder: Any, values: list[relax.Expr]) -> None:
        self.bb, self.shapes, self.outer = builder.bb, builder.shapes, builder.shapes.current()
        self.types = [a.ty for a in values]  # in the n of the function creating the rows
        self.specs = [(tuple(int(d) if isinstance(d, tvm.tirx.IntImm) else None for d in a.ty.shape.values),
                       str(a.ty.dtype)) for a in values]  # None: a symbolic dimension
        self.stored = ["int8" if dtype == "bool" else dtype for _, dtype in self.specs]
        self.rows = [shape or (1,) for shape, _ in self.specs]
        self.cache = builder.row_writers
        self.writers = [self._kernel(("write_row", row, dtype, not shape),
                                     lambda r=row, d=dtype, s=not shape: row_kernels.writer(r, d, s))
                        for (shape, _), row, dtype in zip(self.specs, self.rows, self.stored)]
        self.doublers = [self._kernel(("double_rows", row, dtype),
                                      lambda r=row, d=dtype: row_kernels.doubler(r, d))
                         for row, dtype in zip(self.rows, self.stored)]

    def value_shape(self, j: int) -> list[Any]:
        """Value ``j``'s shape in the function being built (its symbolic ``n``)."""
        if all(d is not None for d in self.specs[j][0]):
            return list(self.specs[j][0])
        return list(self.shapes.localize(self.types[j], self.outer).shape.values)

    def row(self, j: int) -> list[Any]:
        """Buffer ``j``'s row shape in the function being built."""
        return self.value_shape(j) or [1]

    def _kernel(self, key: tuple, text: Any) -> relax.GlobalVar:
        """The TIR function ``text()`` makes (row_kernels.py), added once per ``key``; its name
        is ``key[0]`` with the row shape and dtype when the key has them."""
        if key not in self.cache:
            name = key[0] if key[0] == "read_rows" else \
                f"{key[0]}_{key[2]}_{'x'.join('n' if d is None else str(d) for d in key[1])}"
            self.cache[key] = self.bb.add_func(tvm.script.from_source(text()), name)
        return self.cache[key]

    def alloc(self, n_rows: relax.Expr) -> list[relax.Expr]:
        """Zeroed buffers of ``n_rows`` (an int64 scalar tensor) rows, symbolically shaped."""
        bb = self.bb
        shape = bb.emit(relax.op.tensor_to_shape(relax.op.reshape(n_rows, [1])))
        rows = tvm.tirx.Var("rows", "int64")
        bb.match_cast(shape, relax.ShapeType([rows]))
        return [bb.emit(relax.op.zeros(relax.ShapeExpr([rows, *self.row(j)]), dtype))
                for j, dtype in enumerate(self.stored)]

    def write(self, bufs: list, state: list, at: relax.Expr) -> list[relax.Expr]:
        bb, out = self.bb, []
        for buf, x, (_, dtype), store, writer in zip(bufs, state, self.specs, self.stored, self.writers):
            x = bb.emit(relax.op.astype(x, store)) if store != dtype else x
            out.append(bb.emit(relax.op.call_tir_inplace(writer, [buf, x, at], [0], [buf.ty])))
        return out

    def read(self, bufs: list, last: relax.Expr, back: relax.Expr,
             wanted: list[tuple[int, int]]) -> list[relax.Expr]:
        """For each ``(j, offset)`` in ``wanted``, row ``last - back + offset`` of ``bufs[j]``
        as value ``j`` (its shape and dtype): all in one kernel."""
        if not wanted:
            return []
        bb = self.bb
        reads = [(self.rows[j], self.stored[j], not self.specs[j][0], offset) for j, offset in wanted]
        kernel = self._kernel(("read_rows", tuple(reads)), lambda: row_kernels.reader(reads))
        types = [relax.TensorType(self.value_shape(j), self.stored[j]) for j, _ in wanted]
        result = bb.emit(relax.call_tir(kernel, [*(bufs[j] for j, _ in wanted), last, back], types))
        out = []
        for i, (j, _) in enumerate(wanted):
            x = bb.emit(relax.TupleGetItem(result, i)) if len(wanted) > 1 else result
            dtype = self.specs[j][1]
            out.append(bb.emit(relax.op.astype(x, dtype)) if self.stored[j] != dtype else x)
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
        for i in range(len(self.rows)):
            buf = bb.emit(relax.TupleGetItem(r, i + 1))
            ty = relax.TensorType([tvm.tirx.Var("rows", "int64"), *self.row(i)], self.stored[i])
            out.append(bb.match_cast(buf, ty))
        return cap, out

    def grow_function(self, name: str, bufs: list) -> relax.GlobalVar:
        bb = self.bb
        params = [relax.Var("cap", I64)] + [relax.Var(f"b{i}", fresh_type(b.ty)) for i, b in enumerate(bufs)]
        with bb.function(name, params, private=True):  # (its own variables: the params')
            bigger = [bb.emit(relax.call_tir(double, [b], relax.TensorType(
                [b.ty.shape.values[0] * 2, *b.ty.shape.values[1:]], dtype)))
                for b, double, dtype in zip(params[1:], self.doublers, self.stored)]
            double = bb.emit(relax.op.multiply(params[0], _int(2)))
            return bb.emit_func_output(relax.Tuple([double, *bigger]))


def emit_saving_loop(builder: Any, name: str, cond_graph: Any, body_gv: relax.GlobalVar,
                     args: list[relax.Expr], n: int) -> tuple[list[relax.Expr], relax.Expr, list]:
    """The forward loop, also writing each iteration's carried values into growing row
    buffers (row k before iteration k, row n the final state). Returns (final args, trip
    count, buffers)."""
    bb = builder.bb
    rows = Rows(builder, args[:n])
    first = [bb.match_cast(b, relax.TensorType([tvm.tirx.Var("rows", "int64"), *rows.row(j)], dtype))
             for j, (b, dtype) in enumerate(zip(rows.alloc(_int(FIRST_CAPACITY)), rows.stored))]
    grow = rows.grow_function(f"{name}_grow", first)
    nb = len(first)
    loop_args = [*args[:n], _int(FIRST_CAPACITY), *first, *args[n:]]

    def reserve(v: list[relax.Expr], k: relax.Expr, ahead: int) -> list[relax.Expr]:
        # room for rows k .. k + ahead - 1 (one doubling is enough: capacity >= k, >= ahead)
        cap, bufs = rows.ensure(grow, bb.emit(relax.op.add(k, _int(ahead - 1))), v[n], v[n + 1:n + 1 + nb])
        return [*v[:n], cap, *bufs, *v[n + 1 + nb:]]

    def body(v: list[relax.Expr], k: relax.Expr) -> tuple[list[relax.Expr], relax.Expr]:
        bufs = rows.write(v[n + 1:n + 1 + nb], v[:n], k)
        args = builder.call_args(body_gv, [*v[:n], *v[n + 1 + nb:]])
        *new, go = call(bb, body_gv, args, n + 1)  # body_gv: then_cond
        return [*new, v[n], *bufs], go

    final, count = emit_loop(bb, name, lambda v, _: builder.inline(cond_graph, [*v[:n], *v[n + 1 + nb:]])[0],
                             body, loop_args, n + 1 + nb, builder.stubs, reserve, builder.shapes)
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
        body_gv = builder.function(f"wgrad{k}_body", prim.body_graph, inline=True)
        bufs = _save(builder, rows, f"wgrad{k}_save", body_gv, init, inv, count)
    symbolic = builder.shapes.template.dims if builder.shapes.template is not None else {}
    # (a symbolic invariant keeps its transpose in the loop: the new input has no template)
    vjp, hoisted = hoist_transposes(prim.vjp_graph, [None if v.id in symbolic else v
                                                     for v in prim.vjp_graph.inputs[n:n + m]])
    read = {v.id for node in vjp.nodes for v in node.inputs} | {v.id for v in vjp.outputs}
    keep = [i for i, v in enumerate(vjp.inputs) if v.id in read]  # the inputs the VJP reads
    vjp = Graph(vjp.name, [vjp.inputs[i] for i in keep], vjp.nodes, list(vjp.outputs))
    wanted = [(i, 0) for i in range(n) if i in keep] + [(i, 1) for i in range(n) if n + m + i in keep]
    vjp_gv = builder.function(f"wgrad{k}_vjp", vjp, inline=True)
    inv_t = [bb.emit(relax.op.permute_dims(inv[j], [1, 0])) for j in hoisted]  # once, not per iteration

    # reverse: k = n-1 .. 0: (g, sums) = vjp(row k, inv, row k+1, g, sums)
    n_g, n_w = len(gout), len(prim.vjp_graph.outputs) - len(gout)
    g_inv0 = [bb.emit(relax.op.zeros(relax.ShapeExpr(list(builder.shapes.dims(v))), str(v.dtype)))
              for v in prim.vjp_graph.outputs[n_g:]]
    last = bb.emit(relax.op.subtract(count, _int(1)))
    rev_args = [*gout, *g_inv0, *bufs, *inv, *inv_t, count, last]
    c = n_g + n_w + n + m + len(inv_t)  # where count and last are in rev_args

    def body(s: list[relax.Expr], back: relax.Expr) -> list[relax.Expr]:
        g, g_inv, rbufs = s[:n_g], s[n_g:n_g + n_w], s[n_g + n_w:n_g + n_w + n]
        rinv, rinv_t = s[n_g + n_w + n:n_g + n_w + n + m], s[n_g + n_w + n + m:c]
        rows_read = dict(zip(wanted, rows.read(rbufs, s[c + 1], back, wanted)))
        before = [rows_read.get((i, 0)) for i in range(n)]
        after = [rows_read.get((i, 1)) for i in range(n)]
        full = [*before, *rinv, *after, *g, *g_inv, *rinv_t]
        return call(bb, vjp_gv, builder.call_args(vjp_gv, [full[i] for i in keep]), n_g + n_w), None

    final, _ = emit_loop(bb, f"wgrad{k}_rev", lambda s, back: bb.emit(relax.op.less(back, s[c])),
                         body, rev_args, n_g + n_w, builder.stubs, shapes=builder.shapes)
    return final[:n_g + n_w]


def _save(builder: Any, rows: Rows, name: str, body_gv: relax.GlobalVar, init: list,
          inv: list, count: relax.Expr) -> list[relax.Expr]:
    """Run the body ``count`` times from ``init``, writing rows 0 .. count."""
    bb, n = builder.bb, len(init)
    bufs = rows.alloc(bb.emit(relax.op.add(count, _int(1))))
    save_args = [*init, *bufs, count, *inv]

    def body(s: list[relax.Expr], kv: relax.Expr) -> list[relax.Expr]:
        written = rows.write(s[n:2 * n], s[:n], kv)
        return [*call(bb, body_gv, builder.call_args(body_gv, [*s[:n], *s[2 * n + 1:]]), n), *written], None

    final, _ = emit_loop(bb, name, lambda s, kv: bb.emit(relax.op.less(kv, s[2 * n])),
                         body, save_args, 2 * n, builder.stubs, shapes=builder.shapes)
    return rows.write(final[n:2 * n], final[:n], count)  # row n: the final state
