"""Lowerings of :mod:`framework.ops.lstm_cell`: one kernel per LSTM step each way.

- ``LSTMPointwise``: one TE function of seven outputs, each its own loop (TOPI's sigmoid,
  ``fast_tanh`` as :func:`.elementwise.lower_tanh`); later outputs read earlier ones' buffers
  (``c_new`` reads ``i, f, g``; ``tc`` ``c_new``; ``h`` ``o, tc``), nothing is recomputed.
- ``LSTMPointwiseGrad``: a TVMScript kernel whose one block per ``(n, j)`` writes the four
  gate columns ``j, H + j, 2H + j, 3H + j`` of ``dgates`` and ``dc_prev[n, j]`` (plain
  arithmetic on the saved activations; vectorized along ``j`` by the default rules).
"""

from __future__ import annotations

import tvm
from tvm import relax, te, topi
from tvm.script import tirx as T  # noqa: F401  (the gradient kernel is TVMScript)

from .base import LowerContext, cast, emit


def _pointwise(gates: te.Tensor, c: te.Tensor) -> list[te.Tensor]:
    n, h = c.shape

    def part(k):
        return te.compute((n, h), lambda b, j: gates[b, k * h + j], name=f"gate{k}")

    i, f, o = (topi.sigmoid(part(k)) for k in (0, 1, 3))
    g = topi.fast_tanh(part(2))
    c_new = te.compute((n, h), lambda b, j: f[b, j] * c[b, j] + i[b, j] * g[b, j], name="c_new")
    tc = topi.fast_tanh(c_new)
    out = te.compute((n, h), lambda b, j: o[b, j] * tc[b, j], name="h")
    return [out, c_new, i, f, g, o, tc]


def lower_lstm_pointwise(ctx: LowerContext, gates, c):
    bb, dtype = ctx.bb, ctx.out_specs[0].dtype
    gates, c = (emit(bb, cast(t, s.dtype, dtype)) for t, s in zip((gates, c), ctx.in_specs))
    out = bb.emit(bb.call_te(_pointwise, gates, c, primfunc_name_hint="lstm_pointwise"))
    return tuple(bb.emit(relax.TupleGetItem(out, k)) for k in range(7))


_GRAD = '''
@T.prim_func(private=True, s_tir=True)
def lstm_pointwise_grad(c: T.Buffer(({n}, {h}), "{dt}"), i: T.Buffer(({n}, {h}), "{dt}"),
                        f: T.Buffer(({n}, {h}), "{dt}"), g: T.Buffer(({n}, {h}), "{dt}"),
                        o: T.Buffer(({n}, {h}), "{dt}"), tc: T.Buffer(({n}, {h}), "{dt}"),
                        dh: T.Buffer(({n}, {h}), "{dt}"), dc: T.Buffer(({n}, {h}), "{dt}"),
                        dgates: T.Buffer(({n}, {h4}), "{dt}"), dc_prev: T.Buffer(({n}, {h}), "{dt}")):
    T.func_attr({{"tirx.noalias": True}})
    for b, j in T.grid({n}, {h}):
        with T.sblock("lstm_grad"):
            vb, vj = T.axis.remap("SS", [b, j])
            dgates[vb, vj] = {dcn} * g[vb, vj] * i[vb, vj] * (T.{dt}(1) - i[vb, vj])
            dgates[vb, {h} + vj] = {dcn} * c[vb, vj] * f[vb, vj] * (T.{dt}(1) - f[vb, vj])
            dgates[vb, {h2} + vj] = {dcn} * i[vb, vj] * (T.{dt}(1) - g[vb, vj] * g[vb, vj])
            dgates[vb, {h3} + vj] = dh[vb, vj] * tc[vb, vj] * o[vb, vj] * (T.{dt}(1) - o[vb, vj])
            dc_prev[vb, vj] = {dcn} * f[vb, vj]
'''


# the same kernel for a symbolic batch (framework.ir.symbolic): ``n`` a variable of the
# kernel, bound from the buffers' shapes at the call
_NAMES = ("c", "i", "f", "g", "o", "tc", "dh", "dc", "dgates", "dc_prev")
_SYMBOLIC_GRAD = "\n@T.prim_func(private=True, s_tir=True)\ndef lstm_pointwise_grad(" + ", ".join(
    f"{k}_h: T.handle" for k in _NAMES) + "):\n    n = T.int64()\n" + "".join(
    f'    {k} = T.match_buffer({k}_h, ({{n}}, {{{"h4" if k == "dgates" else "h"}}}), "{{dt}}")\n'
    for k in _NAMES) + "    T.func_attr" + _GRAD.split("\n    T.func_attr", 1)[1]


def grad_source(n, h: int, dtype: str) -> str:
    """The kernel's TVMScript; ``n`` an int, or symbolic (a TIR expression)."""
    dcn = f"(dc[vb, vj] + dh[vb, vj] * o[vb, vj] * (T.{dtype}(1) - tc[vb, vj] * tc[vb, vj]))"
    sizes = dict(h=f"T.int64({h})", h2=f"T.int64({2 * h})", h3=f"T.int64({3 * h})",
                 h4=f"T.int64({4 * h})", dt=dtype, dcn=dcn)
    if isinstance(n, int):
        return _GRAD.format(n=f"T.int64({n})", **sizes)
    return _SYMBOLIC_GRAD.format(n="n", **sizes)


def lower_lstm_pointwise_grad(ctx: LowerContext, *args):
    bb, dtype = ctx.bb, ctx.out_specs[1].dtype
    args = [emit(bb, cast(t, s.dtype, dtype)) for t, s in zip(args, ctx.in_specs)]
    n, h = ctx.out_specs[1].shape
    n = int(n) if isinstance(n, int | tvm.tirx.IntImm) else n
    gv = bb.add_func(tvm.script.from_source(grad_source(n, int(h), dtype.name)), "lstm_pointwise_grad")
    out = bb.emit(relax.call_tir(gv, args, [relax.TensorType([n, 4 * h], dtype.name),
                                            relax.TensorType([n, h], dtype.name)]))
    return bb.emit(relax.TupleGetItem(out, 0)), bb.emit(relax.TupleGetItem(out, 1))
