"""Contractions run where their operands are ready, not where fusion left them.

FuseOps emits a fused kernel where the *last* binding of its group was. A matmul whose
elementwise epilogue comes late in the graph is then deferred with it: in amp O2 the weight
gradient ``dW = x^T dy`` fuses with the unscaling ``dW * (1 / loss_scale)`` (and the casts
around it), and the unscaling comes after the whole backward pass. Every weight gradient of
the character GPT in fp16 ran at the end of the step, reading ``x`` and ``dy`` (float32
copies, 1.5 MB each, kept alive from their forward/backward use until then) from memory
instead of cache: the four kinds of weight-gradient matmuls took 17.5 ms of a 63 ms step
against 13.1 ms of float32's, where they run beside the matmul that made ``dy``.

:func:`hoist_contractions` moves, inside each dataflow block, every call of a kernel that
contracts (a reduction block of a sum of products: matmul, convolution) to just after the
latest definition among its arguments, and first every *tiny* computation it may wait for
(a result of at most :data:`TINY` elements whose arguments are tiny or defined before it:
the ``1 / loss_scale`` scalar) to just after its own arguments. Nothing else moves.

Contract: the result computes what the input does: a binding moves only above bindings it
does not read, and never above a binding that is not a plain ``call_tir``, a tuple, a tuple
item or a variable (an in-place write of ``call_tir_inplace`` is a barrier). Bindings keep
their variables; only their order changes.
"""

from __future__ import annotations

import functools

import tvm
from tvm import relax, tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

TINY = 64  # elements: a result this small is hoisted freely (a scalar, a per-step count)


def contracts(func: tirx.PrimFunc) -> bool:
    """Does ``func`` hold a reduction block ``C[...] += x * y`` over two or more inputs?"""
    try:
        sch = Schedule(func)
        blocks = ta.blocks(sch)
    except Exception:  # no root block (an extern call): not ours to judge
        return False
    for block in blocks:
        stmt = sch.get(block)
        if stmt.init is None or not any(int(iv.iter_type) == 2 for iv in stmt.iter_vars):
            continue
        if len(ta.reads(sch, block)) >= 2 and ta.is_sum_of_products(stmt.body):
            return True
    return False


def _elements(ty) -> int | None:
    if not isinstance(ty, relax.TensorType) or not isinstance(ty.shape, relax.ShapeExpr):
        return None
    n = 1
    for d in ty.shape.values:
        if not isinstance(d, tirx.IntImm):
            return None
        n *= int(d)
    return n


_PLAIN = (relax.Tuple, relax.TupleGetItem, relax.Var, tvm.ir.expr.Constant, relax.ShapeExpr)


def _kind(binding, is_contraction) -> str:
    """'contraction', 'tiny', 'plain' (may be moved across), or 'barrier'."""
    value = binding.value
    if not isinstance(binding, relax.VarBinding):
        return "barrier"
    if isinstance(value, _PLAIN):
        return "plain"
    if not (isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op)
            and value.op.name == "relax.call_tir"):
        return "barrier"
    callee = value.args[0]
    if isinstance(callee, relax.GlobalVar) and is_contraction(callee.name_hint):
        return "contraction"
    size = _elements(binding.var.ty)
    return "tiny" if size is not None and size <= TINY else "plain"


def _used_vars(expr) -> list:
    found = []
    relax.analysis.post_order_visit(expr, lambda e: found.append(e) if isinstance(e, relax.Var) else None)
    return found


def _reorder(bindings: list, is_contraction) -> list:
    order: list = []  # the bindings placed so far, in their new order
    floor = 0  # nothing moves above this index (just after the last barrier)
    for binding in bindings:
        kind = _kind(binding, is_contraction)
        if kind in ("contraction", "tiny"):
            defined = {b.var: i for i, b in enumerate(order)}  # (Vars hash and compare by identity)
            uses = [defined[v] for v in _used_vars(binding.value) if v in defined]
            at = max([floor - 1, *uses]) + 1
            if kind == "tiny" and any(_kind(order[i], is_contraction) not in ("tiny", "plain")
                                      or _elements(order[i].var.ty) is None
                                      or _elements(order[i].var.ty) > TINY for i in uses):
                at = len(order)  # waits for something large: stays
            order.insert(at, binding)
        else:
            order.append(binding)
            if kind == "barrier":
                floor = len(order)
    return order


@tvm.transform.module_pass(opt_level=0, name="HoistContractions")
def hoist_contractions(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    @functools.cache
    def is_contraction(name: str) -> bool:
        try:
            func = mod[name]
        except Exception:  # not a function of this module
            return False
        return isinstance(func, tirx.PrimFunc) and contracts(func)

    updates = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, relax.Function) or not isinstance(func.body, relax.SeqExpr):
            continue
        blocks = []
        changed = False
        for block in func.body.blocks:
            if isinstance(block, relax.DataflowBlock):
                order = _reorder(list(block.bindings), is_contraction)
                if any(a is not b for a, b in zip(order, block.bindings)):
                    changed = True
                    block = relax.DataflowBlock(order)
            blocks.append(block)
        if changed:
            body = relax.SeqExpr(blocks, func.body.body)
            updates[gv] = relax.Function(func.params, body, func.ret_ty, func.is_pure, func.attrs)
    if not updates:
        return mod
    mod = mod.clone()
    for gv, func in updates.items():
        mod[gv] = func
    return mod
