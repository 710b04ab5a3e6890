"""Shape helpers shared by the primitives' shape rules and bprops."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..dtype import complex_result, float_result, is_float, is_low_float
from ..errors import user_location, with_location
from ..primitive import shape_str


def argument_error(op: str, error: Exception) -> Exception:
    """A call-argument check that failed before the shape rule: same one-line form."""
    return type(error)(with_location(f"{op}: {error}", user_location()))


def broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    if len(shapes) == 2:  # the common cases (equal shapes, a scalar), without NumPy's walk
        a, b = shapes
        if a == b or not b:
            return tuple(a)
        if not a:
            return tuple(b)
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(
            "shapes " + " and ".join(shape_str(s) for s in shapes) + " cannot be broadcast together"
        ) from None


def one_dim(op: str, dim: Any, ndim: int) -> int:
    """One axis of an ``ndim``-d input (negative counts from the end), checked: a TypeError
    for a non-int, an IndexError out of range, both naming ``op``."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise argument_error(op, TypeError(f"dim must be an int, got {dim!r}"))
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise argument_error(op, IndexError(f"dim {dim} is out of range for a {ndim}-d input"))
    return dim % size


def normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of range for a {ndim}-d input")
    return axis % ndim if ndim else 0


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``None``/``()`` mean every axis (MindSpore's convention for reductions); a Tensor of
    axes (empty too) counts as its values."""
    axis = concrete_ints(axis, "axis")
    if axis is None or axis == ():
        return tuple(range(ndim))
    if isinstance(axis, int | np.integer):
        axis = (int(axis),)
    axes = tuple(sorted(normalize_axis(int(a), ndim) for a in axis))
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {tuple(axis)}")
    return axes


def concrete_ints(value: Any, what: str) -> Any:
    """An int Tensor argument (MindSpore takes axes, begin/end/strides as Tensors) as the
    int or tuple of ints it holds; other values as they are. Graph mode needs the values
    while compiling, as MindSpore's does for these arguments."""
    if not hasattr(value, "asnumpy") or isinstance(value, np.ndarray):
        return value
    try:
        array = np.asarray(value.asnumpy())
    except (ValueError, TypeError, RuntimeError):
        raise TypeError(f"{what} must be known while compiling: give a tuple of ints or a "
                        f"constant Tensor, not a computed one") from None
    if array.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integers, got a {array.dtype} Tensor")
    return int(array) if array.ndim == 0 else tuple(int(v) for v in array.reshape(-1))


def reduced_shape(shape: Sequence[int], axes: tuple[int, ...], keep_dims: bool) -> tuple:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def float_dtype(dtype: np.dtype) -> np.dtype:
    if not is_float(dtype):
        raise TypeError(f"needs a floating-point input, got {dtype}")
    return dtype


def sum_to_axes(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """Axes of a broadcast ``shape`` to sum over to get back ``target``."""
    lead = len(shape) - len(target)
    axes = list(range(lead))
    axes += [lead + i for i, d in enumerate(target) if d == 1 and shape[lead + i] != 1]
    return tuple(axes)


def result_dtype(*dtypes: np.dtype) -> np.dtype:
    """Type promotion as in MindSpore: a complex operand wins (:func:`..dtype.complex_result`),
    a float operand wins over ints and bools (int32 + float32 is float32, where NumPy would
    widen to float64); otherwise NumPy's rule."""
    if len(dtypes) == 2 and isinstance(dtypes[0], np.dtype) and dtypes[0] == dtypes[1] \
            and dtypes[0].isnative:
        return dtypes[0]  # the common case: one dtype
    dtypes = tuple(np.dtype(d) for d in dtypes)
    if any(d.kind == "c" for d in dtypes):  # complex wins, widened by float64 only
        return complex_result(*dtypes)
    floats = [d for d in dtypes if is_float(d)]
    if floats:  # bfloat16 (ml_dtypes) promotes with no integer, nor with float16, in NumPy
        return float_result(*floats)
    return np.result_type(*dtypes)


def float32_accumulation(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """Decorates a NumPy kernel (GEMM, convolution, reduction, normalization): float16 and
    bfloat16 inputs are computed in float32 (BLAS, float32 sums) and the outputs rounded to
    the dtypes of the shape rule: low-precision storage, float32 accumulation."""

    @functools.wraps(kernel)
    def run(self: Any, *arrays: np.ndarray) -> Any:
        if not any(is_low_float(a.dtype) for a in arrays):
            return kernel(self, *arrays)
        specs = self.out_specs(*arrays)
        with np.errstate(over="ignore", invalid="ignore"):  # float16 overflow is inf, silently
            out = kernel(self, *(a.astype(np.float32) if is_low_float(a.dtype) else a for a in arrays))
            if self.num_outputs == 1:
                return np.asarray(out).astype(specs[0].dtype, copy=False)
            return tuple(np.asarray(o).astype(s.dtype, copy=False) for o, s in zip(out, specs))

    return run
