"""Lowerings of the sequence-model primitives: layer norm and the smooth activations."""

from __future__ import annotations

import math

import numpy as np
from tvm import relax, topi

from ....ops._utils import normalize_axis
from ....ops.activations import FAST_GELU_K, GELU_CUBIC, SQRT_2_OVER_PI
from .base import LowerContext, const


def lower_layer_norm(ctx: LowerContext, x, gamma, beta):
    """One pass for the statistics, one for the output, as BatchNorm's: sums then a scale
    (TOPI's mean does not take its producers into its kernel), ``x - mean`` written at each
    consumer so that it fuses into it and is never materialized."""
    prim, bb, spec = ctx.prim, ctx.bb, ctx.in_specs[0]
    dtype, ndim = spec.dtype, len(spec.shape)
    norm_axis, _ = prim.axes(ndim)
    axes = list(range(norm_axis, ndim))
    count = const(1.0 / float(np.prod([spec.shape[a] for a in axes])), dtype)
    mean = bb.emit(relax.op.multiply(relax.op.sum(x, axes, True), count))
    centered = bb.emit(relax.op.subtract(x, mean))
    variance = bb.emit(relax.op.multiply(
        relax.op.sum(relax.op.multiply(centered, centered), axes, True), count))
    inv = bb.emit(relax.op.divide(const(1.0, dtype), relax.op.sqrt(
        relax.op.add(variance, const(prim.epsilon, dtype)))))
    centered = bb.emit(relax.op.subtract(x, mean))
    y = relax.op.add(relax.op.multiply(relax.op.multiply(centered, inv), gamma), beta)
    return y, mean, variance


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
