"""MindSpore's 3-d max-pooling backward primitives of ``ops.operations._grad_ops`` (``G``),
on :mod:`.pool_backprops`' window positions (NCDHW only, as MindSpore's CPU kernels):

- ``MaxPool3DGrad(kernel_size=(1, 1, 1, 1, 1), strides=(1, 1, 1, 1, 1), pad_mode='VALID',
  pad_list=0, data_format='NCDHW')(x, out, grad)``: ``MaxPool3D``'s input gradient, each
  window's to its first maximum; ``pad_mode`` 'VALID', 'SAME' or 'PAD' (``pad_list``: an int
  or six ints, (front, back, top, bottom, left, right));
- ``MaxPool3DGradGrad(kernel_size, strides, pad_mode='VALID', data_format='NCDHW')(x, out,
  grad)``: ``grad`` (x-shaped) read at each window's first maximum of ``x``, pooled-shaped;
- ``MaxPool3DGradWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
  data_format='NCDHW')(x, grads, argmax)``: ``grads`` added at ``argmax`` (flat ``d * H * W +
  h * W + w`` in each plane, as ``MaxPool3DWithArgmax`` gives it), x-shaped;
- ``MaxUnpool3DGrad(ksize, strides=0, pads=0, output_shape=(), data_format='NCDHW')(x,
  grads, argmax)``: ``MaxUnpool3D``'s gradient, ``grads`` read at ``argmax``, x-shaped.
"""

from __future__ import annotations

from typing import Any

from .pool_backprops import (
    _Unpool,
    add_into_planes,
    first_max_positions,
    pad_mode_of,
    read_planes,
    window_geometry,
    window_positions,
    window_sizes,
)


def _format(op: str, data_format: str) -> str:
    if data_format != "NCDHW":
        raise ValueError(f"{op}: data_format must be 'NCDHW', got {data_format!r}")
    return data_format


class _Window3D:
    def __init__(self, kernel_size: Any, strides: Any, pad_mode: str, pad_list: Any,
                 data_format: str) -> None:
        op = type(self).__name__
        self.data_format = _format(op, data_format)
        self.kernel_size = window_sizes(op, "kernel_size", kernel_size, 3)
        self.strides = window_sizes(op, "strides", strides, 3)
        self.pad_mode = pad_mode_of(op, pad_mode, ("VALID", "SAME", "PAD"))
        flat = (pad_list,) * 6 if isinstance(pad_list, int) else tuple(int(p) for p in pad_list)
        if len(flat) == 3:
            flat = tuple(p for p in flat for _ in range(2))
        if len(flat) != 6 or min(flat) < 0:
            raise ValueError(f"{op}: pad_list must be a non-negative int or 6 ints, got {pad_list!r}")
        self.pad_list = flat

    def _windows(self, x: Any, others: tuple[tuple[str, Any, str], ...]) -> tuple[Any, tuple[int, ...]]:
        op = type(self).__name__
        if len(x.shape) != 5:
            raise ValueError(f"{op}: x must be 5-d (NCDHW), got shape {tuple(x.shape)}")
        spatial = tuple(x.shape[2:])
        pairs = tuple(zip(self.pad_list[0::2], self.pad_list[1::2]))
        outs, before = window_geometry(op, spatial, self.kernel_size, self.strides, self.pad_mode, pairs)
        pooled = tuple(x.shape[:2]) + outs
        for name, value, which in others:
            shape = pooled if which == "pooled" else tuple(x.shape)
            if tuple(value.shape) != shape:
                raise ValueError(f"{op}: {name} must have shape {shape} for x of shape "
                                 f"{tuple(x.shape)}, got {tuple(value.shape)}")
        positions = window_positions(spatial, self.kernel_size, self.strides, outs, before)
        return first_max_positions(x, positions), pooled


class MaxPool3DGrad(_Window3D):
    """``(x, out, grad) -> dx``: each window's gradient to its first maximum."""

    def __init__(self, kernel_size: Any = (1, 1, 1, 1, 1), strides: Any = (1, 1, 1, 1, 1),
                 pad_mode: str = "VALID", pad_list: Any = 0, data_format: str = "NCDHW") -> None:
        super().__init__(kernel_size, strides, pad_mode, pad_list, data_format)

    def __call__(self, x: Any, out: Any, grad: Any) -> Any:
        best, _ = self._windows(x, (("out", out, "pooled"), ("grad", grad, "pooled")))
        return add_into_planes(grad, best, tuple(x.shape))


class MaxPool3DGradGrad(_Window3D):
    """``(x, out, grad) -> pooled``: ``grad`` at each window's first maximum of ``x``."""

    def __init__(self, kernel_size: Any = (1, 1, 1, 1, 1), strides: Any = (1, 1, 1, 1, 1),
                 pad_mode: str = "VALID", data_format: str = "NCDHW") -> None:
        super().__init__(kernel_size, strides, pad_mode, 0, data_format)

    def __call__(self, x: Any, out: Any, grad: Any) -> Any:
        best, pooled = self._windows(x, (("out", out, "pooled"), ("grad", grad, "x")))
        return read_planes(grad, best, pooled)


class MaxPool3DGradWithArgmax:
    """``(x, grads, argmax) -> dx``: ``grads`` added at ``argmax``; the window attributes are
    the forward's, the positions come from ``argmax``."""

    def __init__(self, ksize: Any, strides: Any, pads: Any, dilation: Any = (1, 1, 1),
                 ceil_mode: bool = False, data_format: str = "NCDHW") -> None:
        self.data_format = _format("MaxPool3DGradWithArgmax", data_format)
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.dilation, self.ceil_mode = dilation, bool(ceil_mode)

    def __call__(self, x: Any, grads: Any, argmax: Any) -> Any:
        shape = tuple(x.shape)
        if len(shape) != 5 or tuple(argmax.shape) != tuple(grads.shape) or \
                tuple(grads.shape[:2]) != shape[:2]:
            raise ValueError(f"MaxPool3DGradWithArgmax: x {shape}, grads {tuple(grads.shape)} and "
                             f"argmax {tuple(argmax.shape)} must be 5-d, argmax grads' shape")
        return add_into_planes(grads, argmax, shape)


class MaxUnpool3DGrad(_Unpool):
    """``(x, grads, argmax) -> dx``: ``grads`` read at ``argmax``."""

    _dims = 3

    def __init__(self, ksize: Any, strides: Any = 0, pads: Any = 0, output_shape: Any = (),
                 data_format: str = "NCDHW") -> None:
        super().__init__(ksize, strides, pads, output_shape, data_format)


__all__ = ["MaxPool3DGrad", "MaxPool3DGradGrad", "MaxPool3DGradWithArgmax", "MaxUnpool3DGrad"]
