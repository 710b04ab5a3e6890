"""Layer normalization: ``LayerNorm(begin_norm_axis, begin_params_axis, epsilon)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from ._utils import float_dtype, normalize_axis
from .elementwise import add, div, mul, sqrt, sub
from .reduce import reduce_sum


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
        norm_axis, params_axis = self.axes(ndim)
        axes = tuple(range(norm_axis, ndim))
        lead = tuple(range(params_axis))
        count = float(np.prod([x.shape[a] for a in axes]))
        dy, dmean, dvar = dout  # dmean, dvar: None when nothing uses those outputs
        mu, var = out[1], out[2]
        inv = div(1.0, sqrt(add(var, self.epsilon)))

        def centered():  # x - mean, written where used: it fuses into each consumer
            return sub(x, mu)

        xhat = mul(centered(), inv)
        dx = dgamma = dbeta = None
        if needs[0]:
            g = mul(dy, gamma)
            # inv * (g - mean(g) - xhat * mean(g * xhat)) over the normalized axes
            g_mean = mul(reduce_sum(g, axes, True), 1.0 / count)
            gx_mean = mul(reduce_sum(mul(g, xhat), axes, True), 1.0 / count)
            dx = mul(inv, sub(sub(g, g_mean), mul(xhat, gx_mean)))
            if dmean is not None:
                dx = add(dx, mul(dmean, 1.0 / count))
            if dvar is not None:
                dx = add(dx, mul(mul(dvar, 2.0 / count), centered()))
        if needs[1]:
            dgamma = mul(dy, xhat)
            dgamma = reduce_sum(dgamma, lead, False) if lead else dgamma
        if needs[2]:
            dbeta = reduce_sum(dy, lead, False) if lead else dy
        return dx, dgamma, dbeta


def layer_norm(input_x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
    """``(y, mean, variance)`` of :class:`LayerNorm` (functional form)."""
    return LayerNorm(begin_norm_axis, begin_params_axis, epsilon)(input_x, gamma, beta)
