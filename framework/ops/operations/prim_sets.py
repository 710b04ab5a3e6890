"""Primitive classes for shapes, counting, sets, linear algebra, sampling and the
transposed convolution, over the functional ops and primitives we have, as
MindSpore 2.10's ``mindspore.ops.operations`` spell them.

Contracts (``P.X(attrs)(inputs)``):

- ``TensorShape()(x)``: ``x``'s shape as an int64 tensor; ``InvertPermutation()(perm)``: the
  inverse permutation of a constant tuple, as a tuple; ``FillV2()(shape, value)``: ``shape``
  (a tuple or a constant int tensor) filled with the 0-d tensor ``value``;
- ``Histogram(bins=100, min=0.0, max=0.0)(x)``: counts of ``bins`` equal bins over ``[min,
  max]`` (both 0: the data's range), values outside left out; float32 counts, int32 for
  int32 input; ``Bincount()(array, size, weights)``: ``out[k] = sum(weights[array == k])``
  for ``k < size`` (empty ``weights``: ones), ``weights``' dtype;
- ``NonZero()(x)``: ``(N, ndim)`` int64 positions; ``Unique()(x)``: ``(y, idx)``, the
  distinct values of 1-D ``x`` in order of first appearance and, per entry, its position in
  ``y`` (``idx`` int32); ``UniqueConsecutive(return_inverse=False, return_counts=False,
  dim=None)(x)``: ``(output, idx, counts)`` as ``mint.unique_consecutive`` (int64
  ``idx``/``counts``; an int64 0 for each one not asked for);
- ``Qr(full_matrices=False)(x)``: ``(Q, R)``;
- ``StandardNormal(seed=0, seed2=0)(shape)``: float32 samples of N(0, 1) from our generator
  (the seeds name MindSpore's streams: the values are not MindSpore's);
- ``Conv2DBackpropInput(out_channel, kernel_size, pad_mode='valid', pad=0, pad_list=None,
  mode=1, stride=1, dilation=1, group=1, data_format='NCHW')(dout, weight, input_size)``: the
  gradient of ``Conv2D`` with those attributes with respect to an input of ``input_size``
  (``out_channel`` and ``kernel_size``: the weight's, checked); ``Conv2DTranspose``: the
  same class under its other name. The keyword form with ``input_shape=`` (``stride``,
  ``dilation``, ``pad_mode``, ``pad``) gives our bprop's primitive
  (:class:`framework.ops.conv.Conv2DBackpropInput`, called ``(dout, weight)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtype as mstype
from ...mint import creation as mint_creation
from ...mint import linalg as mint_linalg
from ...mint import reduce as mint_reduce
from ...mint import shape as mint_shape
from .. import functional as ops
from .._class_form import class_form


def _tensor(array: np.ndarray) -> Any:
    from ...common.tensor import Tensor

    return Tensor(array)


def _tensor_shape(x: Any) -> Any:
    return _tensor(np.asarray(tuple(x.shape), np.int64))


def _invert_permutation(perm: Any) -> Any:
    values = [int(v) for v in perm]
    if sorted(values) != list(range(len(values))):
        raise ValueError(f"InvertPermutation: needs a permutation of 0..{len(values) - 1}, "
                         f"got {tuple(values)}")
    return tuple(int(i) for i in np.argsort(values))


def _fill_v2(shape: Any, value: Any) -> Any:
    dims = tuple(int(d) for d in (shape.asnumpy() if hasattr(shape, "asnumpy") else shape))
    return ops.broadcast_to(value, dims)


def _histogram(x: Any, *, bins: int, min: float, max: float) -> Any:  # noqa: A002  (MindSpore's names)
    if min > max:
        raise ValueError(f"Histogram: min {min} must not exceed max {max}")
    data = ops.cast(x, mstype.float32)
    if min == max == 0.0:
        low, high = data.min(), data.max()
    else:
        low, high = ops.scalar_to_tensor(min, mstype.float32), ops.scalar_to_tensor(max, mstype.float32)
    width = ops.select(ops.greater(high, low), high - low, ops.ones_like(high))
    place = ops.floor((data - low) / width * bins)
    place = ops.select(ops.equal(data, high), ops.full_like(place, bins - 1), place)
    inside = ops.logical_and(ops.greater_equal(data, low), ops.less_equal(data, high))
    edges = _tensor(np.arange(bins, dtype=np.float32))
    hits = ops.logical_and(ops.equal(ops.reshape(place, (-1, 1)), edges), ops.reshape(inside, (-1, 1)))
    counts = ops.cast(hits, mstype.float32).sum(0)
    return ops.cast(counts, mstype.int32) if x.dtype == mstype.int32 else counts


def _bincount(array: Any, size: Any, weights: Any) -> Any:
    length = int(size.asnumpy()) if hasattr(size, "asnumpy") else int(size)
    if length < 0:
        raise ValueError(f"Bincount: size must be non-negative, got {length}")
    bins = _tensor(np.arange(length, dtype=np.int64))
    hits = ops.equal(ops.reshape(ops.cast(array, mstype.int64), (-1, 1)), bins)
    if weights.size == 0:
        weights = ops.ones(tuple(array.shape), weights.dtype)
    each = ops.reshape(weights, (-1, 1))
    return ops.select(hits, ops.broadcast_to(each, hits.shape), ops.zeros(hits.shape, weights.dtype)).sum(0)


def _non_zero(x: Any) -> Any:
    return mint_shape.nonzero(x)


def _unique(x: Any) -> Any:
    values, inverse = mint_reduce.unique(x, sorted=True, return_inverse=True)
    n = x.shape[0]
    slots = _tensor(np.arange(values.shape[0], dtype=np.int64))
    positions = _tensor(np.arange(n, 0, -1, dtype=np.int64))  # n - i: the largest is the first
    hits = ops.equal(ops.reshape(ops.cast(inverse, mstype.int64), (1, -1)), ops.reshape(slots, (-1, 1)))
    latest = ops.select(hits, ops.broadcast_to(positions, hits.shape), ops.zeros(hits.shape, mstype.int64))
    first = n - latest.max(1)
    order = ops.argsort(first)
    rank = ops.argsort(order)
    index = ops.gather(rank, ops.reshape(inverse, (-1,)), 0)
    return ops.gather(values, order, 0), ops.cast(index, mstype.int32)


def _unique_consecutive(x: Any, *, return_inverse: bool, return_counts: bool, dim: Any) -> Any:
    out = mint_reduce.unique_consecutive(x, return_inverse, return_counts, dim)
    parts = list(out) if isinstance(out, tuple) else [out]
    unset = ops.zeros((), mstype.int64)  # MindSpore returns three outputs, unset ones undefined
    values = parts.pop(0)
    inverse = parts.pop(0) if return_inverse else unset
    counts = parts.pop(0) if return_counts else unset
    return values, inverse, counts


def _qr(x: Any, *, full_matrices: bool) -> Any:
    return mint_linalg.qr(x, "complete" if full_matrices else "reduced")


def _standard_normal(shape: Any, *, seed: int, seed2: int) -> Any:
    del seed, seed2  # see the module docstring
    return mint_creation.normal(0.0, 1.0, size=tuple(int(d) for d in shape))


class Conv2DBackpropInput:
    """``P.Conv2DBackpropInput(out_channel, kernel_size, ...)(dout, weight, input_size)``: see
    the module docstring."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if "input_shape" in kwargs:  # our bprop's keyword form: its primitive
            from ..conv import Conv2DBackpropInput as BackpropInput

            return BackpropInput(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, out_channel: int, kernel_size: Any, pad_mode: str = "valid", pad: Any = 0,
                 pad_list: Any = None, mode: int = 1, stride: Any = 1, dilation: Any = 1, group: int = 1,
                 data_format: str = "NCHW") -> None:
        from ..conv import _mindspore_args

        self.declared = _mindspore_args(out_channel, kernel_size, mode, data_format)  # checked on call
        if pad_list is not None and pad_mode == "pad":
            pad = tuple(pad_list)
        self.out_channel, self.kernel_size, self.mode, self.group = out_channel, kernel_size, mode, group
        self.attrs = {"stride": stride, "dilation": dilation, "pad_mode": pad_mode, "pad": pad}

    def __call__(self, dout: Any, weight: Any, input_size: Any) -> Any:
        size = input_size.asnumpy() if hasattr(input_size, "asnumpy") else input_size
        shape = tuple(int(d) for d in size)
        if self.group == 1:
            from ..conv import Conv2DBackpropInput

            conv = Conv2DBackpropInput(input_shape=shape, **self.attrs)
        else:
            from ..group_conv import GroupConv2DBackpropInput

            conv = GroupConv2DBackpropInput(input_shape=shape, group=self.group, **self.attrs)
        conv.declared = self.declared  # out_channel and kernel_size against the weight
        return conv(dout, weight)


class Conv2DTranspose(Conv2DBackpropInput):
    """``P.Conv2DTranspose``: :class:`Conv2DBackpropInput` under MindSpore's other name."""


TensorShape = class_form("TensorShape", _tensor_shape)
InvertPermutation = class_form("InvertPermutation", _invert_permutation)
FillV2 = class_form("FillV2", _fill_v2)
Histogram = class_form("Histogram", _histogram, bins=100, min=0.0, max=0.0)
Bincount = class_form("Bincount", _bincount)
NonZero = class_form("NonZero", _non_zero)
Unique = class_form("Unique", _unique)
UniqueConsecutive = class_form("UniqueConsecutive", _unique_consecutive, return_inverse=False,
                               return_counts=False, dim=None)
Qr = class_form("Qr", _qr, full_matrices=False)
StandardNormal = class_form("StandardNormal", _standard_normal, seed=0, seed2=0)

__all__ = ["Bincount", "Conv2DBackpropInput", "Conv2DTranspose", "FillV2", "Histogram", "InvertPermutation",
           "NonZero", "Qr", "StandardNormal", "TensorShape", "Unique", "UniqueConsecutive"]
