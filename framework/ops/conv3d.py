"""3-d convolutions (NCDHW) as sums over the kernel's depth of 2-d ones: depth tap ``i``
convolves the depth slices it meets (batched with the samples) with the weight's slice
``i``. Compositions of the 2-d primitives, so gradients and graph-mode kernels are theirs
(``nn.Conv3d``/``nn.Conv3dTranspose`` and ``P.Conv3D``/``P.Conv3DTranspose`` use them)."""

from __future__ import annotations

from typing import Any

from . import array_ops as _array_ops
from . import creation as _creation
from . import shape_ops as _shape
from .conv import Conv2D, Conv2DBackpropInput
from .conv_geometry import conv_out
from .group_conv import GroupConv2D, GroupConv2DBackpropInput


def _to_slices(x: Any) -> Any:
    """(N, C, D, H, W) -> (N * D, C, H, W)."""
    n, c, d, h, w = x.shape
    return _shape.reshape(_shape.transpose(x, (0, 2, 1, 3, 4)), (n * d, c, h, w))


def _from_slices(y: Any, n: int) -> Any:
    """(N * D, C, H, W) -> (N, C, D, H, W)."""
    nd, c, h, w = y.shape
    return _shape.transpose(_shape.reshape(y, (n, nd // n, c, h, w)), (0, 2, 1, 3, 4))


def conv3d(x: Any, weight: Any, stride, dilation, pads, group: int) -> Any:
    """Cross-correlation of (N, C, D, H, W) with (O, C / group, kd, kh, kw); ``pads``: the
    (before, after) padding of D, H and W."""
    n, _, depth = x.shape[:3]
    kd = weight.shape[2]
    out_d = conv_out(depth, kd, stride[0], dilation[0], *pads[0])
    if out_d < 1:
        raise ValueError(f"Conv3d: kernel depth {kd} does not fit input {tuple(x.shape)}")
    if any(pads[0]):
        x = _shape.pad(x, ((0, 0), (0, 0), pads[0], (0, 0), (0, 0)))
    attrs = {"stride": stride[1:], "dilation": dilation[1:], "pad_mode": "pad",
             "pad": (*pads[1], *pads[2])}
    conv = Conv2D(**attrs) if group == 1 else GroupConv2D(group=group, **attrs)
    out = None
    for i in range(kd):
        start = i * dilation[0]
        taps = x[:, :, start:start + stride[0] * (out_d - 1) + 1:stride[0]]
        y = conv(_to_slices(taps), weight[:, :, i])
        out = y if out is None else out + y
    return _from_slices(out, n)


def conv3d_transpose(x: Any, weight: Any, stride, dilation, group: int) -> Any:
    """The adjoint of a 'valid' :func:`conv3d`: (N, Cin, D, H, W) with (Cin, Cout / group,
    kd, kh, kw) -> (N, Cout, (D - 1) * sd + (kd - 1) * dd + 1, ...)."""
    n, _, depth, h, w = x.shape
    cout = weight.shape[1] * group
    kd, kh, kw = weight.shape[2:]
    full = [(size - 1) * s + (k - 1) * d + 1
            for size, k, s, d in zip((depth, h, w), (kd, kh, kw), stride, dilation)]
    attrs = {"stride": stride[1:], "dilation": dilation[1:], "pad_mode": "valid",
             "input_shape": (n * depth, cout, full[1], full[2])}
    adjoint = (Conv2DBackpropInput(**attrs) if group == 1
               else GroupConv2DBackpropInput(group=group, **attrs))
    slices = _to_slices(x)
    out = None
    for i in range(kd):
        y = _shape.reshape(adjoint(slices, weight[:, :, i]), (n, depth, cout, full[1], full[2]))
        if stride[0] > 1:  # depth d lands at d * stride: zeros between
            zeros = _creation.zeros_like(y)
            y = _array_ops.stack([y] + [zeros] * (stride[0] - 1), 2)
            y = _shape.reshape(y, (n, depth * stride[0], cout, full[1], full[2]))
            y = y[:, :(depth - 1) * stride[0] + 1]
        start = i * dilation[0]
        y = _shape.pad(y, ((0, 0), (start, full[0] - start - y.shape[1]), (0, 0), (0, 0), (0, 0)))
        out = y if out is None else out + y
    return _shape.transpose(out, (0, 2, 1, 3, 4))


def crop(x: Any, first_axis: int, spans) -> Any:
    """``x`` cut to ``(start, length)`` per axis from ``first_axis`` on, zeros past its end."""
    extra = [max(start + length - x.shape[first_axis + i], 0) for i, (start, length) in enumerate(spans)]
    if any(extra):
        x = _shape.pad(x, tuple((0, 0) for _ in range(first_axis)) + tuple((0, e) for e in extra))
    index = (slice(None),) * first_axis + tuple(slice(s, s + n) for s, n in spans)
    return x[index]
