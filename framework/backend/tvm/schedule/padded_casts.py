"""A 16-bit operand widened inside the padding copy of the convolution that reads it.

In amp O2 a convolution computes in float32 on operands converted from float16/bfloat16
(lowerings.base ``float32_compute``): FuseOps leaves each conversion a kernel of its own
(a cast does not fuse into a convolution), writing a float32 copy of the activation that
the convolution then copies again into its zero-padded buffer (``pad_temp``). ResNet-20 in
fp16 spent ~3 ms of a ~105 ms step in those conversions, and kept every float32 copy alive
from the forward convolution to its weight gradient.

:func:`fold_padded_casts` gives such a convolution the conversion itself: a call
``y = K(c, ...)`` with ``c = C(x)`` (``C`` one of :mod:`.shared_casts`' pure conversion
kernels, widening a 16-bit float to float32) where ``K`` reads that operand only through
padding blocks becomes one kernel ``C`` + ``K`` (Relax's ``FuseTIR``), whose padding the
CPU rules compute from ``x`` (the cast inlined into it: cpu_rules ``_sort_producers``), so
the copy converts as it pads. A conversion left without callers is dropped.

Contract: results are unchanged (the same conversion, the same padding, the same kernel);
only calls without symbolic-shape arguments (``tir_vars``) inside dataflow blocks fold.
"""

from __future__ import annotations

import tvm
from tvm import relax, tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta
from .shared_casts import _is_conversion

LOW_FLOATS = ("float16", "bfloat16")


def _widens(func: tirx.PrimFunc) -> bool:
    """A pure conversion (:mod:`.shared_casts`) from a 16-bit float to float32."""
    if not _is_conversion(func):
        return False
    source, dest = (p.ty for p in func.params)
    return str(source.dtype) in LOW_FLOATS and str(dest.dtype) == "float32"


def _padded_params(func: tirx.PrimFunc) -> set[int]:
    """Indices of ``func``'s parameters that only padding blocks read."""
    try:
        sch = Schedule(func)
        blocks = ta.blocks(sch)
    except Exception:  # no root block: an extern call
        return set()
    readers: dict[int, list] = {}
    for block in blocks:
        for read in sch.get(block).reads:
            for i, param in enumerate(func.params[:-1]):
                if read.source.same_as(param):  # (a parameter is its buffer)
                    readers.setdefault(i, []).append(block)
    found = set()
    for i, blocks_ in readers.items():
        if blocks_ and all(ta.is_padding(sch, b) for b in blocks_):
            found.add(i)
    return found


@relax.expr_functor.mutator
class _Folder(relax.PyExprMutator):
    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.mod = mod
        self.widening = {gv.name_hint: gv for gv, f in mod.functions.items()
                         if isinstance(f, tirx.PrimFunc) and _widens(f)}
        self.padded: dict[str, set[int]] = {}
        self.made: dict[tuple, relax.GlobalVar] = {}

    def _padded(self, callee: relax.GlobalVar) -> set[int]:
        if callee.name_hint not in self.padded:
            func = self.mod[callee]
            self.padded[callee.name_hint] = _padded_params(func) if isinstance(func, tirx.PrimFunc) else set()
        return self.padded[callee.name_hint]

    def _conversion(self, arg):
        """``(conversion GlobalVar, its input)`` when ``arg`` is bound to a widening call."""
        if not isinstance(arg, relax.Var):
            return None
        value = self.lookup_binding(arg)
        if (isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op)
                and value.op.name == "relax.call_tir" and len(value.args) == 2
                and value.args[0].name_hint in self.widening):
            return value.args[0], value.args[1].fields[0], value.ty_args[0]
        return None

    def visit_call_(self, call: relax.Call) -> relax.Expr:
        call = super().visit_call_(call)
        if not (isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.call_tir" and len(call.args) == 2
                and isinstance(call.args[0], relax.GlobalVar)
                and isinstance(call.args[0].name_hint, str) and call.args[0].name_hint not in self.widening):
            return call
        callee, args = call.args[0], list(call.args[1].fields)
        folds = {i: conv for i in self._padded(callee)
                 if i < len(args) and (conv := self._conversion(args[i])) is not None}
        if not folds:
            return call
        return self._fused_call(callee, args, folds, call.ty_args[0])

    def _fused_call(self, callee, args, folds, out_ty) -> relax.Expr:
        """A call of a new Primitive Relax function: the conversions, then ``callee``."""
        outer = [folds[i][1] if i in folds else a for i, a in enumerate(args)]
        key = (callee.name_hint, tuple(sorted((i, c[0].name_hint) for i, c in folds.items())))
        if key not in self.made:
            params = [relax.Var(f"p{i}", a.ty) for i, a in enumerate(outer)]
            bb = relax.BlockBuilder()
            name = "_".join([folds[i][0].name_hint for i in sorted(folds)] + [callee.name_hint])
            with bb.function(name, params, attrs={"Primitive": True}, private=True):
                with bb.dataflow():
                    inner = list(params)
                    for i, (conversion, _, ty) in sorted(folds.items()):
                        inner[i] = bb.emit(relax.call_tir(conversion, [params[i]], ty))
                    out = bb.emit_output(relax.call_tir(callee, inner, out_ty))
                bb.emit_func_output(out)
            func = bb.get()[name]
            self.made[key] = self.builder_.add_func(func, name)
        return relax.Call(self.made[key], outer)


@tvm.transform.module_pass(opt_level=0, name="FoldPaddedCasts")
def fold_padded_casts(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    folder = _Folder(mod)
    if not folder.widening:
        return mod
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            folder.builder_.update_func(gv, folder.visit_expr(func))
    if not folder.made:
        return mod
    mod = relax.transform.FuseTIR()(folder.builder_.get())
    return relax.transform.DeadCodeElimination()(mod)
