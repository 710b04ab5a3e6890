"""TVM Relax lowering of every primitive: the table from primitive class to lowering.

A lowering is called as ``lower(ctx, *args) -> relax.Expr | tuple[relax.Expr, ...]``
(the contract is in :mod:`framework.primitive`): ``ctx`` is a :class:`LowerContext`
(``prim`` for the attributes, ``bb`` a :class:`relax.BlockBuilder` inside a dataflow block,
``in_specs``/``out_specs`` the IR node's Specs) and ``args`` are already-emitted Relax
values with static shapes. The result has exactly the shapes and dtypes of
``ctx.out_specs``; intermediate values are emitted with ``ctx.bb.emit``, the returned
expression(s) are left for the caller to emit. A returned output may be an
:class:`.base.AtUse` (a cheap copy, e.g. a row slice): the caller emits it where it is first
used, or at once through :func:`.base.emit`. Lowerings read shapes and dtypes from
``ctx``, never by re-running the shape rule.

Special case: ``Dropout`` (``host_random``) receives its host-drawn 0/1 mask as an extra
last input, ``lower(ctx, x, mask)``, and returns ``(x * mask * (1 / keep_prob), mask)``.

One module per op family; this module assembles the one table, ``LOWERINGS``, and
:func:`lowering_for` looks a primitive up in it.

Known differences from the NumPy kernels (all documented at the lowering):

- ``MaxPoolGrad`` ignores its ``out`` input: TVM recomputes each window's argmax from ``x``
  (the same thing when ``out`` is ``MaxPool(x)``). Ties go to the first maximum in
  row-major window order, as in the kernel.
- ``MaxPool``/``MaxPoolGrad`` with 'same' padding pad with the dtype's lowest finite value,
  the kernel with -inf: they differ only where every real entry of a window is -inf.
- ``AvgPoolBackprop`` materializes a zero tensor of ``input_shape`` because
  ``relax.op.grad.avg_pool2d_backward`` takes the forward input (it reads only its shape).
- ``Div`` of integer tensors divides in float64 and casts to float32, as the kernel does.
  ``Pow`` of integers computes in float64 (TVM's ``power`` is float-only); a negative
  exponent gives MindSpore's integer answer (framework/ops/int_edges.py).
- bool arithmetic/comparisons compute in int8 (TVM's LLVM codegen rejects them on bool).
- ``Gather``/``IndexAdd``/``ScatterUpdate`` clip out-of-range indices (after wrapping
  negative ones once) where the kernels raise: compiled code never leaves the tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tvm import relax

from .....dtype import BFLOAT16_NP
from .....ops import activations as _act
from .....ops import batch_matmul as _bmm
from .....ops import comm as _comm
from .....ops import conv as _conv
from .....ops import elementwise as _ew
from .....ops import group_conv as _gconv
from .....ops import math_binary as _mb
from .....ops import math_unary as _mu
from .....ops import nn_ops as _nn
from .....ops import pool as _pool
from .....ops import reduce as _reduce
from .....ops import scatter_gather as _index
from .....ops import shape_ops as _shape
from .....ops import sorting as _sorting
from .....ops.layer_norm import LayerNorm as _LayerNorm
from .....ops.layer_norm import LayerNormGrad as _LayerNormGrad
from .....ops.lstm_cell import LSTMPointwise as _LSTMPointwise
from .....ops.lstm_cell import LSTMPointwiseGrad as _LSTMPointwiseGrad
from .....ops.random_draw import RandomDraw as _RandomDraw
from .....ops.reductions import ReduceProd as _ReduceProd
from .....ops.scan import CumSum as _CumSum
from .....ops.split_rows import SplitRows as _SplitRows
from .....primitive import Primitive, Spec
from ...runtime.host_kernels import has_kernel
from . import (
    comm,
    conv,
    elementwise,
    group_conv,
    index,
    lstm_cell,
    math_functions,
    nn,
    pool,
    reduce,
    seq,
    shape,
    sorting,
)
from .base import LowerContext, Lowering, bf16_tiles, float32_compute, on_cpu, spec_of
from .host import lower_on_host

LOWERINGS: dict[type[Primitive], Lowering] = {
    _ew.Add: elementwise.binary(relax.op.add),
    _ew.Sub: elementwise.binary(relax.op.subtract),
    _ew.Mul: elementwise.binary(relax.op.multiply),
    # Div is true division: integers divide in float64, then take the declared float32.
    _ew.Div: elementwise.division("true"),
    _ew.Pow: elementwise.lower_pow,
    _ew.Maximum: elementwise.extremum("max"),
    _ew.Minimum: elementwise.extremum("min"),
    # floor division/modulo as in NumPy: round toward -inf, the sign of the divisor
    _ew.FloorDiv: elementwise.division("floor"),
    _ew.FloorMod: elementwise.division("mod"),
    _ew.Equal: elementwise.compare(relax.op.equal),
    _ew.NotEqual: elementwise.compare(relax.op.not_equal),
    _ew.Less: elementwise.compare(relax.op.less),
    _ew.LessEqual: elementwise.compare(relax.op.less_equal),
    _ew.Greater: elementwise.compare(relax.op.greater),
    _ew.GreaterEqual: elementwise.compare(relax.op.greater_equal),
    _ew.Select: elementwise.lower_select,
    _ew.Cast: elementwise.lower_cast,
    _ew.Neg: elementwise.unary(relax.op.negative),
    _ew.Abs: elementwise.unary(relax.op.abs),
    _ew.Exp: elementwise.unary(relax.op.exp),
    _ew.Cos: elementwise.unary(relax.op.cos),
    _ew.Sin: elementwise.unary(relax.op.sin),
    _ew.Log: elementwise.unary(relax.op.log),
    _ew.Sqrt: elementwise.unary(relax.op.sqrt),
    _ew.ReLU: elementwise.lower_relu,
    _ew.Sigmoid: elementwise.lower_sigmoid,
    _ew.Tanh: elementwise.lower_tanh,
    _reduce.ReduceSum: reduce.reduction(relax.op.sum),
    _reduce.ReduceMean: reduce.lower_reduce_mean,
    _reduce.ReduceMax: reduce.lower_reduce_max,
    _reduce.Argmax: reduce.lower_argmax,
    _reduce.ReduceAll: reduce.truth(any_=False),
    _reduce.ReduceAny: reduce.truth(any_=True),
    _shape.Reshape: shape.lower_reshape,
    _shape.Transpose: shape.lower_transpose,
    _shape.BroadcastTo: shape.lower_broadcast_to,
    _shape.ExpandDims: shape.lower_expand_dims,
    _shape.Squeeze: shape.lower_squeeze,
    _shape.Concat: shape.lower_concat,
    _SplitRows: shape.lower_split_rows,
    _shape.Slice: shape.lower_slice,
    _shape.Pad: shape.lower_pad,
    _shape.StopGradient: shape.identity,
    _shape.Load: shape.identity,
    _shape.ZerosLike: shape.lower_zeros_like,
    _shape.OnesLike: shape.lower_ones_like,
    _nn.MatMul: nn.lower_matmul,
    _bmm.BatchMatMul: nn.lower_batch_matmul,
    _nn.BiasAdd: nn.lower_bias_add,
    _nn.Softmax: nn.lower_softmax,
    _nn.LogSoftmax: nn.lower_log_softmax,
    _nn.OneHot: nn.lower_one_hot,
    _nn.Dropout: nn.lower_dropout,
    _nn.BatchNorm: nn.lower_batch_norm,
    _conv.Conv2D: conv.lower_conv2d,
    _conv.Conv2DBackpropInput: conv.lower_conv2d_backprop_input,
    _conv.Conv2DBackpropFilter: conv.lower_conv2d_backprop_filter,
    _gconv.GroupConv2D: conv.lower_conv2d,
    _gconv.GroupConv2DBackpropInput: conv.lower_conv2d_backprop_input,
    _gconv.GroupConv2DBackpropFilter: group_conv.lower_group_conv2d_backprop_filter,
    _pool.MaxPool: pool.lower_max_pool,
    _pool.MaxPoolGrad: pool.lower_max_pool_grad,
    _pool.AvgPool: pool.lower_avg_pool,
    _pool.AvgPoolBackprop: pool.lower_avg_pool_grad,
    _index.Gather: index.lower_gather,
    _index.IndexAdd: index.lower_index_add,
    _index.ScatterUpdate: index.lower_scatter_update,
    _comm.AllReduce: comm.lower_all_reduce,
    # sorting and sampling (TopK, Sort: stable like the kernels; Multinomial: host-drawn uniforms)
    _sorting.TopK: sorting.lower_topk,
    _sorting.Sort: sorting.lower_sort,
    _sorting.Multinomial: sorting.lower_multinomial,
    # mint's random creation: the host-drawn numbers are the node's only input, its output
    _RandomDraw: shape.identity,
    # sequence models: layer norm, activations
    _LayerNorm: seq.lower_layer_norm,
    _LayerNormGrad: seq.lower_layer_norm_grad,
    _LSTMPointwise: lstm_cell.lower_lstm_pointwise,
    _LSTMPointwiseGrad: lstm_cell.lower_lstm_pointwise_grad,
    _act.Erf: seq.lower_erf,
    _act.GeLU: seq.lower_gelu,
    _act.FastGeLU: seq.lower_fast_gelu,
    _act.SiLU: seq.lower_silu,
    _act.Softplus: seq.lower_softplus,
    _CumSum: seq.lower_cumsum,
    # unary and binary math: ops/math_unary.py, ops/math_binary.py
    _mu.ACos: math_functions.unary(relax.op.acos),
    _mu.Asin: math_functions.unary(relax.op.asin),
    _mu.Atan: math_functions.unary(relax.op.atan),
    _mu.Acosh: math_functions.unary(relax.op.acosh),
    _mu.Asinh: math_functions.te_lowering(math_functions.te_asinh),
    _mu.Atanh: math_functions.te_lowering(math_functions.te_atanh),
    _mu.Cosh: math_functions.te_lowering(math_functions.te_cosh),
    _mu.Sinh: math_functions.te_lowering(math_functions.te_sinh),
    _mu.Tan: math_functions.unary(relax.op.tan),
    _mu.Rsqrt: math_functions.unary(relax.op.rsqrt),
    _mu.Floor: math_functions.unary(relax.op.floor),
    _mu.Ceil: math_functions.unary(relax.op.ceil),
    _mu.Trunc: math_functions.unary(relax.op.trunc),
    _mu.Round: float32_compute(math_functions.lower_round),
    _mu.Expm1: math_functions.te_lowering(math_functions.te_expm1),
    _mu.Log1p: math_functions.te_lowering(math_functions.te_log1p),
    _mu.Erfc: float32_compute(math_functions.lower_erfc),
    _mu.Reciprocal: float32_compute(math_functions.lower_reciprocal),
    _mu.Square: math_functions.lower_square,
    _mu.Sign: elementwise.unary(relax.op.sign),
    _mu.IsNan: math_functions.predicate(relax.op.isnan, integer_answer=False),
    _mu.IsInf: math_functions.predicate(relax.op.isinf, integer_answer=False),
    _mu.IsFinite: math_functions.predicate(relax.op.isfinite, integer_answer=True),
    _mu.LogicalNot: elementwise.unary(relax.op.logical_not),
    _mu.Invert: math_functions.lower_invert,
    _mb.Atan2: float32_compute(math_functions.lower_atan2),
    _mb.LogicalAnd: math_functions.logical(relax.op.logical_and),
    _mb.LogicalOr: math_functions.logical(relax.op.logical_or),
    _mb.LogicalXor: math_functions.logical(relax.op.logical_xor),
    _mb.BitwiseAnd: math_functions.bitwise(relax.op.bitwise_and),
    _mb.BitwiseOr: math_functions.bitwise(relax.op.bitwise_or),
    _mb.BitwiseXor: math_functions.bitwise(relax.op.bitwise_xor),
    _ReduceProd: reduce.reduction(relax.op.prod),
}


# float16/bfloat16 inputs computed in float32, outputs rounded back (base.float32_compute):
# the ops whose NumPy kernels carry ops._utils.float32_accumulation
for _prim in (_reduce.ReduceSum, _reduce.ReduceMean, _nn.Softmax,
              _nn.LogSoftmax, _nn.BatchNorm, _gconv.GroupConv2D, _gconv.GroupConv2DBackpropInput,
              _gconv.GroupConv2DBackpropFilter, _pool.AvgPool, _pool.AvgPoolBackprop, _LayerNorm,
              _LayerNormGrad, _act.Erf, _act.GeLU, _CumSum):
    LOWERINGS[_prim] = float32_compute(LOWERINGS[_prim])
for _prim in (_nn.MatMul, _bmm.BatchMatMul):  # bf16 on AMX tiles where the CPU has them
    LOWERINGS[_prim] = bf16_tiles(LOWERINGS[_prim])
for _prim, _kind in ((_conv.Conv2D, "conv2d"), (_conv.Conv2DBackpropInput, "input_grad"),
                     (_conv.Conv2DBackpropFilter, "filter_grad")):
    LOWERINGS[_prim] = conv.bf16_conv_tiles(LOWERINGS[_prim], _kind)


def lowering_for(prim: Primitive) -> Lowering:
    """The TVM lowering of ``prim``'s class; its NumPy kernel called from the compiled code
    when it has none (CPU only, :mod:`...runtime.host_kernels`); a clear error otherwise."""
    try:
        return LOWERINGS[type(prim)]
    except KeyError:
        if has_kernel(prim):
            return lower_on_host
        raise NotImplementedError(
            f"graph mode: primitive {prim.name} has no TVM lowering; add one to LOWERINGS in "
            f"framework/backend/tvm/lower/lowerings/__init__.py (or run in PyNative mode)") from None


def node_context(bb: relax.BlockBuilder, node: Any,
                 spec: Callable[[Any], Spec] | None = None) -> LowerContext:
    """The context of an IR node's lowering: its primitive and its input/output Specs
    (``spec`` gives a value's Spec: symbolic dimensions as TIR expressions, else ints)."""
    spec = spec or (lambda v: v.spec)
    return LowerContext(node.prim, bb, tuple(map(spec, node.inputs)), tuple(map(spec, node.outputs)))


# bfloat16 operands of anything but data movement compute in float32 (TVM's TIR lacks
# bfloat16 forms of some intrinsics, e.g. isnan); each result is rounded to bfloat16 as
# ml_dtypes' ufuncs round theirs, and the casts fuse into the elementwise kernels. float16
# on the CPU likewise: x86 has no float16 arithmetic below AVX512-FP16 (LLVM then widens
# every operation on its own and scalarises compares and selects: a max-pool several times
# slower than float32), while F16C converts 8 or 16 lanes in one instruction. For float16 only
# the primitives that are one correctly rounded operation (or a selection) widen: computed
# in float32 and rounded once they give exactly NumPy's (PyNative's, MindSpore's) float16
# result; a primitive made of several operations (a sigmoid's gradient) keeps LLVM's
# rounding after each, as PyNative's float16 arithmetic does, so the modes stay equal
# (a cancellation after a sigmoid moved a result by 4 float16 steps when rounded once)
_MOVES = (_shape.Reshape, _shape.Transpose, _shape.BroadcastTo, _shape.ExpandDims, _shape.Squeeze,
          _shape.Concat, _SplitRows, _shape.Slice, _shape.Pad, _shape.StopGradient, _shape.Load, _ew.Cast,
          _shape.ZerosLike, _shape.OnesLike, _index.Gather)


_ONE_ROUNDING = frozenset({
    "Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Neg", "Abs", "Sqrt", "Square",
    "ReLU", "ReluGrad", "Select", "BiasAdd", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
    "GreaterEqual", "MaxPool", "MaxPoolGrad",
    # one function of one float16 value: NumPy's float16 loops (PyNative's) evaluate it in
    # float32 and round once, as MindSpore 2.10's CPU kernels do (Exp, Tanh: equal but for
    # the last float32 bit of their own libm); LLVM would instead scalarise the float16 call
    # (Exp) or run TOPI's tanh formula in float16, rounding after every step
    "Exp", "Log", "Tanh", "Sin", "Cos"})


def _widened(dtype: np.dtype, prim: Primitive) -> bool:
    if dtype == BFLOAT16_NP:
        return True
    return dtype == np.float16 and type(prim).__name__ in _ONE_ROUNDING and on_cpu()


def lower_node(bb: relax.BlockBuilder, node: Any, args: Sequence[relax.Expr],
               spec: Callable[[Any], Spec] | None = None) -> Any:
    """Lower one IR node whose inputs are the Relax values ``args`` (``spec``: as for
    :func:`node_context`)."""
    ctx = node_context(bb, node, spec)
    # nothing to compute (TVM's topk reads k=0 as all); a symbolic dimension is never 0
    if all(any(isinstance(d, int) and d == 0 for d in s.shape) for s in ctx.out_specs):
        empty = tuple(relax.op.zeros(list(s.shape), "bool" if s.dtype == np.bool_ else s.dtype.name)
                      for s in ctx.out_specs)
        return empty if len(empty) != 1 else empty[0]
    lower = lowering_for(node.prim)
    if type(node.prim) not in _MOVES and any(_widened(s.dtype, node.prim) for s in ctx.in_specs) \
            and not getattr(lower, "native_low_float", False):
        lower = float32_compute(lower)
    return lower(ctx, *args)


__all__ = ["LOWERINGS", "LowerContext", "Lowering", "lower_node", "lowering_for",
           "node_context", "spec_of"]
