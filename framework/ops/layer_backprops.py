"""MindSpore's backward primitives of the layers (``G.SoftmaxGrad``, ``G.Conv2DBackpropFilter``)
and the second-order ones of the normalizations (``G.LayerNormGradGrad``,
``G.BatchNormGradGrad``), composed of our primitives (both modes, differentiable).

- ``SoftmaxGrad()(y, dy)``: softmax's VJP over the last axis from its output ``y``:
  ``y * (dy - sum(dy * y, -1))``.
- ``Conv2DBackpropFilter(out_channel, kernel_size, pad_mode, pad, pad_list, mode, stride,
  dilation, group, data_format)(dout, x, filter_shape)``: ``Conv2D``'s weight gradient, our
  filter-gradient primitive under MindSpore's constructor and argument order. As MindSpore's
  kernel, ``pad_mode='pad'`` pads by ``pad_list`` (top, bottom, left, right), not ``pad``.
- ``LayerNormGradGrad(begin_norm_axis, begin_params_axis)(x, dy, variance, mean, gamma, d_dx,
  d_dg, d_db)`` -> ``(d_x, d_dy, d_gamma)``: the VJP of ``LayerNormGrad``'s ``(dx, dgamma,
  dbeta)`` for the cotangents ``(d_dx, d_dg, d_db)``, with ``mean``/``variance`` the
  statistics of ``x`` (so ``d_x`` carries their dependence on ``x``: the true second
  derivative). Our ``LayerNormGrad``'s bprop gives the VJP with the statistics held; the chain
  rule through ``mean = avg(x)`` and ``variance = avg((x - mean)^2)`` adds
  ``d_mean / n + d_variance * 2 (x - mean) / n``.
- ``BatchNormGradGrad(is_training, epsilon, data_format)(x, dy, scale, saved_mean,
  saved_variance, dout_dx, dout_dscale, dout_dbias)`` -> ``(d_x, d_dy, d_scale)``: the same
  for ``BatchNormGrad``. Training, a channel is a layer-norm row (x as (C, N*H*W), ``scale``
  broadcast over the row), so it is ``LayerNormGradGrad``'s rule; in inference the
  statistics are constants and ``dx = dy scale / sqrt(variance + epsilon)`` is linear in ``dy``.
"""

from __future__ import annotations

from typing import Any

from .conv import Conv2DBackpropFilter as _FilterGradient
from .conv import _mindspore_args, pair
from .elementwise import add, div, mul, sqrt, sub
from .group_conv import GroupConv2DBackpropFilter as _GroupFilterGradient
from .layer_norm import LayerNormGrad
from .reduce import reduce_sum
from .shape_ops import broadcast_to, reshape, transpose


class SoftmaxGrad:
    """``SoftmaxGrad()(y, dy)``: see the module docstring."""

    def __call__(self, y: Any, dy: Any) -> Any:
        return mul(y, sub(dy, reduce_sum(mul(dy, y), (-1,), True)))


class Conv2DBackpropFilter:
    """``Conv2DBackpropFilter(out_channel, kernel_size, ...)(dout, x, filter_shape)``: see the
    module docstring."""

    def __init__(self, out_channel: int, kernel_size: Any, pad_mode: str = "valid", pad: Any = 0,
                 pad_list: Any = (0, 0, 0, 0), mode: int = 1, stride: Any = (1, 1),
                 dilation: Any = (1, 1, 1, 1), group: int = 1, data_format: str = "NCHW") -> None:
        self.declared = _mindspore_args(out_channel, kernel_size, mode, data_format)
        mode_name = str(pad_mode).lower()
        if mode_name not in ("valid", "same", "pad"):
            raise ValueError("Conv2DBackpropFilter: pad_mode must be 'valid', 'same' or 'pad', "
                             f"got {pad_mode!r}")
        if isinstance(group, bool) or not isinstance(group, int) or group < 1:
            raise ValueError(f"Conv2DBackpropFilter: group must be a positive int, got {group!r}")
        self.out_channel, self.kernel_size, self.mode, self.group = out_channel, kernel_size, mode, group
        self.pad, self.pad_list = pad, pad_list
        self.attrs = {"stride": pair(stride, "stride"), "dilation": pair(dilation, "dilation"),
                      "pad_mode": mode_name, "pad": tuple(pad_list) if mode_name == "pad" else 0}

    def __call__(self, dout: Any, x: Any, filter_shape: Any) -> Any:
        size = filter_shape.asnumpy() if hasattr(filter_shape, "asnumpy") else filter_shape
        shape = tuple(int(d) for d in size)
        if len(shape) != 4:
            raise ValueError("Conv2DBackpropFilter: filter_shape must be 4 ints (O, C/group, kh, kw), "
                             f"got {shape}")
        if self.group == 1:
            prim = _FilterGradient(filter_shape=shape, **self.attrs)
        else:
            prim = _GroupFilterGradient(filter_shape=shape, group=self.group, **self.attrs)
        prim.declared = self.declared  # out_channel and kernel_size against filter_shape
        return prim(x, dout)


def _statistics_chain(x: Any, mean: Any, d_x: Any, d_mean: Any, d_var: Any, count: int) -> Any:
    """``d_x`` plus what flows through ``mean``/``variance`` as the statistics of ``x`` (over
    ``count`` entries each)."""
    through_var = mul(mul(sub(x, mean), d_var), 2.0 / count)
    return add(add(d_x, div(d_mean, float(count))), through_var)


def _layer_norm_grad_grad(x: Any, dy: Any, variance: Any, mean: Any, gamma: Any, cotangents: tuple,
                          begin_norm_axis: int, begin_params_axis: int,
                          epsilon: float) -> tuple[Any, Any, Any]:
    prim = LayerNormGrad(begin_norm_axis, begin_params_axis, epsilon)
    for name, t in (("dy", dy), ("d_dx", cotangents[0])):
        if tuple(t.shape) != tuple(x.shape):
            raise ValueError(f"LayerNormGradGrad: {name} must have x's shape {tuple(x.shape)}, "
                             f"got {tuple(t.shape)}")
    d_x, d_dy, d_var, d_mean, d_gamma = prim.bprop(
        x, dy, variance, mean, gamma, out=None, dout=cotangents, needs=(True,) * 5)
    norm_axis, _ = prim.axes(len(x.shape))
    count = 1
    for a in range(norm_axis, len(x.shape)):
        count *= int(x.shape[a])
    return _statistics_chain(x, mean, d_x, d_mean, d_var, count), d_dy, d_gamma


class LayerNormGradGrad:
    """``LayerNormGradGrad(begin_norm_axis=1, begin_params_axis=1)(x, dy, variance, mean, gamma,
    d_dx, d_dg, d_db)`` -> ``(d_x, d_dy, d_gamma)``: see the module docstring. MindSpore's
    primitive has no ``epsilon`` and its kernel adds none to ``variance`` (measured: rows of
    variance 1e-9 agree to float32 rounding with 0, not with 1e-13), so neither do we."""

    epsilon = 0.0

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1) -> None:
        self.begin_norm_axis, self.begin_params_axis = int(begin_norm_axis), int(begin_params_axis)

    def __call__(self, x: Any, dy: Any, variance: Any, mean: Any, gamma: Any, d_dx: Any, d_dg: Any,
                 d_db: Any) -> tuple[Any, Any, Any]:
        return _layer_norm_grad_grad(x, dy, variance, mean, gamma, (d_dx, d_dg, d_db),
                                     self.begin_norm_axis, self.begin_params_axis, self.epsilon)


class BatchNormGradGrad:
    """``BatchNormGradGrad(is_training=False, epsilon=1e-5, data_format='NCHW')(x, dy, scale,
    saved_mean, saved_variance, dout_dx, dout_dscale, dout_dbias)`` -> ``(d_x, d_dy,
    d_scale)``: see the module docstring."""

    def __init__(self, is_training: bool = False, epsilon: float = 1e-5, data_format: str = "NCHW") -> None:
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"BatchNormGradGrad: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.is_training, self.epsilon, self.data_format = bool(is_training), float(epsilon), data_format

    def __call__(self, x: Any, dy: Any, scale: Any, saved_mean: Any, saved_variance: Any, dout_dx: Any,
                 dout_dscale: Any, dout_dbias: Any) -> tuple[Any, Any, Any]:
        if self.data_format != "NCHW":  # as BatchNormGrad: MindSpore's CPU kernel has NCHW only
            raise ValueError("BatchNormGradGrad: data_format 'NHWC' is not supported on CPU; use 'NCHW'")
        rank = len(x.shape)
        if rank < 2 or tuple(dy.shape) != tuple(x.shape) or tuple(dout_dx.shape) != tuple(x.shape):
            raise ValueError(f"BatchNormGradGrad: x, dy and dout_dx must be one (N, C, ...) shape, got "
                             f"{tuple(x.shape)}, {tuple(dy.shape)}, {tuple(dout_dx.shape)}")
        channels = int(x.shape[1])
        for name, t in (("scale", scale), ("saved_mean", saved_mean), ("saved_variance", saved_variance),
                        ("dout_dscale", dout_dscale), ("dout_dbias", dout_dbias)):
            if tuple(t.shape) != (channels,):
                raise ValueError(f"BatchNormGradGrad: {name} must have shape ({channels},), "
                                 f"got {tuple(t.shape)}")
        if self.is_training:
            return self._training(x, dy, scale, saved_mean, saved_variance, dout_dx, dout_dscale, dout_dbias)
        per_channel = (1, channels) + (1,) * (rank - 2)
        others = tuple(a for a in range(rank) if a != 1)
        inv_std = div(1.0, sqrt(add(reshape(saved_variance, per_channel), self.epsilon)))
        xhat = mul(sub(x, reshape(saved_mean, per_channel)), inv_std)
        # dx = dy scale inv_std, dscale = sum(dy xhat), dbias = sum(dy): mean/variance constants
        d_dy = add(add(mul(dout_dx, mul(reshape(scale, per_channel), inv_std)),
                       mul(reshape(dout_dscale, per_channel), xhat)), reshape(dout_dbias, per_channel))
        d_x = mul(mul(dy, reshape(dout_dscale, per_channel)), inv_std)
        d_scale = reduce_sum(mul(mul(dout_dx, dy), inv_std), others)
        return d_x, d_dy, d_scale

    def _training(self, x: Any, dy: Any, scale: Any, mean: Any, variance: Any, dout_dx: Any,
                  dout_dscale: Any, dout_dbias: Any) -> tuple[Any, Any, Any]:
        rank = len(x.shape)
        perm = (1, 0) + tuple(range(2, rank))  # channels first: each a layer-norm row
        back = tuple(int(i) for i in perm)  # the swap is its own inverse
        rows = tuple(x.shape[a] for a in perm)
        stat = (rows[0],) + (1,) * (rank - 1)
        full = broadcast_to(reshape(scale, stat), rows)
        u = transpose(dout_dx, perm)
        v = broadcast_to(reshape(dout_dscale, stat), rows)
        w = broadcast_to(reshape(dout_dbias, stat), rows)
        d_x, d_dy, d_gamma = _layer_norm_grad_grad(
            transpose(x, perm), transpose(dy, perm), reshape(variance, stat), reshape(mean, stat),
            full, (u, v, w), 1, 0, self.epsilon)
        d_scale = reduce_sum(d_gamma, tuple(range(1, rank)))
        return transpose(d_x, back), transpose(d_dy, back), d_scale


__all__ = ["BatchNormGradGrad", "Conv2DBackpropFilter", "LayerNormGradGrad", "SoftmaxGrad"]
