"""Reductions: sum, mean, max, all, any, argmax."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec
from . import elementwise as _elementwise
from . import shape_ops as _shape
from ._utils import (
    argument_error,
    concrete_ints,
    float32_accumulation,
    normalize_axes,
    normalize_axis,
    reduced_shape,
)


class _Reduce(Primitive, abstract=True):
    """``ReduceX(keep_dims=False)(x, axis=())``; ``axis=()`` reduces every axis."""

    def __init__(self, keep_dims: bool = False, axis: Any = None) -> None:
        super().__init__(keep_dims=bool(keep_dims), axis=axis)

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        try:
            axes = normalize_axes(axis, len(x.shape))
        except ValueError as error:
            raise argument_error(self.name, error) from None
        return Primitive.__call__(type(self)(self.keep_dims, axis=axes), x)

    def infer(self, x: Any) -> Spec:
        axes = normalize_axes(self.axis, len(x.shape))
        return Spec(reduced_shape(x.shape, axes, self.keep_dims), x.dtype)

    def _grad_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The reduced shape with kept axes (a shape, so a bprop reads only its input's shape:
        the input is then not a saved tensor, see :mod:`framework.autograd.saved_tensors`)."""
        return reduced_shape(shape, normalize_axes(self.axis, len(shape)), True)


class ReduceSum(_Reduce):
    """``ReduceSum(keep_dims=False, skip_mode=False)(x, axis=())``: with ``skip_mode`` an
    empty ``axis`` leaves ``x`` as it is instead of summing every axis (MindSpore's)."""

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False, axis: Any = None) -> None:
        if not isinstance(skip_mode, bool):  # the node's own form: ReduceSum(keep_dims, axes)
            skip_mode, axis = False, skip_mode
        super().__init__(keep_dims, axis)
        self.skip_mode = bool(skip_mode)  # decided at call time: no attribute of the node

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        if self.skip_mode:
            axis = concrete_ints(axis, "ReduceSum: axis")
            if axis is None or axis == () or axis == []:
                return x
        return super().__call__(x, axis)

    @float32_accumulation
    def kernel(self, x):
        return np.sum(x, axis=self.axis, keepdims=self.keep_dims, dtype=x.dtype)

    def bprop(self, x, *, out, dout, needs):
        return (_shape.broadcast_to(_shape.reshape(dout, self._grad_shape(x.shape)), x.shape),)


class ReduceMean(_Reduce):
    """The mean in the input's dtype; integers' rounds toward zero, as MindSpore's."""

    def infer(self, x: Any) -> Spec:
        spec = super().infer(x)
        if mstype.kind(x.dtype) not in "fiuc":
            raise TypeError(f"needs a numeric input, got {x.dtype}")
        return spec

    @float32_accumulation
    def kernel(self, x):
        if mstype.is_float(x.dtype) or x.dtype.kind == "c":
            return np.mean(x, axis=self.axis, keepdims=self.keep_dims)
        total = np.sum(x, axis=self.axis, keepdims=self.keep_dims, dtype=np.int64)
        count = math.prod(x.shape[a] for a in self.axis)
        quotient = np.abs(total) // count  # exact integer division, toward zero
        return (np.sign(total) * quotient).astype(x.dtype)

    def bprop(self, x, *, out, dout, needs):
        count = math.prod(x.shape[a] for a in self.axis)
        mean = _shape.reshape(_elementwise.div(dout, float(count)), self._grad_shape(x.shape))
        return (_shape.broadcast_to(mean, x.shape),)


def _nothing_to_pick(shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
    """A maximum (or its index) of no entries has no value: the same error in both modes
    (NumPy's kernels raise one; compiled code would read memory that is not there)."""
    empty = [a for a in axes if shape[a] == 0]
    if empty:
        raise ValueError(f"the input of shape {tuple(shape)} has no entries along axis {empty[0]}, "
                         "so no largest (or smallest) one; reduce over non-empty axes")


class ReduceMax(_Reduce):
    def infer(self, x: Any) -> Spec:
        _nothing_to_pick(tuple(x.shape), normalize_axes(self.axis, len(x.shape)))
        return super().infer(x)

    def kernel(self, x):
        return np.max(x, axis=self.axis, keepdims=self.keep_dims)

    def bprop(self, x, *, out, dout, needs):
        shape = self._grad_shape(x.shape)
        mask = _elementwise.cast(_elementwise.equal(x, _shape.reshape(out, shape)), dout.dtype)
        # ties share the gradient equally (a valid subgradient; exact for unique maxima)
        share = _elementwise.div(mask, _shape.reshape(reduce_sum(mask, self.axis, False), shape))
        return (_elementwise.mul(share, _shape.reshape(dout, shape)),)


class _ReduceLogical(_Reduce, abstract=True):
    """Truth reductions (any input dtype, nonzero is True); bool output, no gradient."""

    differentiable = False

    def infer(self, x: Any) -> Spec:
        return Spec(super().infer(x).shape, np.dtype(np.bool_))


class ReduceAll(_ReduceLogical):
    def kernel(self, x):
        return np.all(x, axis=self.axis, keepdims=self.keep_dims)


class ReduceAny(_ReduceLogical):
    def kernel(self, x):
        return np.any(x, axis=self.axis, keepdims=self.keep_dims)


class Argmax(Primitive):
    """``Argmax(axis=-1, output_type=ms.int32)(x)``: index of the largest entry."""

    differentiable = False

    def __init__(self, axis: int = -1, output_type: Any = mstype.int32) -> None:
        super().__init__(axis=axis, output_type=mstype.to_np(output_type))

    def infer(self, x: Any) -> Spec:
        axis = normalize_axis(self.axis, len(x.shape))
        _nothing_to_pick(tuple(x.shape), (axis,))
        return Spec(tuple(d for i, d in enumerate(x.shape) if i != axis), self.output_type)

    def kernel(self, x):
        return np.argmax(x, axis=self.axis).astype(self.output_type)


def reduce_sum(x, axis=(), keep_dims=False):
    return ReduceSum(keep_dims)(x, axis)


def reduce_mean(x, axis=(), keep_dims=False):
    return ReduceMean(keep_dims)(x, axis)


def reduce_max(x, axis=(), keep_dims=False):
    return ReduceMax(keep_dims)(x, axis)


def reduce_all(x, axis=(), keep_dims=False):
    return ReduceAll(keep_dims)(x, axis)


def reduce_any(x, axis=(), keep_dims=False):
    return ReduceAny(keep_dims)(x, axis)


def sum(x, dim=None, keepdim=False, *, dtype=None):  # noqa: A001  (MindSpore 2.x ops.sum)
    """MindSpore's ``ops.sum``: bool and integer inputs sum in int64 unless ``dtype`` is given
    (``ReduceSum`` keeps the input's dtype)."""
    if dtype is not None:
        x = _elementwise.cast(x, dtype)
    elif mstype.kind(mstype.to_np(x.dtype)) in "biu" and mstype.to_np(x.dtype) != np.int64:
        x = _elementwise.cast(x, mstype.int64)
    return ReduceSum(keepdim)(x, dim)


def mean(x, axis=None, keep_dims=False):
    return ReduceMean(keep_dims)(x, axis)


def argmax(x, axis=None, keepdims=False, output_type=mstype.int64):
    """Index of the maximum along ``axis`` (``None``: over the flattened input), int64 as
    MindSpore's ``ops.argmax`` and ``Tensor.argmax`` give (``P.Argmax`` and ``ops.argmin``
    give int32)."""
    if axis is None:
        return Argmax(0, output_type)(_shape.reshape(x, (-1,)))
    result = Argmax(axis, output_type)(x)
    return _shape.expand_dims(result, axis) if keepdims else result
