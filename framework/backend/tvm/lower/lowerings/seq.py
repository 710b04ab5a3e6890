"""Lowerings of the sequence-model primitives: layer norm and the smooth activations."""

from __future__ import annotations

import math

import numpy as np
import tvm_ffi
from tvm import relax, topi

from .....ops._utils import normalize_axis
from .....ops.activations import FAST_GELU_K, GELU_CUBIC, SQRT_2_OVER_PI
from .. import layer_norm_kernels as ln
from .base import LowerContext, cast, const, emit

OUT_ELEMWISE_FUSABLE = 4  # TVM's OpPatternKind kOutEWiseFusable: consumers fuse in


def _row_view(ctx: LowerContext):
    """(rows, length, params, statistics' shape) of LayerNorm[Grad]'s row view ``rows +
    (length,)`` (see :mod:`..layer_norm_kernels`)."""
    shape = ctx.in_specs[0].shape
    norm_axis, params_axis = ctx.prim.axes(len(shape))
    rows = tuple(shape[:norm_axis]) or (1,)
    length, params = int(np.prod(shape[norm_axis:])), int(np.prod(shape[params_axis:]))
    return rows, length, params, tuple(shape[:norm_axis]) + (1,) * (len(shape) - norm_axis)


def _same_dim(p, q) -> bool:
    try:
        return int(p) == int(q)
    except TypeError:  # a symbolic extent (framework.ir.symbolic): the same expression?
        try:
            return bool(tvm_ffi.structural_equal(p, q))
        except Exception:  # an int against an expression: not provably the same
            return False


def _view(bb, x, shape):
    """``x`` reshaped (a view); itself when it has that shape already."""
    have = x.ty.shape.values
    if len(have) == len(shape) and all(_same_dim(p, q) for p, q in zip(have, shape)):
        return x
    return bb.emit(relax.op.reshape(x, list(shape)))


def lower_layer_norm(ctx: LowerContext, x, gamma, beta):
    """One row kernel (``layer_norm_rows``) on the row view: the statistics and the output
    in one pass per row; reshapes around it are views."""
    bb, spec = ctx.bb, ctx.out_specs[0]
    rows, length, params, stat = _row_view(ctx)
    x, gamma, beta = (_view(bb, emit(bb, cast(t, s.dtype, spec.dtype)), shape) for t, s, shape in
                      zip((x, gamma, beta), ctx.in_specs, (rows + (length,), (params,), (params,))))
    out = bb.emit(bb.call_te(ln.layer_norm_rows, x, gamma, beta, ctx.prim.epsilon,
                             primfunc_name_hint="layer_norm"))
    y, mean, variance = (bb.emit(relax.TupleGetItem(out, i)) for i in range(3))
    return _view(bb, y, spec.shape), _view(bb, mean, stat), _view(bb, variance, stat)


def lower_layer_norm_grad(ctx: LowerContext, x, dy, variance, mean, gamma):
    """Two kernels: ``dx`` row by row (``layer_norm_input_grad``; marked out-elementwise
    fusable, so that an elementwise consumer, a residual branch's gradient sum, joins its
    kernel), ``dgamma``/``dbeta`` as column sums over the ``(lead, params)`` view
    (``layer_norm_param_grads``); Relax drops either when its outputs are unused."""
    bb, dtype = ctx.bb, ctx.out_specs[0].dtype
    rows, length, params, _ = _row_view(ctx)
    n_rows = rows[0]  # a product of extents, one of which may be symbolic
    for extent in rows[1:]:
        n_rows = n_rows * extent
    lead = n_rows * (length // params) if params <= length else n_rows // (params // length)
    x, dy, variance, mean, gamma = (emit(bb, cast(t, s.dtype, dtype)) for t, s in
                                    zip((x, dy, variance, mean, gamma), ctx.in_specs))
    view = rows + (length,)
    dx = bb.emit(bb.call_te(ln.layer_norm_input_grad, _view(bb, dy, view), _view(bb, x, view),
                            _view(bb, gamma, (params,)), _view(bb, mean, rows),
                            _view(bb, variance, rows), ctx.prim.epsilon,
                            primfunc_name_hint="layer_norm_dx",
                            primfunc_attrs={"op_pattern": OUT_ELEMWISE_FUSABLE}))
    sums = bb.emit(bb.call_te(ln.layer_norm_param_grads, _view(bb, dy, (lead, params)),
                              _view(bb, x, (lead, params)), _view(bb, mean, (n_rows,)),
                              _view(bb, variance, (n_rows,)), ctx.prim.epsilon, length,
                              primfunc_name_hint="layer_norm_dparams"))
    gamma_shape = ctx.out_specs[1].shape
    return (_view(bb, dx, ctx.out_specs[0].shape),
            _view(bb, bb.emit(relax.TupleGetItem(sums, 0)), gamma_shape),
            _view(bb, bb.emit(relax.TupleGetItem(sums, 1)), gamma_shape))


def lower_erf(ctx: LowerContext, x):
    return relax.op.erf(x)


def lower_gelu(ctx: LowerContext, x):
    dtype = ctx.in_specs[0].dtype
    half = const(0.5, dtype)
    if ctx.prim.approximate == "tanh":
        # 0.5 (1 + tanh(u)) as sigmoid(2u), like the kernel
        cubic = relax.op.multiply(relax.op.multiply(x, x), const(GELU_CUBIC, dtype))
        inner = relax.op.multiply(relax.op.multiply(x, relax.op.add(cubic, const(1.0, dtype))),
                                  const(2.0 * SQRT_2_OVER_PI, dtype))
        return relax.op.multiply(x, relax.op.sigmoid(inner))
    else:
        cdf = relax.op.erf(relax.op.multiply(x, const(1.0 / math.sqrt(2.0), dtype)))
    return relax.op.multiply(relax.op.multiply(x, half), relax.op.add(cdf, const(1.0, dtype)))


def lower_fast_gelu(ctx: LowerContext, x):
    # x * sigmoid(1.702 x): the documented formula's value, without its overflow-safe detour
    return relax.op.multiply(x, relax.op.sigmoid(
        relax.op.multiply(x, const(FAST_GELU_K, ctx.in_specs[0].dtype))))


def lower_silu(ctx: LowerContext, x):
    return relax.op.multiply(x, relax.op.sigmoid(x))


def lower_softplus(ctx: LowerContext, x):
    """``max(x, 0) + log(1 + exp(-|x|))``: no overflow for large |x|."""
    dtype = ctx.in_specs[0].dtype
    tail = relax.op.log(relax.op.add(const(1.0, dtype), relax.op.exp(relax.op.negative(relax.op.abs(x)))))
    return relax.op.add(relax.op.maximum(x, const(0.0, dtype)), tail)


def lower_cumsum(ctx: LowerContext, x):
    """TOPI's scan (``relax.op.cumsum`` is not legalized for the CPU VM); its ``exclusive``
    shifts like ours, ``reverse`` flips around it."""
    prim, spec = ctx.prim, ctx.in_specs[0]
    axis = normalize_axis(prim.axis, len(spec.shape))
    if prim.reverse:
        x = ctx.bb.emit(relax.op.flip(x, axis))
    out = ctx.bb.call_te(topi.cumsum, x, axis, spec.dtype.name, prim.exclusive)
    return relax.op.flip(ctx.bb.emit(out), axis) if prim.reverse else out
