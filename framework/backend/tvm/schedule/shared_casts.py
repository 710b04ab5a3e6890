"""One float32 copy per float16/bfloat16 value and dataflow block: after fusion, a kernel that
only converts a value (``cast9``) and is called again on the same value in the same dataflow
block is not run twice; the second binding reads the first one's result.

Why: low-precision matmuls compute in float32 on converted operands (lowerings.base
``float32_compute``), and each lowering converts its own operands, so an activation read by
a forward matmul and by its weight gradient's matmul was converted twice (a character GPT in
fp16: 59 of 213 conversion calls per step). Relax's ``EliminateCommonSubexpr`` would share
these too, but it also merges allocations that loops then write in place (lower/segment.py);
this pass shares nothing but calls of pure conversion kernels.

Contract: a call is shared when it is a ``call_tir`` inside a dataflow block, to a PrimFunc
whose one block stores ``T.Cast(dtype, x[i...])`` of its one input at the same indices, with
the same argument variable and output type as an earlier call of the same block. Nothing
else changes; the result is what the unshared module computes.
"""

from __future__ import annotations

import tvm
from tvm import relax, tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta


def _is_conversion(func: tirx.PrimFunc) -> bool:
    """The PrimFunc converts its one input elementwise into its one output, nothing else."""
    if len(func.params) != 2:
        return False
    try:
        sch = Schedule(func)
        stores = [sch.get(block).body for block in ta.blocks(sch)]
    except Exception:  # no root block (an extern call: sort, topk): not a conversion
        return False
    if len(stores) != 1 or not isinstance(stores[0], tirx.BufferStore):
        return False
    store = stores[0]
    value = store.value
    if not isinstance(value, tirx.Cast) or type(value.value).__name__ not in ("BufferLoad", "TensorLoad"):
        return False
    load = value.value
    analyzer = tvm.sym.Analyzer()
    return (len(load.indices) == len(store.indices)
            and all(analyzer.can_prove_equal(a, b) for a, b in zip(load.indices, store.indices)))


@relax.expr_functor.mutator
class _Sharer(relax.PyExprMutator):
    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.conversions = {gv.name_hint for gv, f in mod.functions.items()
                            if isinstance(f, tirx.PrimFunc) and _is_conversion(f)}
        self.seen: dict | None = None  # inside a dataflow block: its conversions so far

    def visit_dataflow_block_(self, block: relax.DataflowBlock) -> relax.DataflowBlock:
        outer, self.seen = self.seen, {}
        try:
            return super().visit_dataflow_block_(block)
        finally:
            self.seen = outer

    def visit_var_binding_(self, binding: relax.VarBinding) -> None:
        value = binding.value
        if (self.seen is not None and isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op)
                and value.op.name == "relax.call_tir"
                and value.args[0].name_hint in self.conversions
                and isinstance(value.args[1], relax.Tuple) and len(value.args[1].fields) == 1):
            source = self.visit_expr(value.args[1].fields[0])
            if isinstance(source, relax.Var):
                key = (value.args[0].name_hint, source, str(value.ty_args[0]))
                if key in self.seen:
                    self.set_var_remap(binding.var, self.seen[key])
                    return
                call = relax.Call(value.op, [value.args[0], relax.Tuple([source])],
                                  value.attrs, value.ty_args)
                if isinstance(binding.var, relax.DataflowVar):
                    var = self.builder_.emit(call, name_hint=binding.var.name)
                else:
                    var = self.builder_.emit_output(call, name_hint=binding.var.name)
                self.set_var_remap(binding.var, var)
                self.seen[key] = var
                return
        super().visit_var_binding_(binding)


@tvm.transform.module_pass(opt_level=0, name="ShareConversions")
def share_conversions(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    sharer = _Sharer(mod)
    if not sharer.conversions:
        return mod
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            sharer.builder_.update_func(gv, sharer.visit_expr(func))
    return relax.transform.DeadCodeElimination()(sharer.builder_.get())
