"""Shape primitives: reshape, transpose, broadcast, squeeze, concat, slice, pad."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..primitive import Primitive, Spec, shape_str
from . import elementwise as _elementwise
from ._utils import argument_error, broadcast_shape, normalize_axis, result_dtype


def _resolve_shape(shape: Any, in_shape: tuple[int, ...]) -> tuple[int, ...]:
    shape = (int(shape),) if isinstance(shape, int | np.integer) else tuple(int(d) for d in shape)
    size = math.prod(in_shape)  # Python ints: no NumPy call (this runs for every reshape)
    if shape.count(-1) > 1:
        raise ValueError(f"at most one -1 allowed in target shape {shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape {shape_str(in_shape)} to {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape {shape_str(in_shape)} ({size} elements) to {shape}")
    return shape


class Reshape(Primitive):
    """``Reshape()(x, shape)``; the resolved shape (no -1) is the attribute."""

    def __init__(self, shape: tuple[int, ...] | None = None) -> None:
        super().__init__(shape=shape)

    def __call__(self, x: Any, shape: Any = None) -> Any:
        try:
            target = _resolve_shape(self.shape if shape is None else shape, tuple(x.shape))
        except ValueError as error:
            raise argument_error("Reshape", error) from None
        if target == tuple(x.shape):
            return x
        return Primitive.__call__(Reshape(target), x)

    def infer(self, x: Any) -> Spec:
        return Spec(_resolve_shape(self.shape, tuple(x.shape)), x.dtype)

    def kernel(self, x):
        return x.reshape(self.shape)

    def bprop(self, x, *, out, dout, needs):
        return (reshape(dout, x.shape),)


class Transpose(Primitive):
    def __init__(self, perm: tuple[int, ...] | None = None) -> None:
        super().__init__(perm=None if perm is None else tuple(int(p) for p in perm))

    def __call__(self, x: Any, perm: Any = None) -> Any:
        return Primitive.__call__(Transpose(self.perm if perm is None else perm), x)

    def infer(self, x: Any) -> Spec:
        if sorted(self.perm) != list(range(len(x.shape))):
            raise ValueError(f"perm {self.perm} is not a permutation of the {len(x.shape)} axes")
        return Spec(tuple(x.shape[p] for p in self.perm), x.dtype)

    def kernel(self, x):
        return np.transpose(x, self.perm)

    def bprop(self, x, *, out, dout, needs):
        return (transpose(dout, tuple(int(i) for i in np.argsort(self.perm))),)


class BroadcastTo(Primitive):
    def __init__(self, shape: tuple[int, ...]) -> None:
        super().__init__(shape=tuple(int(d) for d in shape))

    def infer(self, x: Any) -> Spec:
        target = tuple(x.shape[i - len(self.shape) + len(x.shape)] if d == -1 else d
                       for i, d in enumerate(self.shape))
        if broadcast_shape(tuple(x.shape), target) != target:
            raise ValueError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(target)}")
        return Spec(target, x.dtype)

    def kernel(self, x):
        # materialized: zero-stride views would push later kernels off their BLAS paths
        return np.array(np.broadcast_to(x, self.infer(x).shape))

    def bprop(self, x, *, out, dout, needs):
        return (_elementwise.sum_to(dout, x.shape),)


class ExpandDims(Primitive):
    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=int(axis))

    def __call__(self, x: Any, axis: int | None = None) -> Any:
        return Primitive.__call__(ExpandDims(self.axis if axis is None else axis), x)

    def infer(self, x: Any) -> Spec:
        ndim = len(x.shape) + 1
        axis = normalize_axis(self.axis, ndim)
        shape = list(x.shape)
        shape.insert(axis, 1)
        return Spec(tuple(shape), x.dtype)

    def kernel(self, x):
        return np.expand_dims(x, self.axis)

    def bprop(self, x, *, out, dout, needs):
        return (reshape(dout, x.shape),)


class Squeeze(Primitive):
    """Remove size-1 axes (``axis=()``: all of them)."""

    def __init__(self, axis: Any = ()) -> None:
        axis = (axis,) if isinstance(axis, int) else tuple(axis or ())
        super().__init__(axis=axis)

    def _axes(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if not self.axis:
            return tuple(i for i, d in enumerate(shape) if d == 1)
        axes = tuple(normalize_axis(a, len(shape)) for a in self.axis)
        for a in axes:
            if shape[a] != 1:
                raise ValueError(f"cannot squeeze axis {a} of size {shape[a]}")
        return axes

    def infer(self, x: Any) -> Spec:
        axes = self._axes(tuple(x.shape))
        return Spec(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)

    def kernel(self, x):
        return np.squeeze(x, self._axes(x.shape))

    def bprop(self, x, *, out, dout, needs):
        return (reshape(dout, x.shape),)


class Concat(Primitive):
    """``Concat(axis=0)((x1, x2, ...))``."""

    def __init__(self, axis: int = 0) -> None:
        super().__init__(axis=int(axis))

    def __call__(self, tensors: Any, *more: Any) -> Any:
        tensors = (tensors, *more) if more else tuple(tensors)
        return Primitive.__call__(self, *tensors)

    def infer(self, *xs: Any) -> Spec:
        if not xs:
            raise ValueError("needs at least one tensor")
        first = tuple(xs[0].shape)
        axis = normalize_axis(self.axis, len(first))
        for x in xs[1:]:
            shape = tuple(x.shape)
            if len(shape) != len(first) or any(
                a != b for i, (a, b) in enumerate(zip(shape, first)) if i != axis
            ):
                raise ValueError(f"shapes {shape_str(first)} and {shape_str(shape)} differ "
                                 f"outside axis {axis}")
        size = sum(x.shape[axis] for x in xs)
        shape = first[:axis] + (size,) + first[axis + 1:]
        return Spec(shape, result_dtype(*[x.dtype for x in xs]))

    def kernel(self, *xs):
        return np.concatenate(xs, axis=self.axis).astype(self.infer(*xs).dtype, copy=False)

    def bprop(self, *xs, out, dout, needs):
        axis = normalize_axis(self.axis, len(out.shape))
        grads, start = [], 0
        for x, need in zip(xs, needs):
            size = x.shape[axis]
            if need:
                begin = [0] * len(out.shape)
                begin[axis] = start
                grads.append(slice_(dout, tuple(begin), tuple(x.shape)))
            else:
                grads.append(None)
            start += size
        return tuple(grads)


class Slice(Primitive):
    """``Slice()(x, begin, size)``: the block starting at ``begin`` (``size`` -1: to the end)."""

    def __init__(self, begin: tuple[int, ...] | None = None, size: tuple[int, ...] | None = None):
        super().__init__(begin=begin, size=size)

    def __call__(self, x: Any, begin: Any = None, size: Any = None) -> Any:
        begin = tuple(int(b) for b in (self.begin if begin is None else begin))
        size = tuple(int(s) for s in (self.size if size is None else size))
        size = tuple(d - b if s == -1 else s for s, b, d in zip(size, begin, x.shape))
        return Primitive.__call__(Slice(begin, size), x)

    def infer(self, x: Any) -> Spec:
        if len(self.begin) != len(x.shape) or len(self.size) != len(x.shape):
            raise ValueError(f"begin {self.begin} and size {self.size} need one entry per axis")
        for b, s, d in zip(self.begin, self.size, x.shape):
            if b < 0 or s < 0 or b + s > d:
                raise ValueError(f"slice begin {self.begin} size {self.size} is out of bounds")
        return Spec(tuple(self.size), x.dtype)

    def kernel(self, x):
        return x[tuple(slice(b, b + s) for b, s in zip(self.begin, self.size))]

    def bprop(self, x, *, out, dout, needs):
        pads = tuple((b, d - b - s) for b, s, d in zip(self.begin, self.size, x.shape))
        return (pad(dout, pads),)


class Pad(Primitive):
    """Zero padding: ``Pad(paddings)(x)`` with ``((before, after), ...)`` per axis."""

    def __init__(self, paddings: Any) -> None:
        super().__init__(paddings=tuple((int(a), int(b)) for a, b in paddings))

    def infer(self, x: Any) -> Spec:
        if len(self.paddings) != len(x.shape):
            raise ValueError(f"paddings {self.paddings} need one pair per axis")
        if any(a < 0 or b < 0 for a, b in self.paddings):
            raise ValueError(f"paddings must be non-negative, got {self.paddings}")
        return Spec(tuple(d + a + b for d, (a, b) in zip(x.shape, self.paddings)), x.dtype)

    def kernel(self, x):
        # zeros then one block copy: np.pad's generic path costs ~40 us of Python a call
        out = np.zeros(self.infer(x).shape, x.dtype)
        out[tuple(slice(a, a + d) for (a, _), d in zip(self.paddings, x.shape))] = x
        return out

    def bprop(self, x, *, out, dout, needs):
        return (slice_(dout, tuple(a for a, _ in self.paddings), tuple(x.shape)),)


class StopGradient(Primitive):
    """Identity that blocks gradients."""

    differentiable = False

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return x


class Load(Primitive):
    """A snapshot of ``x`` that gradients pass through (MindSpore's ``Parameter.value()``):
    the forward value is a copy, so later in-place updates of ``x`` do not show in it."""

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.array(x, copy=True)

    def bprop(self, x, *, out, dout, needs):
        return (dout,)


class ZerosLike(Primitive):
    differentiable = False

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.zeros_like(x)


class OnesLike(Primitive):
    differentiable = False

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.ones_like(x)


# -- functional forms -----------------------------------------------------------------
_RESHAPE, _ZEROS_LIKE, _ONES_LIKE, _STOP = Reshape(), ZerosLike(), OnesLike(), StopGradient()
_LOAD = Load()


def reshape(x, shape):
    return _RESHAPE(x, shape)


def transpose(x, perm):
    return Transpose(perm)(x)


def permute(input, axis, *axes):  # noqa: A002
    """MindSpore's ``ops.permute(input, axis)``; as ``Tensor.permute`` the axes may also come
    one by one (``x.permute(1, 0)``)."""
    return Transpose(tuple(axis) if not axes else (axis, *axes))(input)


def broadcast_to(x, shape):
    if tuple(x.shape) == tuple(shape):
        return x
    return BroadcastTo(shape)(x)


def expand_dims(x, axis):
    return ExpandDims(axis)(x)


def squeeze(x, axis=None):
    return Squeeze(() if axis is None else axis)(x)


def concat(tensors, axis=0):
    return Concat(axis)(tuple(tensors))


cat = concat


def slice_(x, begin, size):
    return Slice()(x, begin, size)


def pad(x, paddings):
    return Pad(paddings)(x)


def flatten(x, start_dim=1):
    shape = tuple(x.shape)
    return reshape(x, shape[:start_dim] + (-1,))


def stop_gradient(x):
    return _STOP(x)


def load(x):
    """``x``'s current value, differentiable (see :class:`Load`)."""
    return _LOAD(x)


def zeros_like(x):
    return _ZEROS_LIKE(x)


def ones_like(x):
    return _ONES_LIKE(x)

