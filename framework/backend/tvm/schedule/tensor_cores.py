"""bfloat16/float16 matrix products on CUDA tensor cores, accumulated in float32.

The lowerings compute a low-precision GEMM as ``matmul(astype(a, f32), astype(b, f32))``
(``lowerings.base.float32_compute``: exact products, float32 sums, the NumPy kernels'
rule). On CUDA, :func:`fold_operand_casts` folds those operand casts into the product
(``matmul(a, b, out_dtype=f32)``: the same products and sums, the operands read in 16
bits), so that the product's kernel reads bfloat16/float16 and :class:`TensorCoreMatmul`
can schedule it on the tensor cores with WMMA fragments (``nvcuda::wmma::mma_sync``,
16x16x16 tiles, float32 accumulators). float32 products are never sent there: the matrix
units would round their operands to TF32.

TVM's dlight ``MatmulTensorization`` schedules float16 only (its intrinsic group asserts
the dtype); the same schedule serves bfloat16 once WMMA intrinsics for that dtype are
registered (:func:`_register_bf16_intrinsics`) and named in its place.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import tvm
from tvm import relax, tirx
from tvm.s_tir import SBlockRealize

LOW_FLOATS = ("float16", "bfloat16")
_TILE = 16  # WMMA m = n = k


@relax.expr_functor.mutator
class _CastFolder(relax.PyExprMutator):
    """``matmul(astype(a), astype(b))`` with a, b both float16 or both bfloat16 (possibly
    through ``permute_dims``) -> ``matmul(a', b', out_dtype=float32)``."""

    def _low(self, expr: relax.Expr) -> relax.Expr | None:
        """The 16-bit value whose float32 cast ``expr`` is (a permutation kept), or None."""
        value = self.lookup_binding(expr) if isinstance(expr, relax.Var) else expr
        if not isinstance(value, relax.Call) or not isinstance(value.op, tvm.ir.Op):
            return None
        name = value.op.name
        if name == "relax.astype" and str(value.attrs.dtype) == "float32":
            source = value.args[0]
            return source if str(source.ty.dtype) in LOW_FLOATS else None
        if name == "relax.permute_dims":
            inner = self._low(value.args[0])
            return None if inner is None else relax.op.permute_dims(inner, value.attrs.axes)
        return None

    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__(mod)
        self.mod = mod

    def _is_transposed_a_matmul(self, call: relax.Call) -> bool:
        """A ``call_tir`` of TOPI's ``a^T b`` kernel (the MatMul lowering's choice for a
        weight gradient: no transposed copy of ``a``): one block ``C[i, j] += A[k, i] *
        B[k, j]`` over its two inputs."""
        callee, args = call.args[0], call.args[1]
        if len(call.args) != 2 or not isinstance(callee, relax.GlobalVar) \
                or not isinstance(args, relax.Tuple) or len(args.fields) != 2:
            return False
        func = self.mod[callee]
        if not isinstance(func, tirx.PrimFunc) or len(func.params) != 3:
            return False
        realize = func.body.block.body if isinstance(func.body, SBlockRealize) else None
        loops = realize
        while isinstance(loops, tirx.For):
            loops = loops.body
        if not isinstance(loops, SBlockRealize):
            return False
        block = loops.block
        kinds = [int(v.iter_type) for v in block.iter_vars]
        if kinds != [tirx.IterVar.DataPar, tirx.IterVar.DataPar, tirx.IterVar.CommReduce]:
            return False
        i, j, k = (v.var for v in block.iter_vars)
        store = block.body
        if not isinstance(store, tirx.BufferStore) or len(block.reads) != 2:
            return False
        (a, b), c = (r.source for r in block.reads), store.buffer  # reads in parameter order
        value = store.value

        def load(expr, buffer, *index) -> bool:
            return (isinstance(expr, tvm.ir.TensorLoad) and expr.source.same_as(buffer)
                    and len(expr.indices) == len(index)
                    and all(x.same_as(y) for x, y in zip(expr.indices, index)))

        return (isinstance(value, tirx.Add) and load(value.a, c, i, j)
                and isinstance(value.b, tirx.Mul) and load(value.b.a, a, k, i)
                and load(value.b.b, b, k, j))

    def visit_call_(self, call: relax.Call) -> relax.Expr:
        call = super().visit_call_(call)
        if not isinstance(call.op, tvm.ir.Op):
            return call
        if call.op.name == "relax.call_tir" and self._is_transposed_a_matmul(call):
            a, b = (self._low(arg) for arg in call.args[1].fields)
            if a is None or b is None:
                return call
            a = self.builder_.emit(relax.op.permute_dims(a, [1, 0]))
        elif call.op.name == "relax.matmul":
            a, b = (self._low(arg) for arg in call.args)
        else:
            return call
        if a is None or b is None:
            return call
        a, b = (self.builder_.emit(x) if isinstance(x, relax.Call) else x for x in (a, b))
        if str(a.ty.dtype) != str(b.ty.dtype):
            return call
        return relax.op.matmul(a, b, out_dtype="float32")


@tvm.transform.module_pass(opt_level=0, name="FoldMatmulOperandCasts")
def fold_operand_casts(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
    folder = _CastFolder(mod)
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            folder.builder_.update_func(gv, folder.visit_expr(func))
    return relax.transform.DeadCodeElimination()(folder.builder_.get())


@functools.cache
def _register_bf16_intrinsics() -> dict[str, str]:
    """WMMA intrinsics for bfloat16 operands (TVM registers float16 and int8 ones only),
    named like TVM's; returns the group for bfloat16 x bfloat16 -> float32, B transposed."""
    from tvm.s_tir import TensorIntrin
    from tvm.s_tir.tensor_intrin import cuda

    group = {"init": "wmma_fill_16x16x16_f32", "store": "wmma_store_16x16x16_f32_shared_dyn",
             "load_a": "wmma_load_16x16x16_bf16_a_shared_dyn",
             "load_b": "wmma_load_16x16x16_bf16_b_trans_shared_dyn",
             "compute": "wmma_sync_16x16x16_bf16bf16f32_trans"}
    made = {"load_a": cuda.get_wmma_load_intrin(_TILE, _TILE, _TILE, "bfloat16", "shared.dyn",
                                                False, False),
            "load_b": cuda.get_wmma_load_intrin(_TILE, _TILE, _TILE, "bfloat16", "shared.dyn",
                                                True, True),
            "compute": cuda.get_wmma_sync_intrin(_TILE, _TILE, _TILE, "bfloat16", "float32", True)}
    for role, (desc, impl) in made.items():
        TensorIntrin.register(group[role], desc, impl, override=True)
    return group


@contextlib.contextmanager
def _intrinsics_for(dtype: str):
    """TVM's float16 tensor-core schedule, its intrinsic group swapped for ``dtype``'s."""
    from tvm.s_tir.tensor_intrin import cuda

    if dtype == "float16":
        yield
        return
    group = _register_bf16_intrinsics()
    original = cuda.get_wmma_intrin_group

    def swapped(load_scope, store_scope, in_dtype, out_dtype, trans_b):
        if out_dtype != "float32":  # its float16-accumulator retry: never for bfloat16
            raise ValueError("bfloat16 products accumulate in float32")
        return dict(group)

    cuda.get_wmma_intrin_group = swapped
    try:
        yield
    finally:
        cuda.get_wmma_intrin_group = original


def operand_dtype(func: tirx.PrimFunc) -> str | None:
    """The 16-bit float dtype of a matmul kernel's two operands when it accumulates them in
    float32 (the kernels :func:`fold_operand_casts` leaves), else None."""
    from tvm.s_tir import Schedule
    from tvm.s_tir.dlight.analysis import get_root_block
    from tvm.s_tir.dlight.gpu.matmul import get_reduction_blocks

    try:
        sch = Schedule(func)
        blocks = get_reduction_blocks(sch, sch.get_child_blocks(get_root_block(sch)))
    except Exception:
        return None
    if not blocks or len(blocks) != 1:
        return None
    block = sch.get(blocks[0])
    reads = {str(r.source.dtype) for r in block.reads} - {"float32"}
    writes = {str(w.source.dtype) for w in block.writes}
    if len(reads) == 1 and reads <= set(LOW_FLOATS) and writes == {"float32"}:
        return reads.pop()
    return None


class TensorCoreMatmul:
    """dlight rule: a float16/bfloat16 matmul with float32 accumulation on the tensor cores
    (TVM's ``MatmulTensorization``, for either dtype); None for anything else."""

    def apply(self, func: Any, target: tvm.target.Target, tunable: bool) -> Any:
        from tvm.s_tir.dlight.gpu.matmul import MatmulTensorization

        if not isinstance(func, tirx.PrimFunc) or target.kind.name != "cuda":
            return None
        dtype = operand_dtype(func)
        if dtype is None:
            return None
        with _intrinsics_for(dtype):
            return MatmulTensorization().apply(func, target, tunable)


__all__ = ["LOW_FLOATS", "TensorCoreMatmul", "fold_operand_casts", "operand_dtype"]
