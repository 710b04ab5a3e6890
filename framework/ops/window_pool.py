"""Pooling over windows of any number of spatial axes, by gathering each window's entries:
``avg_pool3d``, ``max_pool3d``, ``adaptive_avg_pool3d``, ``adaptive_max_pool3d``,
``lp_pool1d``/``lp_pool2d``, and ``max_unpool1d/2d/3d`` (scattering back).

The windows' flat positions in the ``(N, C, *spatial)`` input are computed on the host from
the shapes; a position in the padding (or past the input with ``ceil_mode``) points at one
extra entry holding the reduction's neutral value (the dtype's lowest value for max, 0 for
sums). ``Gather`` then reads every window at once and a reduction over the window axis
pools, so both modes and the gradients are those primitives' (max pooling's gradient goes
to the window's maximum, shared among ties as ``ReduceMax``'s). Output sizes, ceil mode
(the last window must start inside the input or its left padding), ``count_include_pad``
and ``divisor_override`` follow MindSpore's (PyTorch's) definitions; max indices are int64
flat positions in each ``(N, C)`` plane of the input (int32 from ``adaptive_max_pool3d``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error
from .creation import zeros
from .elementwise import cast, pow
from .reduce import argmax, reduce_max, reduce_sum
from .scatter_elements import GatherElements, ScatterElements
from .scatter_gather import gather
from .shape_ops import broadcast_to, concat, expand_dims, reshape


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _tuple(op: str, name: str, value: Any, n: int, low: int) -> tuple[int, ...]:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n or any(not isinstance(v, int) or v < low for v in values):
        raise argument_error(op, ValueError(
            f"{name} must be an int >= {low} or {n} of them, got {value!r}"))
    return tuple(values)


def _axis_windows(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per window along one axis: its input positions (-1 outside), and per entry whether it
    lies in the padded extent and in the input."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (math.ceil(span / s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    if out < 1:
        raise ValueError(f"the window (kernel {k}, dilation {d}) does not fit an axis of {n} "
                         f"padded by {p}")
    pos = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    inside = (pos >= 0) & (pos < n)
    padded = (pos >= -p) & (pos < n + p)
    return np.where(inside, pos, -1), padded, inside


def _combine(spatial: tuple[int, ...], per_axis: list[tuple[np.ndarray, ...]]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat positions (K, L) in the spatial plane (sentinel: its size) and, per window, the
    counts of entries in the padded extent and in the input."""
    plane = int(np.prod(spatial))
    strides = np.cumprod((spatial[1:] + (1,))[::-1])[::-1]
    outs = [w[0].shape[0] for w in per_axis]
    ks = [w[0].shape[1] for w in per_axis]
    flat = np.zeros(tuple(outs) + tuple(ks), np.int64)
    valid = np.ones_like(flat, bool)
    padded = np.ones_like(flat, bool)
    dims = len(spatial)
    for a, (pos, pad_ok, in_ok) in enumerate(per_axis):
        shape = [1] * (2 * dims)
        shape[a], shape[dims + a] = pos.shape
        flat = flat + np.where(pos < 0, 0, pos).reshape(shape) * int(strides[a])
        valid = valid & in_ok.reshape(shape)
        padded = padded & pad_ok.reshape(shape)
    flat = np.where(valid, flat, plane).reshape(int(np.prod(outs)), -1).T
    return flat, padded.reshape(flat.shape[::-1]).sum(1), valid.reshape(flat.shape[::-1]).sum(1)


def _gathered(x: Any, positions: np.ndarray, fill: float) -> Any:
    """``(N, C, K, L)``: each window's entries, the sentinel reading ``fill``."""
    n, c = x.shape[:2]
    flat = reshape(x, (n, c, -1))
    sentinel = broadcast_to(_tensor(np.asarray(fill, np.float64).reshape(1, 1, 1)), (n, c, 1))
    sentinel = cast(sentinel, x.dtype)
    return gather(concat((flat, sentinel), 2), _tensor(positions), 2)


def _lowest(x: Any) -> float:
    kind = np.dtype(mstype.to_np(x.dtype))
    return float(np.finfo(kind).min) if kind.kind == "f" else float(np.iinfo(kind).min)


def _batched(op: str, x: Any, dims: int) -> tuple[Any, bool]:
    if len(x.shape) == dims + 1:
        return expand_dims(x, 0), True
    if len(x.shape) != dims + 2:
        raise argument_error(op, ValueError(
            f"input must be (N, C, {dims} spatial axes) or unbatched, got shape {tuple(x.shape)}"))
    return x, False


def _max_indices(values: Any, positions: np.ndarray, out_shape: tuple[int, ...]) -> Any:
    n, c = values.shape[:2]
    best = expand_dims(argmax(values, 2), 2)  # (N, C, 1, L): the first maximum
    table = broadcast_to(_tensor(positions), (n, c) + positions.shape)
    return reshape(GatherElements(2)(table, cast(best, mstype.int64)), out_shape)


def _pool(op: str, x: Any, dims: int, kernel: Any, stride: Any, padding: Any, dilation: Any,
          ceil_mode: bool) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, tuple[int, ...], bool]:
    x, unbatched = _batched(op, x, dims)
    k = _tuple(op, "kernel_size", kernel, dims, 1)
    s = k if stride is None or stride == () or stride == 0 else _tuple(op, "stride", stride, dims, 1)
    p = _tuple(op, "padding", padding, dims, 0)
    d = _tuple(op, "dilation", dilation, dims, 1)
    spatial = tuple(x.shape[2:])
    try:
        per_axis = [_axis_windows(*args, ceil_mode) for args in zip(spatial, k, s, p, d)]
    except ValueError as error:
        raise argument_error(op, error) from None
    positions, padded, inside = _combine(spatial, per_axis)
    out_shape = tuple(x.shape[:2]) + tuple(w[0].shape[0] for w in per_axis)
    return x, positions, padded, inside, out_shape, unbatched


def _finish(out: Any, unbatched: bool) -> Any:
    return reshape(out, tuple(out.shape[1:])) if unbatched else out


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    x, positions, padded, inside, shape, unbatched = _pool(
        "avg_pool3d", input_x, 3, kernel_size, stride, padding, 1, ceil_mode)
    total = reduce_sum(_gathered(x, positions, 0.0), 2)
    divisor = np.full(positions.shape[1], divisor_override) if divisor_override else \
        (padded if count_include_pad else inside)
    out = total / _tensor(divisor.astype(mstype.to_np(x.dtype)))
    return _finish(reshape(out, shape), unbatched)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    x, positions, _, _, shape, unbatched = _pool("max_pool3d", x, 3, kernel_size, stride, padding,
                                                 dilation, ceil_mode)
    values = _gathered(x, positions, _lowest(x))
    out = _finish(reshape(reduce_max(values, 2), shape), unbatched)
    if not return_indices:
        return out
    return out, _finish(_max_indices(values, positions, shape), unbatched)


def _lp_pool(op: str, dims: int, x: Any, norm_type: float, kernel_size: Any, stride: Any,
             ceil_mode: bool) -> Any:
    x, positions, _, inside, shape, unbatched = _pool(op, x, dims, kernel_size, stride, 0, 1, ceil_mode)
    total = reduce_sum(pow(_gathered(x, positions, 0.0), float(norm_type)), 2)
    if (inside < positions.shape[0]).any():  # ceil mode's cut windows: a mean times the full size
        total = total * _tensor((positions.shape[0] / inside).astype(mstype.to_np(x.dtype)))
    return _finish(reshape(pow(total, 1.0 / float(norm_type)), shape), unbatched)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over each window of x ** norm_type) ** (1 / norm_type)`` along the last axis
    (a window cut short by ``ceil_mode``: its mean times the kernel size, as MindSpore's)."""
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool1d`` over windows of the last two axes."""
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, ceil_mode)


def _adaptive(op: str, x: Any, output_size: Any) -> tuple[Any, np.ndarray, np.ndarray, tuple, bool]:
    x, unbatched = _batched(op, x, 3)
    spatial = tuple(x.shape[2:])
    sizes = output_size if isinstance(output_size, tuple | list) else (output_size,) * 3
    sizes = tuple(n if o is None else o for o, n in zip(sizes, spatial))
    _tuple(op, "output_size", sizes, 3, 1)
    per_axis = []
    for n, out in zip(spatial, sizes):
        starts = (np.arange(out) * n) // out
        ends = -((-(np.arange(out) + 1) * n) // out)
        k = int((ends - starts).max())
        pos = starts[:, None] + np.arange(k)[None, :]
        ok = pos < ends[:, None]
        per_axis.append((np.where(ok, pos, -1), ok, ok))
    positions, _, inside = _combine(spatial, per_axis)
    return x, positions, inside, tuple(x.shape[:2]) + sizes, unbatched


def adaptive_avg_pool3d(input, output_size):  # noqa: A002  (MindSpore's names)
    x, positions, inside, shape, unbatched = _adaptive("adaptive_avg_pool3d", input, output_size)
    out = reduce_sum(_gathered(x, positions, 0.0), 2) / _tensor(inside.astype(mstype.to_np(x.dtype)))
    return _finish(reshape(out, shape), unbatched)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    x, positions, _, shape, unbatched = _adaptive("adaptive_max_pool3d", input, output_size)
    values = _gathered(x, positions, _lowest(x))
    out = _finish(reshape(reduce_max(values, 2), shape), unbatched)
    if not return_indices:
        return out
    return out, _finish(cast(_max_indices(values, positions, shape), mstype.int32), unbatched)


def _unpool(op: str, dims: int, x: Any, indices: Any, kernel_size: Any, stride: Any, padding: Any,
            output_size: Any) -> Any:
    x, unbatched = _batched(op, x, dims)
    if tuple(indices.shape) != tuple(x.shape) and tuple(indices.shape) != tuple(x.shape[1:]):
        raise argument_error(op, ValueError(
            f"indices of shape {tuple(indices.shape)} must have x's shape"))
    k = _tuple(op, "kernel_size", kernel_size, dims, 1)
    s = k if stride is None or stride == 0 else _tuple(op, "stride", stride, dims, 1)
    p = _tuple(op, "padding", padding, dims, 0)
    if output_size is None or len(output_size) == 0:
        spatial = tuple((n - 1) * si - 2 * pi + ki for n, si, pi, ki in zip(x.shape[2:], s, p, k))
    else:
        spatial = tuple(int(v) for v in tuple(output_size)[-dims:])
    n, c = x.shape[:2]
    plane = int(np.prod(spatial))
    flat = ScatterElements(2, "none")(zeros((n, c, plane), x.dtype),
                                      reshape(cast(indices, mstype.int64), (n, c, -1)),
                                      reshape(x, (n, c, -1)))
    return _finish(reshape(flat, (n, c) + spatial), unbatched)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Each value of ``x`` written at its ``indices`` (max pooling's) in a zero output."""
    return _unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)



def _intervals(sample: np.ndarray, size: int, out: int, k: int) -> np.ndarray:
    """Fractional pooling's window starts along one axis, per plane (``sample``: (planes,)
    in [0, 1)): ``floor((i + u) * a) - floor(u * a)`` with ``a = (size - k) / (out - 1)``,
    the last window ending at the edge. Float32 arithmetic, as the kernels'."""
    starts = np.empty(sample.shape + (out,), np.int64)
    if out > 1:
        alpha = np.float32(size - k) / np.float32(out - 1)
        u = sample.astype(np.float32)[:, None]
        steps = np.arange(out - 1, dtype=np.float32)[None, :]
        first = np.floor(u * alpha).astype(np.int64)
        starts[:, :-1] = np.floor((steps + u) * alpha).astype(np.int64) - first
    starts[:, -1] = size - k
    return starts


def _fractional(op: str, dims: int, input: Any, kernel_size: Any, output_size: Any,  # noqa: A002
                output_ratio: Any, return_indices: bool, samples: Any) -> Any:
    x, unbatched = _batched(op, input, dims)
    n, c, *spatial = x.shape
    k = _tuple(op, "kernel_size", kernel_size, dims, 1)
    if output_size is not None:
        out = _tuple(op, "output_size", output_size, dims, 1)
    elif output_ratio is not None:
        ratios = (output_ratio,) * dims if isinstance(output_ratio, int | float) else tuple(output_ratio)
        out = tuple(int(size * r) for size, r in zip(spatial, ratios))
    else:
        raise argument_error(op, ValueError("output_size or output_ratio must be given"))
    if any(o + ki - 1 > size or o < 1 for o, ki, size in zip(out, k, spatial)):
        raise argument_error(op, ValueError(
            f"output {out} with kernel {k} does not fit the input {tuple(spatial)}"))
    if samples is None:
        u = np.random.default_rng().random((n, c, dims))
    else:
        data = getattr(samples, "_data", samples)
        if not isinstance(data, np.ndarray):
            raise argument_error(op, RuntimeError(
                "_random_samples must have its values (a constant in graph mode)"))
        u = np.broadcast_to(np.asarray(data), (n, c, dims))
    # the samples are ordered (W, H) for 2-d and (D, H, W) for 3-d (MindSpore's kernels)
    order = (1, 0) if dims == 2 else (0, 1, 2)
    planes = n * c
    starts = [_intervals(u[..., order[a]].reshape(planes), spatial[a], out[a], k[a]) for a in range(dims)]
    strides = np.cumprod((tuple(spatial[1:]) + (1,))[::-1])[::-1]
    flat = np.zeros((planes,) + tuple(out) + tuple(k), np.int64)
    for a in range(dims):
        shape = [planes] + [1] * (2 * dims)
        shape[1 + a] = out[a]
        offset = [1] * (1 + 2 * dims)
        offset[1 + dims + a] = k[a]
        flat = flat + (starts[a].reshape(shape) + np.arange(k[a]).reshape(offset)) * int(strides[a])
    windows = flat.reshape(n, c, int(np.prod(out)), -1).transpose(0, 1, 3, 2)  # (N, C, K, L)
    index = _tensor(np.ascontiguousarray(windows).reshape(n, c, -1))
    values = reshape(GatherElements(2)(reshape(x, (n, c, -1)), index), (n, c) + windows.shape[2:])
    shape = (n, c) + tuple(out)
    result = _finish(reshape(reduce_max(values, 2), shape), unbatched)
    if not return_indices:
        return result
    best = cast(expand_dims(argmax(values, 2), 2), mstype.int64)
    chosen = GatherElements(2)(_tensor(windows), best)
    return result, _finish(reshape(chosen, shape), unbatched)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-random windows (``_random_samples``: ``(N or 1, C, 2)`` in
    [0, 1), drawn when None) of the last two axes; indices are int64 flat positions."""
    return _fractional("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """``fractional_max_pool2d`` over the last three axes (``_random_samples`` ``(N, C, 3)``)."""
    return _fractional("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples)
