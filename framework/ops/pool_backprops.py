"""MindSpore's 2-d pooling backward primitives of ``ops.operations._grad_ops`` (``G``), as
its call orders them, written with gathers and segment sums over window positions computed
on the host from the shapes (so both modes run them and they are differentiable):

- ``AvgPoolGrad(kernel_size=1, strides=1, pad_mode='VALID', data_format='NCHW')(x, out,
  dout)`` and ``AvgPoolGradV1(...)(orig_input_shape, grad)``: ``AvgPool``'s input gradient
  (each window's gradient shared over its real entries), the shape from ``x`` or a constant
  int Tensor;
- ``MaxPoolGradV1(kernel_size=1, strides=1, pad_mode='VALID', data_format='NCHW')(x, out,
  grad)``: ``MaxPool``'s input gradient, each window's to its first maximum;
- ``MaxPoolGradGrad(kernel_size=1, strides=1, pad_mode='VALID')(x, out, grad)``: the
  derivative of ``MaxPoolGrad`` along ``grad`` (x-shaped): ``grad`` read at each window's
  first maximum of ``x``, pooled-shaped;
- ``MaxPoolGradGradWithArgmax(kernel_size=1, strides=1, pad_mode='VALID')(x, grad,
  argmax)``: ``grad`` read at ``argmax``, a flat ``c * H * W + h * W + w`` position in its
  batch entry (as ``MaxPoolWithArgmax`` gives it);
- ``MaxUnpool2DGrad(ksize, strides=0, pads=0, output_shape=(), data_format='NCHW')(x, grads,
  argmax)``: ``MaxUnpool2D``'s gradient, ``grads`` (the unpooled shape) read at ``argmax``
  (flat ``h * W + w`` in each plane), x-shaped;
- ``FractionalMaxPoolGrad(overlapping=False)(orig_input, orig_output, out_backprop,
  row_pooling_sequence, col_pooling_sequence)``: NHWC, :mod:`.fractional_pool`'s gradient;
- ``FractionalMaxPoolGradWithFixedKsize(data_format='NCHW')(origin_input, out_backprop,
  argmax)``: ``out_backprop`` added at ``argmax`` (flat in each plane) in zeros shaped like
  ``origin_input``, with ``out_backprop``'s dtype.

'SAME' padding is MindSpore's: ``ceil(n / s)`` outputs, the padding split with the odd entry
after; padded entries never win a maximum and are not counted in a mean.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from .elementwise import add, cast
from .fractional_pool import SequencePoolGrad
from .grad_transposes import _sizes
from .model_zoo_ops import strided_slice
from .pool import AvgPoolBackprop, MaxPoolGrad
from .scatter_elements import GatherElements
from .segment import unsorted_segment_sum
from .shape_ops import reshape, transpose
from .window_pool import _gathered, _lowest, _max_indices


def window_sizes(op: str, name: str, value: Any, dims: int, channels_last: bool = False
                 ) -> tuple[int, ...]:
    """An int, ``dims`` ints, or ``dims + 2`` ints with the batch and channel axes' 1s."""
    values = (value,) * dims if isinstance(value, int) else tuple(int(v) for v in value)
    if len(values) == dims + 2:
        values = values[1:-1] if channels_last else values[2:]
    if len(values) != dims or min(values) < 1:
        raise ValueError(f"{op}: {name} must be a positive int or {dims} (or {dims + 2}) "
                         f"positive ints, got {value!r}")
    return values


def pad_mode_of(op: str, pad_mode: str, allowed: tuple[str, ...] = ("VALID", "SAME")) -> str:
    mode = str(pad_mode).upper()
    if mode not in allowed:
        raise ValueError(f"{op}: pad_mode must be one of {', '.join(allowed)}, got {pad_mode!r}")
    return mode


def window_geometry(op: str, spatial: tuple[int, ...], kernel: tuple[int, ...],
                    strides: tuple[int, ...], mode: str,
                    pads: tuple[tuple[int, int], ...] | None = None,
                    dilation: tuple[int, ...] | None = None
                    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(outputs, padding before) per axis: 'VALID', 'SAME' or 'PAD' (``pads``: (before,
    after) per axis)."""
    dilation = dilation or (1,) * len(spatial)
    outs, before = [], []
    for a, (n, k, s, d) in enumerate(zip(spatial, kernel, strides, dilation)):
        span = (k - 1) * d + 1
        if mode == "SAME":
            out = math.ceil(n / s)
            before.append(max((out - 1) * s + span - n, 0) // 2)
        elif mode == "PAD":
            out = (n + pads[a][0] + pads[a][1] - span) // s + 1
            before.append(pads[a][0])
        else:
            out = (n - span) // s + 1
            before.append(0)
        if out < 1:
            raise ValueError(f"{op}: kernel {kernel} does not fit the input's spatial shape {spatial}")
        outs.append(out)
    return tuple(outs), tuple(before)


def window_positions(spatial: tuple[int, ...], kernel: tuple[int, ...], strides: tuple[int, ...],
                     outs: tuple[int, ...], before: tuple[int, ...],
                     dilation: tuple[int, ...] | None = None) -> np.ndarray:
    """``(K, L)``: each window's flat positions in its plane, row-major over the kernel and
    the outputs; an entry in the padding is the plane's size (the gathered sentinel)."""
    dims = len(spatial)
    dilation = dilation or (1,) * dims
    flat = np.zeros((1,) * (2 * dims), np.int64)
    valid = np.ones(flat.shape, bool)
    for a in range(dims):
        pos = (np.arange(kernel[a]) * dilation[a])[:, None] + (np.arange(outs[a]) * strides[a]
                                                               - before[a])[None, :]
        shape = [1] * (2 * dims)
        shape[a], shape[dims + a] = kernel[a], outs[a]
        pos = pos.reshape(shape)
        valid = valid & (pos >= 0) & (pos < spatial[a])
        flat = flat * spatial[a] + pos
    return np.where(valid, flat, math.prod(spatial)).reshape(math.prod(kernel), math.prod(outs))


def first_max_positions(x: Any, positions: np.ndarray) -> Any:
    """``(N, C, L)`` int64: where in its plane each window's first maximum of ``x`` is."""
    n, c = x.shape[:2]
    return _max_indices(_gathered(x, positions, _lowest(x)), positions, (n, c, positions.shape[1]))


def read_planes(source: Any, index: Any, shape: tuple[int, ...]) -> Any:
    """``source`` (N, C, *spatial) read at ``index`` (flat in each plane), shaped ``shape``."""
    n, c = source.shape[:2]
    flat = GatherElements(2)(reshape(source, (n, c, -1)), reshape(cast(index, mstype.int64), (n, c, -1)))
    return reshape(flat, shape)


def add_into_planes(values: Any, index: Any, shape: tuple[int, ...]) -> Any:
    """Zeros of ``shape`` (N, C, *spatial) with each of ``values`` added at its ``index``
    (flat in its plane; the plane's size, a padded position, is dropped)."""
    planes, area = shape[0] * shape[1], math.prod(shape[2:])
    offsets = Tensor((np.arange(planes, dtype=np.int64) * (area + 1)).reshape(planes, 1))
    ids = add(reshape(cast(index, mstype.int64), (planes, -1)), offsets)
    summed = unsorted_segment_sum(reshape(values, (-1,)), reshape(ids, (-1,)), planes * (area + 1))
    kept = strided_slice(reshape(summed, (planes, area + 1)), (0, 0), (planes, area), (1, 1))
    return reshape(kept, shape)


class _Window2D:
    """The attributes ``kernel_size``, ``strides``, ``pad_mode`` and ``data_format``."""

    _formats: tuple[str, ...] = ("NCHW", "NHWC")

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID",
                 data_format: str = "NCHW") -> None:
        op = type(self).__name__
        if data_format not in self._formats:
            raise ValueError(f"{op}: data_format must be one of {', '.join(self._formats)}, "
                             f"got {data_format!r}")
        last = data_format == "NHWC"
        self.kernel_size = window_sizes(op, "kernel_size", kernel_size, 2, last)
        self.strides = window_sizes(op, "strides", strides, 2, last)
        self.pad_mode, self.data_format = pad_mode_of(op, pad_mode), data_format

    def _nchw(self, x: Any) -> Any:
        return transpose(x, (0, 3, 1, 2)) if self.data_format == "NHWC" else x

    def _back(self, x: Any) -> Any:
        return transpose(x, (0, 2, 3, 1)) if self.data_format == "NHWC" else x

    def _check(self, x: Any, *others: tuple[str, Any, tuple[int, ...]]) -> None:
        for name, value, shape in others:
            if tuple(value.shape) != shape:
                raise ValueError(f"{type(self).__name__}: {name} must have shape {shape} for x of "
                                 f"shape {tuple(x.shape)}, got {tuple(value.shape)}")

    def _positions(self, spatial: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
        op = type(self).__name__
        outs, before = window_geometry(op, spatial, self.kernel_size, self.strides, self.pad_mode)
        return window_positions(spatial, self.kernel_size, self.strides, outs, before), outs


class AvgPoolGrad(_Window2D):
    """``(x, out, dout) -> dx``: ``AvgPool``'s input gradient (see the module docstring)."""

    def __call__(self, x: Any, out: Any, dout: Any) -> Any:
        return self._from_shape(tuple(x.shape), dout)

    def _from_shape(self, shape: tuple[int, ...], dout: Any) -> Any:
        if len(shape) != 4:
            raise ValueError(f"{type(self).__name__}: the input must be 4-d, got shape {shape}")
        if self.data_format == "NHWC":
            shape = (shape[0], shape[3], shape[1], shape[2])
        grad = AvgPoolBackprop(self.kernel_size, self.strides, self.pad_mode.lower(),
                               input_shape=shape)
        return self._back(grad(self._nchw(dout)))


class AvgPoolGradV1(AvgPoolGrad):
    """``(orig_input_shape, grad) -> dx``: the shape a constant int Tensor or tuple."""

    def __call__(self, orig_input_shape: Any, grad: Any) -> Any:  # type: ignore[override]
        return self._from_shape(_sizes("AvgPoolGradV1", orig_input_shape, 4), grad)


class MaxPoolGradV1(_Window2D):
    """``(x, out, grad) -> dx``: ``MaxPool``'s input gradient."""

    def __call__(self, x: Any, out: Any, grad: Any) -> Any:
        x, out, grad = self._nchw(x), self._nchw(out), self._nchw(grad)
        return self._back(MaxPoolGrad(self.kernel_size, self.strides, self.pad_mode.lower())(x, out, grad))


class MaxPoolGradGrad(_Window2D):
    """``(x, out, grad) -> pooled``: ``grad`` at each window's first maximum of ``x``."""

    _formats = ("NCHW",)

    def __init__(self, kernel_size: Any = 1, strides: Any = 1, pad_mode: str = "VALID") -> None:
        super().__init__(kernel_size, strides, pad_mode)

    def __call__(self, x: Any, out: Any, grad: Any) -> Any:
        if len(x.shape) != 4:
            raise ValueError(f"{type(self).__name__}: x must be 4-d (NCHW), got shape {tuple(x.shape)}")
        positions, outs = self._positions(tuple(x.shape[2:]))
        pooled = tuple(x.shape[:2]) + outs
        self._check(x, ("out", out, pooled), ("grad", grad, tuple(x.shape)))
        return read_planes(grad, first_max_positions(x, positions), pooled)


class MaxPoolGradGradWithArgmax(MaxPoolGradGrad):
    """``(x, grad, argmax) -> pooled``: ``grad`` read at ``argmax`` (flat in its batch entry)."""

    def __call__(self, x: Any, grad: Any, argmax: Any) -> Any:  # type: ignore[override]
        if len(x.shape) != 4:
            raise ValueError(f"MaxPoolGradGradWithArgmax: x must be 4-d (NCHW), got shape {tuple(x.shape)}")
        self._check(x, ("grad", grad, tuple(x.shape)))
        n = x.shape[0]
        picked = GatherElements(1)(reshape(grad, (n, -1)), reshape(cast(argmax, mstype.int64), (n, -1)))
        return reshape(picked, tuple(argmax.shape))


class _Unpool:
    """``MaxUnpool{2,3}DGrad(ksize, strides=0, pads=0, output_shape=(), data_format)``: the
    window attributes are the forward's; the positions come from ``argmax``."""

    _dims = 2

    def __init__(self, ksize: Any, strides: Any = 0, pads: Any = 0, output_shape: Any = (),
                 data_format: str = "NCHW") -> None:
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.output_shape, self.data_format = tuple(output_shape), data_format

    def __call__(self, x: Any, grads: Any, argmax: Any) -> Any:
        op, rank = type(self).__name__, self._dims + 2
        if len(x.shape) != rank or tuple(argmax.shape) != tuple(x.shape) or \
                tuple(grads.shape[:2]) != tuple(x.shape[:2]) or len(grads.shape) != rank:
            raise ValueError(f"{op}: x {tuple(x.shape)}, grads {tuple(grads.shape)} and argmax "
                             f"{tuple(argmax.shape)} must be {rank}-d with argmax x's shape and "
                             f"the same batch and channels")
        return read_planes(grads, argmax, tuple(x.shape))


class MaxUnpool2DGrad(_Unpool):
    """``(x, grads, argmax) -> dx``: ``grads`` read at ``argmax``."""


class FractionalMaxPoolGrad:
    """``(orig_input, orig_output, out_backprop, row_pooling_sequence,
    col_pooling_sequence) -> dx`` (NHWC)."""

    def __init__(self, overlapping: bool = False) -> None:
        self.overlapping = bool(overlapping)

    def __call__(self, orig_input: Any, orig_output: Any, out_backprop: Any,
                 row_pooling_sequence: Any, col_pooling_sequence: Any) -> Any:
        if len(orig_input.shape) != 4 or tuple(out_backprop.shape) != tuple(orig_output.shape):
            raise ValueError(f"FractionalMaxPoolGrad: orig_input {tuple(orig_input.shape)} must be "
                             f"4-d (NHWC) and out_backprop {tuple(out_backprop.shape)} "
                             f"orig_output's shape {tuple(orig_output.shape)}")
        rows = cast(row_pooling_sequence, mstype.int64)
        cols = cast(col_pooling_sequence, mstype.int64)
        return SequencePoolGrad(self.overlapping)(orig_input, rows, cols, out_backprop)


class FractionalMaxPoolGradWithFixedKsize:
    """``(origin_input, out_backprop, argmax) -> dx``: ``out_backprop`` added at ``argmax``."""

    def __init__(self, data_format: str = "NCHW") -> None:
        if data_format != "NCHW":
            raise ValueError(f"FractionalMaxPoolGradWithFixedKsize: data_format must be 'NCHW', "
                             f"got {data_format!r}")
        self.data_format = data_format

    def __call__(self, origin_input: Any, out_backprop: Any, argmax: Any) -> Any:
        shape = tuple(origin_input.shape)
        if len(shape) != 4 or tuple(argmax.shape) != tuple(out_backprop.shape) or \
                tuple(out_backprop.shape[:2]) != shape[:2]:
            raise ValueError(f"FractionalMaxPoolGradWithFixedKsize: origin_input {shape}, "
                             f"out_backprop {tuple(out_backprop.shape)} and argmax "
                             f"{tuple(argmax.shape)} must be 4-d, argmax out_backprop's shape")
        return add_into_planes(out_backprop, argmax, shape)


__all__ = ["AvgPoolGrad", "AvgPoolGradV1", "MaxPoolGradV1", "MaxPoolGradGrad",
           "MaxPoolGradGradWithArgmax", "MaxUnpool2DGrad", "FractionalMaxPoolGrad",
           "FractionalMaxPoolGradWithFixedKsize"]
