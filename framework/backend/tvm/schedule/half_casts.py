"""float16 kernels on the CPU: float32 arithmetic in registers, float16 only in memory.

The lowerings compute a float16 operation in float32 and round its result back
(``lowerings.base.float32_compute``), so a chain of elementwise operations fused into one
kernel reads ``astype(astype(x, float16), float32)`` between every two of them: two
conversions per operation and a rounding that no store needs. TVM removes such pairs for
bfloat16 itself (its ``BF16ComputeLegalize``), not for float16. :func:`drop_round_trips`
does it for float16 inside each fused function, before FuseTIR makes it one kernel: a
value is rounded to float16 once, where it is stored (a kernel's output, which its readers
get), and kept in float32 in between, as bfloat16 is. On a CPU with F16C (Ivy Bridge and
later, Zen) the conversions left at loads and stores are vector instructions
(``vcvtph2ps``/``vcvtps2ph``, 8 or 16 lanes).

Contract: a ``call_tir`` of a plain cast kernel (one elementwise block ``out[i] =
Cast(in[i])``) from float16 to float32 bound to ``float32_compute``'s widening of an operand
(a var named with ``WIDEN_F16``), whose argument is, in the same fused function, its
rounding (named with ``NARROW_F16``) of a float32 value computed there, reads that value
instead; the rounding stays where anything else reads it (dead ones are dropped). Explicit
casts (an ``astype``, amp's casts of weights, gradients and O1 outputs) are not named so:
they round. Names, not kernels, mark them: TVM merges structurally equal cast kernels.
"""

from __future__ import annotations

import tvm
from tvm import relax, tirx
from tvm.s_tir import SBlockRealize

from ..lower.lowerings.base import NARROW_F16, WIDEN_F16

_CALL_TIR = "relax.call_tir"


def _same_dim(a: object, b: object) -> bool:
    """One extent: the same symbolic ``tirx.Var``, or equal constants."""
    if isinstance(a, tirx.IntImm) and isinstance(b, tirx.IntImm):
        return int(a) == int(b)
    return a.same_as(b)


def _cast_dtypes(func: object) -> tuple[str, str] | None:
    """``(source dtype, result dtype)`` when ``func`` is a PrimFunc copying its one input
    into its one output of the same shape through a Cast, element by element; else None."""
    if not isinstance(func, tirx.PrimFunc) or len(func.params) != 2:
        return None
    src, dst = func.params
    # (tirx.Buffer is tirx.Var here: a symbolic size is a param without a buffer type)
    if not (hasattr(src, "shape") and hasattr(dst, "shape")) \
            or len(src.shape) != len(dst.shape) \
            or not all(_same_dim(a, b) for a, b in zip(src.shape, dst.shape)):
        return None  # (a dimension may be a symbolic tirx.Var: framework/ir/symbolic.py)
    node = func.body.block.body if isinstance(func.body, SBlockRealize) else func.body
    while isinstance(node, tirx.For):
        node = node.body
    if not isinstance(node, SBlockRealize) or not isinstance(node.block.body, tirx.BufferStore):
        return None
    store = node.block.body
    value = store.value
    if not isinstance(value, tirx.Cast) or not isinstance(value.value, tvm.ir.TensorLoad):
        return None
    load = value.value
    if not load.source.same_as(src) or not store.buffer.same_as(dst) \
            or len(load.indices) != len(store.indices) \
            or not all(a.same_as(b) for a, b in zip(load.indices, store.indices)):
        return None
    return str(src.dtype), str(dst.dtype)


@relax.expr_functor.mutator
class _RoundTrips(relax.PyExprMutator):
    """In one fused function: ``b = cast_f16_f32(a)`` with ``a = cast_f32_f16(x)`` -> uses of
    ``b`` read ``x``."""

    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.mod = mod
        self.narrowed: dict[relax.Var, relax.Var] = {}  # a -> x
        self.computed: set[relax.Var] = set()  # bound in the function, not read from memory

    def _cast_of(self, value: relax.Expr) -> tuple[relax.Expr, tuple[str, str]] | None:
        if not isinstance(value, relax.Call) or not isinstance(value.op, tvm.ir.Op) \
                or value.op.name != _CALL_TIR or not isinstance(value.args[0], relax.GlobalVar) \
                or not isinstance(value.args[1], relax.Tuple) or len(value.args[1].fields) != 1:
            return None
        dtypes = _cast_dtypes(self.mod[value.args[0]])
        return None if dtypes is None else (value.args[1].fields[0], dtypes)

    def visit_var_binding_(self, binding: relax.VarBinding) -> None:
        cast = self._cast_of(binding.value)
        if cast is not None:
            source, dtypes = cast
            source = self.visit_expr(source)
            name = binding.var.name
            if dtypes == ("float32", "float16") and NARROW_F16 in name and source in self.computed:
                self.narrowed[binding.var] = source
            elif dtypes == ("float16", "float32") and WIDEN_F16 in name \
                    and isinstance(source, relax.Var) \
                    and source in self.narrowed:
                self.set_var_remap(binding.var, self.narrowed[source])
                return
        super().visit_var_binding_(binding)
        self.computed.add(self.visit_expr(binding.var))  # as its readers now name it


@tvm.transform.module_pass(opt_level=0, name="DropFloat16RoundTrips")
def drop_round_trips(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    """:class:`_RoundTrips` in every fused (``Primitive``) function, then dead-code
    elimination of the casts no one reads any more."""
    updates = {}
    for gv, func in mod.functions.items():
        if isinstance(func, relax.Function) and func.attrs and int(func.attrs.get("Primitive", 0)):
            rewritten = _RoundTrips(mod).visit_expr(func)
            if not rewritten.same_as(func):
                updates[gv] = rewritten
    if not updates:
        return mod
    mod = mod.clone()
    for gv, func in updates.items():
        mod.update_func(gv, func)
    return relax.transform.DeadCodeElimination()(mod)
