"""Layer normalization: ``LayerNorm(begin_norm_axis, begin_params_axis, epsilon)`` and its
gradient ``LayerNormGrad`` (one primitive, so that graph mode computes it in two kernels: the
input gradient row by row, the parameters' gradients as column sums)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from ._utils import float32_accumulation, float_dtype, normalize_axis
from .creation import ones, zeros
from .elementwise import add, div, mul, neg, sqrt, sub
from .reduce import reduce_sum
from .shape_ops import ones_like, zeros_like


class LayerNorm(Primitive):
    """``LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta)``.

    Normalizes over the axes ``begin_norm_axis..rank-1``; ``gamma``/``beta`` have the shape
    ``x.shape[begin_params_axis:]`` and broadcast against ``x``'s trailing axes. Returns
    ``(y, mean, variance)`` (biased variance), the statistics with ``x``'s rank: the axes
    before ``begin_norm_axis`` kept, the normalized ones 1 (MindSpore's keep-dims shapes).
    """

    num_outputs = 3
    none_douts = True  # the statistics' cotangents are mostly unused: skip their terms

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1,
                 epsilon: float = 1e-7) -> None:
        super().__init__(begin_norm_axis=int(begin_norm_axis),
                         begin_params_axis=int(begin_params_axis), epsilon=float(epsilon))

    def axes(self, ndim: int) -> tuple[int, int]:
        return normalize_axis(self.begin_norm_axis, ndim), normalize_axis(self.begin_params_axis, ndim)

    def infer(self, x: Any, gamma: Any, beta: Any) -> tuple[Spec, Spec, Spec]:
        ndim = len(x.shape)
        if ndim < 1:
            raise ValueError("input must have at least one axis")
        norm_axis, params_axis = self.axes(ndim)
        want = tuple(x.shape[params_axis:])
        for name, p in (("gamma", gamma), ("beta", beta)):
            if tuple(p.shape) != want:
                raise ValueError(f"{name} has shape {shape_str(tuple(p.shape))}, expected "
                                 f"{shape_str(want)} (input {shape_str(tuple(x.shape))}"
                                 f"[{params_axis}:])")
        dtype = float_dtype(x.dtype)
        stat = Spec(tuple(x.shape[:norm_axis]) + (1,) * (ndim - norm_axis), dtype)
        return Spec(tuple(x.shape), dtype), stat, stat

    @float32_accumulation
    def kernel(self, x, gamma, beta):
        norm_axis, _ = self.axes(x.ndim)
        axes = tuple(range(norm_axis, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        variance = x.var(axis=axes, keepdims=True)
        y = (x - mean) * (1.0 / np.sqrt(variance + self.epsilon)) * gamma + beta
        dtype = float_dtype(x.dtype)
        return y.astype(dtype, copy=False), mean.astype(dtype, copy=False), variance.astype(dtype, copy=False)

    def bprop(self, x, gamma, beta, *, out, dout, needs):
        ndim = len(x.shape)
        norm_axis, _ = self.axes(ndim)
        count = float(np.prod([x.shape[a] for a in range(norm_axis, ndim)]))
        dy, dmean, dvar = dout  # dmean, dvar: None when nothing uses those outputs
        mu, var = out[1], out[2]
        if dy is None:  # only the statistics are used
            dy = zeros_like(x)
        grad = LayerNormGrad(self.begin_norm_axis, self.begin_params_axis, self.epsilon)
        dx, dgamma, dbeta = grad(x, dy, var, mu, gamma)
        if needs[0] and dmean is not None:
            dx = add(dx, mul(dmean, 1.0 / count))
        if needs[0] and dvar is not None:
            dx = add(dx, mul(mul(dvar, 2.0 / count), sub(x, mu)))
        return (dx if needs[0] else None, dgamma if needs[1] else None,
                dbeta if needs[2] else None)


class LayerNormGrad(Primitive):
    """``LayerNormGrad(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, dy, variance,
    mean, gamma) -> (dx, dgamma, dbeta)``: :class:`LayerNorm`'s gradient for the cotangent
    ``dy`` of its output ``y`` (MindSpore's input order; ``epsilon`` as the forward's).

    With ``rstd = 1/sqrt(variance + epsilon)``, ``xhat = (x - mean) rstd``, ``g = dy gamma``
    and means over the normalized axes: ``dx = rstd (g - mean(g) - xhat mean(g xhat))``;
    ``dgamma = sum(dy xhat)``, ``dbeta = sum(dy)`` over the axes before
    ``begin_params_axis``. ``mean``/``variance`` have :class:`LayerNorm`'s statistics' shape.
    """

    num_outputs = 3
    none_douts = True

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1,
                 epsilon: float = 1e-7) -> None:
        super().__init__(begin_norm_axis=int(begin_norm_axis),
                         begin_params_axis=int(begin_params_axis), epsilon=float(epsilon))

    axes = LayerNorm.axes

    def infer(self, x: Any, dy: Any, variance: Any, mean: Any, gamma: Any) -> tuple[Spec, Spec, Spec]:
        ndim = len(x.shape)
        if ndim < 1:
            raise ValueError("x must have at least one axis")
        norm_axis, params_axis = self.axes(ndim)
        stat = tuple(x.shape[:norm_axis]) + (1,) * (ndim - norm_axis)
        want = {"dy": tuple(x.shape), "variance": stat, "mean": stat,
                "gamma": tuple(x.shape[params_axis:])}
        for name, t in (("dy", dy), ("variance", variance), ("mean", mean), ("gamma", gamma)):
            if tuple(t.shape) != want[name]:
                raise ValueError(f"{name} has shape {shape_str(tuple(t.shape))}, expected "
                                 f"{shape_str(want[name])} (x {shape_str(tuple(x.shape))})")
        dtype = float_dtype(x.dtype)
        params = Spec(want["gamma"], dtype)
        return Spec(tuple(x.shape), dtype), params, params

    @float32_accumulation
    def kernel(self, x, dy, variance, mean, gamma):
        norm_axis, params_axis = self.axes(x.ndim)
        axes, lead = tuple(range(norm_axis, x.ndim)), tuple(range(params_axis))
        rstd = 1.0 / np.sqrt(variance + self.epsilon)
        xhat = (x - mean) * rstd
        g = dy * gamma
        dx = rstd * (g - g.mean(axis=axes, keepdims=True)
                     - xhat * (g * xhat).mean(axis=axes, keepdims=True))
        dtype = float_dtype(x.dtype)
        return (dx.astype(dtype, copy=False), (dy * xhat).sum(axis=lead).astype(dtype, copy=False),
                dy.sum(axis=lead).astype(dtype, copy=False))

    def bprop(self, x, dy, variance, mean, gamma, *, out, dout, needs):
        """Second order: the vector-Jacobian product of (dx, dgamma, dbeta) for cotangents
        ``(u, v, w)``, every input independent (``mean``/``variance`` too)."""
        ndim = len(x.shape)
        norm_axis, params_axis = self.axes(ndim)
        axes, lead = tuple(range(norm_axis, ndim)), tuple(range(params_axis))
        inv_n = 1.0 / float(np.prod([x.shape[a] for a in axes]))
        u, v, w = dout

        def row_sum(t):
            return reduce_sum(t, axes, True)

        def lead_sum(t):
            return reduce_sum(t, lead, False) if lead else t

        rstd = div(1.0, sqrt(add(variance, self.epsilon)))
        centered = sub(x, mean)
        xhat = mul(centered, rstd)
        d_dy = d_xhat = d_gamma = d_rstd = None
        if u is not None:
            g = mul(dy, gamma)
            g_mean = mul(row_sum(g), inv_n)
            gx_mean = mul(row_sum(mul(g, xhat)), inv_n)
            ur = mul(u, rstd)
            u1, u2 = mul(row_sum(ur), inv_n), mul(row_sum(mul(ur, xhat)), inv_n)
            d_g = sub(sub(ur, u1), mul(xhat, u2))  # d/dg, xhat and rstd held
            d_dy = mul(d_g, gamma)
            d_gamma = lead_sum(mul(d_g, dy))
            d_xhat = neg(add(mul(u2, g), mul(gx_mean, ur)))
            d_rstd = row_sum(mul(u, sub(sub(g, g_mean), mul(xhat, gx_mean))))
        if v is not None:
            d_dy = _plus(d_dy, mul(v, xhat))
            d_xhat = _plus(d_xhat, mul(v, dy))
        if w is not None:
            d_dy = _plus(d_dy, mul(w, ones_like(dy)) if len(w.shape) < ndim else w)
        d_x = d_mean = d_var = None
        if d_xhat is not None:
            d_x = mul(d_xhat, rstd)
            d_mean = neg(row_sum(d_x))
            d_rstd = _plus(d_rstd, row_sum(mul(d_xhat, centered)))
        if d_rstd is not None:  # d rstd / d variance = -rstd^3 / 2
            d_var = mul(d_rstd, mul(mul(rstd, mul(rstd, rstd)), -0.5))
        return d_x, d_dy, d_var, d_mean, d_gamma


def _plus(a, b):
    return b if a is None else add(a, b)


def layer_norm(input_x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
    """``(y, mean, variance)`` of :class:`LayerNorm` (functional form)."""
    return LayerNorm(begin_norm_axis, begin_params_axis, epsilon)(input_x, gamma, beta)


def layer_norm_grad(x, dy, variance, mean, gamma, begin_norm_axis=1, begin_params_axis=1,
                    epsilon=1e-7):
    """``(dx, dgamma, dbeta)`` of :class:`LayerNormGrad` (functional form)."""
    return LayerNormGrad(begin_norm_axis, begin_params_axis, epsilon)(x, dy, variance, mean, gamma)


def layer_norm_over(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """MindSpore 2.x's ``ops.layer_norm(input, normalized_shape, weight=None, bias=None,
    eps=1e-05)``: normalized over the last ``len(normalized_shape)`` axes (which must be
    ``normalized_shape``), then scaled by ``weight`` and shifted by ``bias`` (ones and zeros
    when None); the output only."""
    shape = (int(normalized_shape),) if np.ndim(normalized_shape) == 0 else \
        tuple(int(n) for n in normalized_shape)
    axis = len(input.shape) - len(shape)
    if axis < 0 or tuple(input.shape[axis:]) != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must be the last axes of input "
                         f"{shape_str(tuple(input.shape))}")
    norm = LayerNorm(axis, axis, float(eps))
    if weight is None or bias is None:
        weight = ones(shape, input.dtype) if weight is None else weight
        bias = zeros(shape, input.dtype) if bias is None else bias
    return norm(input, weight, bias)[0]
