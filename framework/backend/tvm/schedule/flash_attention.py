"""Causal attention as one CUDA kernel, flash-style: the scores never reach device memory.

``softmax(q k^T * scale + causal) v`` for ``(B*H, T, D)`` operands is one kernel in which
each thread owns one query row: it walks the keys up to its own position, keeping the
running maximum, the running sum of exponentials and the weighted sum of values (the
online softmax: earlier terms rescaled by ``exp(m_old - m_new)`` when the maximum moves),
and writes the output row and its log-sum-exp. Products and sums are float32 whatever the
operand dtype; rows beyond the diagonal are never visited (the causal mask costs nothing).

The same TIR is emitted for two targets from one template: with CUDA thread bindings
(``blockIdx``/``threadIdx``, thread-local accumulators), and with serial loops for LLVM,
so that the kernel's arithmetic is checked on the CPU against NumPy
(``tests/framework/test_flash_attention.py``).

:func:`fuse_causal_attention` (a Relax pass for CUDA) puts the kernel where a graph computes
``matmul(softmax(matmul(q, permute(k)) * scale + C), v)`` with ``C`` a constant causal mask
(0 on and below the diagonal, -inf above) and the probabilities used by nothing else: an
evaluation or generation graph. In a train step the backward reads the probabilities, and
the graph keeps its three kernels.
"""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax

ROWS = 64  # query rows (threads) per thread block

_TEMPLATE = '''
@T.prim_func(private=True)
def causal_attention(q: T.Buffer(({bh}, {t}, {d}), "{dt}"), k: T.Buffer(({bh}, {t}, {d}), "{dt}"),
                     v: T.Buffer(({bh}, {t}, {d}), "{dt}"), o: T.Buffer(({bh}, {t}, {d}), "{dt}"),
                     lse: T.Buffer(({bh}, {t}), "float32")):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
    for b in {outer}({bh}{outer_kind}):
        for blk in {middle}({blocks}{middle_kind}):
            for r in {inner}({rows}{inner_kind}):
                qr = T.decl_buffer(({d},), "float32", scope="{scope}")
                acc = T.decl_buffer(({d},), "float32", scope="{scope}")
                st = T.decl_buffer((3,), "float32", scope="{scope}")
                i = blk * {rows} + r
                if i < {t}:
                    for c in T.unroll({d}):
                        qr[c] = T.Cast("float32", q[b, i, c]) * T.float32({scale})
                        acc[c] = T.float32(0)
                    st[0] = T.float32(-3.4028234663852886e38)
                    st[1] = T.float32(0)
                    for j in T.serial(i + 1):
                        st[2] = T.float32(0)
                        for c in T.unroll({d}):
                            st[2] = st[2] + qr[c] * T.Cast("float32", k[b, j, c])
                        top = T.max(st[0], st[2])
                        shrink = T.exp(st[0] - top)
                        p = T.exp(st[2] - top)
                        st[1] = st[1] * shrink + p
                        for c in T.unroll({d}):
                            acc[c] = acc[c] * shrink + p * T.Cast("float32", v[b, j, c])
                        st[0] = top
                    for c in T.unroll({d}):
                        o[b, i, c] = T.Cast("{dt}", acc[c] / st[1])
                    lse[b, i] = st[0] + T.log(st[1])
'''


def kernel(batch_heads: int, length: int, depth: int, dtype: str, scale: float,
           cuda: bool = True) -> tvm.tirx.PrimFunc:
    """The attention of ``batch_heads`` causal sequences of ``length`` x ``depth``:
    ``(q, k, v) -> (o, lse)``; with ``cuda`` False the same loops run serially (LLVM)."""
    blocks = -(-length // ROWS)
    text = _TEMPLATE.format(
        bh=batch_heads, t=length, d=depth, dt=dtype, scale=repr(float(scale)), blocks=blocks,
        rows=ROWS, scope="local" if cuda else "global",
        outer="T.thread_binding" if cuda else "T.serial",
        middle="T.thread_binding" if cuda else "T.serial",
        inner="T.thread_binding" if cuda else "T.serial",
        outer_kind=', thread="blockIdx.y"' if cuda else "",
        middle_kind=', thread="blockIdx.x"' if cuda else "",
        inner_kind=', thread="threadIdx.x"' if cuda else "")
    return tvm.script.from_source(text)


def causal_mask(value: np.ndarray) -> bool:
    """Whether ``value`` is a (T, T) additive causal mask: 0 on and below the diagonal,
    -inf above."""
    if value.ndim != 2 or value.shape[0] != value.shape[1]:
        return False
    upper = np.triu(np.ones(value.shape, bool), 1)
    return bool(np.all(value[~upper] == 0) and np.all(np.isneginf(value[upper])))




# ---------------------------------------------------------------- the Relax rewrite (CUDA)
def _op(value, *names: str) -> bool:
    return isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) \
        and value.op.name in names


def _constant(expr, values: dict) -> np.ndarray | None:
    """The value of ``expr`` when it is a constant (possibly through casts), else None."""
    while isinstance(expr, relax.Var) and expr in values:
        value = values[expr]
        if not _op(value, "relax.astype"):
            return None
        expr = value.args[0]
    if isinstance(expr, tvm.ir.expr.Constant):
        return expr.value.numpy().astype(np.float64)
    return None


def _source(expr, values: dict):
    """``expr`` less the float32 casts in front of it."""
    while isinstance(expr, relax.Var) and _op(values.get(expr), "relax.astype") \
            and str(values[expr].attrs.dtype) == "float32":
        expr = values[expr].args[0]
    return expr


def _match(softmax_var, values: dict, users: dict):
    """``(q, k, v, scale, pv_var)`` of an attention around ``softmax_var``, or None."""
    value = values[softmax_var]
    if int(value.attrs.axis) not in (-1, 3):
        return None
    # forward: the probabilities reach one matmul with v through casts/rounding alone
    current = softmax_var
    while True:
        after = users.get(current, [])
        if len(after) != 1:
            return None
        (var, user), = after
        if _op(user, "relax.matmul") and user.args[0].same_as(current):
            pv_var, v = var, _source(user.args[1], values)
            break
        if not (_op(user, "relax.astype") or (_op(user, "relax.call_tir")
                and "round_to_bfloat16" in user.args[0].name_hint)):
            return None
        current = var
    # backward from the softmax: add(causal constant), multiply(scalar), casts, then q k^T
    expr, scale = value.args[0], 1.0
    mask = None
    while isinstance(expr, relax.Var) and expr in values:
        step = values[expr]
        if _op(step, "relax.astype"):
            expr = step.args[0]
        elif _op(step, "relax.add") and mask is None:
            mask = _constant(step.args[1], values)
            if mask is None or not causal_mask(mask):
                return None
            expr = step.args[0]
        elif _op(step, "relax.multiply"):
            factor = _constant(step.args[1], values)
            if factor is None or factor.size != 1:
                return None
            scale *= float(factor.reshape(()))
            expr = step.args[0]
        elif _op(step, "relax.matmul"):
            q, kt = _source(step.args[0], values), step.args[1]
            if not (_op(values.get(kt), "relax.permute_dims")
                    and [int(a) for a in values[kt].attrs.axes] == [0, 1, 3, 2]):
                return None
            k = _source(values[kt].args[0], values)
            break
        else:
            return None
    else:
        return None
    if mask is None:
        return None
    shapes = [tuple(int(d) for d in x.ty.shape.values) for x in (q, k, v)]
    dtypes = {str(x.ty.dtype) for x in (q, k, v)}
    if len(set(shapes)) != 1 or len(shapes[0]) != 4 or len(dtypes) != 1 \
            or shapes[0][2] != mask.shape[0] or shapes[0][3] > 128:
        return None
    return q, k, v, scale, pv_var


@relax.expr_functor.mutator
class _Fuser(relax.PyExprMutator):
    def __init__(self, mod: tvm.IRModule, matches: list) -> None:
        super().__init__(mod)
        self.matches = matches

    def visit_var_binding_(self, binding) -> None:
        for q, k, v, scale, pv_var in self.matches:
            if binding.var.same_as(pv_var):
                b, h, t, d = (int(x) for x in q.ty.shape.values)
                dtype = str(q.ty.dtype)
                target = tvm.target.Target.current(allow_none=True)
                cuda = target is not None and target.kind.name == "cuda"
                gv = self.builder_.add_func(kernel(b * h, t, d, dtype, scale, cuda), "causal_attention")
                flat = [self.builder_.emit(relax.op.reshape(self.visit_expr(x), (b * h, t, d)))
                        for x in (q, k, v)]
                out = self.builder_.emit(relax.call_tir(gv, flat, [
                    relax.TensorType([b * h, t, d], dtype), relax.TensorType([b * h, t], "float32")]))
                o = self.builder_.emit(relax.op.reshape(relax.TupleGetItem(out, 0), (b, h, t, d)))
                wide = self.builder_.emit(relax.op.astype(o, str(binding.var.ty.dtype)))
                self.set_var_remap(binding.var, wide)
                return
        super().visit_var_binding_(binding)


@tvm.transform.module_pass(opt_level=0, name="FuseCausalAttention")
def fuse_causal_attention(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    """Each causal attention whose probabilities feed only its ``matmul`` with the values
    becomes one :func:`kernel` call (a no-op elsewhere); the kernel's loops are bound to
    CUDA threads when the current target is CUDA, serial otherwise (the CPU's check)."""
    found = []
    for func in mod.functions.values():
        if not isinstance(func, relax.Function):
            continue
        values, users = {}, {}
        for block in func.body.blocks:
            for binding in block.bindings:
                if not isinstance(binding, relax.VarBinding):
                    continue
                values[binding.var] = binding.value
                for used in relax.analysis.free_vars(binding.value):
                    users.setdefault(used, []).append((binding.var, binding.value))
        found += [m for var, value in values.items() if _op(value, "relax.nn.softmax")
                  for m in [_match(var, values, users)] if m is not None]
    if not found:
        return mod
    fuser = _Fuser(mod, found)
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            fuser.builder_.update_func(gv, fuser.visit_expr(func))
    return relax.transform.DeadCodeElimination()(fuser.builder_.get())


__all__ = ["ROWS", "causal_mask", "fuse_causal_attention", "kernel"]
