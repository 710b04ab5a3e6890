"""MindSpore names the model zoo's networks (mindspore-ai/models) use that were missing:
``StridedSlice``, ``GatherNd``, ``Flatten``, ``assign_add``, ``identity``, ``make_range``
and the float-status primitives of loss scaling.

Contracts (no new primitive: each traces to existing ones, so both modes and gradients
come from those):

- ``strided_slice(x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
  new_axis_mask=0, shrink_axis_mask=0)``: MindSpore's (TensorFlow's) strided slice. Entry
  ``i`` of ``begin``/``end``/``strides`` (tuples of ints, or int Tensors) is a slice of the next axis; bit
  ``i`` of a mask makes it: ``begin_mask`` from the start (the end for a negative stride),
  ``end_mask`` to the end, ``ellipsis_mask`` ``...`` (at most one bit), ``new_axis_mask`` a new
  axis of size 1, ``shrink_axis_mask`` the single index ``begin[i]`` (the axis goes).
  Axes past the entries are kept whole. ``P.StridedSlice(masks...)(x, begin, end, strides)``.
- ``gather_nd(input_x, indices)``: ``indices`` of shape ``(..., K)`` picks ``input_x[i_1..i_K]``
  for each leading position: the result's shape is ``indices.shape[:-1] + x.shape[K:]``;
  indices out of range raise ``IndexError`` in PyNative. ``P.GatherNd()``.
- ``Flatten()(x)``: ``(N, ...)`` to ``(N, prod(...))``.
- ``assign_add(variable, value)``: the Parameter set to ``variable + value``, returned;
  ``P.AssignAdd()``.
- ``identity(x)``: ``x``. ``make_range(start, limit=None, delta=1)``: Python's range as a
  tuple of ints (``make_range(n)`` is ``0..n-1``); ``delta`` 0 is a ValueError.
- ``FloatStatus``, ``NPUAllocFloatStatus``, ``NPUGetFloatStatus``, ``NPUClearFloatStatus``:
  GPU/Ascend primitives in MindSpore 2.10, refused on CPU; here too they build (loss-scale
  cells create them) and calling one raises RuntimeError, as MindSpore does on CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..parameter import Parameter
from ._class_form import NoAttributes, class_form
from ._utils import argument_error, concrete_ints
from .elementwise import add, cast, mul
from .indexing import getitem
from .reduce import reduce_sum
from .scatter_gather import gather
from .shape_ops import reshape
from .state import assign


def _ints(op: str, name: str, value: Any) -> tuple[int, ...]:
    value = concrete_ints(value, f"{op}: {name}")  # a Tensor of ints, as MindSpore takes it
    values = tuple(value) if isinstance(value, tuple | list) else None
    if values is None or not all(isinstance(v, int | np.integer) and not isinstance(v, bool)
                                 for v in values):
        raise argument_error(op, TypeError(f"{name} must be a tuple of ints, got {value!r}"))
    return tuple(int(v) for v in values)


def _strided_item(i: int, b: int, e: int, s: int, masks: tuple[int, ...]) -> Any:
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    if ellipsis_mask >> i & 1:
        return Ellipsis
    if new_axis_mask >> i & 1:
        return None
    if shrink_mask >> i & 1:
        return b
    return slice(None if begin_mask >> i & 1 else b, None if end_mask >> i & 1 else e, s)


def strided_slice(input_x: Any, begin: Any, end: Any, strides: Any, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0) -> Any:
    """MindSpore's ``ops.strided_slice`` (see the module docstring)."""
    op = "StridedSlice"
    begin, end, strides = (_ints(op, n, v) for n, v in
                           (("begin", begin), ("end", end), ("strides", strides)))
    if not len(begin) == len(end) == len(strides):
        raise argument_error(op, ValueError(
            f"begin, end and strides must have one length, got {len(begin)}, {len(end)}, "
            f"{len(strides)}"))
    if 0 in strides:
        raise argument_error(op, ValueError(f"strides must not be 0, got {strides}"))
    if bin(ellipsis_mask).count("1") > 1:
        raise argument_error(op, ValueError(
            f"ellipsis_mask may have one bit set, got {ellipsis_mask:#b}"))
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    index = tuple(_strided_item(i, b, e, s, masks)
                  for i, (b, e, s) in enumerate(zip(begin, end, strides)))
    return getitem(input_x, index)


StridedSlice = class_form("StridedSlice", strided_slice, begin_mask=0, end_mask=0, ellipsis_mask=0,
                          new_axis_mask=0, shrink_axis_mask=0)


def gather_nd(input_x: Any, indices: Any) -> Any:
    """MindSpore's ``ops.gather_nd`` (see the module docstring)."""
    if not isinstance(indices, Tensor):
        indices = Tensor(np.asarray(indices))
    shape, ishape = tuple(input_x.shape), tuple(indices.shape)
    if not ishape or not 1 <= ishape[-1] <= len(shape):
        raise argument_error("GatherNd", ValueError(
            f"indices' last axis must be 1..{len(shape)} (the rank of input_x), got shape {ishape}"))
    depth = ishape[-1]
    if isinstance(indices._data, np.ndarray) and indices._data.size:  # concrete (PyNative)
        values = indices._data
        if (values < 0).any() or (values >= np.array(shape[:depth])).any():
            raise IndexError(f"GatherNd: indices {values.tolist()} are out of range for "
                             f"input_x of shape {shape}")
    strides = np.cumprod((shape[1:depth] + (1,))[::-1])[::-1].astype(np.int32)
    linear = reduce_sum(mul(cast(indices, Tensor(strides).dtype), Tensor(strides)), -1)
    flat = reshape(input_x, (int(np.prod(shape[:depth])),) + shape[depth:])
    if len(ishape) == 1:  # one position: gather a 1-element row, then drop the axis
        return reshape(gather(flat, reshape(linear, (1,)), 0), shape[depth:])
    return gather(flat, linear, 0)


GatherNd = class_form("GatherNd", gather_nd)


def _flatten(x: Any) -> Any:
    shape = tuple(x.shape)
    if not shape:
        raise argument_error("Flatten", ValueError("input_x must have rank >= 1, got a scalar"))
    return reshape(x, (shape[0], int(np.prod(shape[1:], dtype=np.int64))))


Flatten = class_form("Flatten", _flatten)


def assign_add(variable: Any, value: Any) -> Any:
    """``variable = variable + value`` for a Parameter; returns the Parameter."""
    if not isinstance(variable, Parameter):
        raise argument_error("AssignAdd", TypeError(
            f"variable must be a Parameter, got {type(variable).__name__}"))
    return assign(variable, add(variable, value))


AssignAdd = class_form("AssignAdd", assign_add)


def identity(x: Any) -> Any:
    """``x`` itself (MindSpore's ``F.identity``)."""
    return x


def make_range(start: int, limit: int | None = None, delta: int = 1) -> tuple[int, ...]:
    """``tuple(range(start, limit, delta))``; ``make_range(n)`` is ``range(n)``."""
    if limit is None:
        start, limit = 0, start
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, limit, delta)):
        raise TypeError(f"make_range: start, limit and delta must be ints, got "
                        f"{start!r}, {limit!r}, {delta!r}")
    if delta == 0:
        raise ValueError("make_range: delta must not be 0")
    return tuple(range(start, limit, delta))


def _device_only(name: str) -> type:
    def __call__(self: Any, *args: Any) -> Any:
        raise RuntimeError(f"{name} runs on GPU/Ascend only (MindSpore refuses it on CPU too); "
                           f"check overflow with ops.isfinite(...).all() instead")

    doc = f"``P.{name}()``: builds; calling it raises RuntimeError, as MindSpore on CPU."
    return type(name, (NoAttributes,), {"__call__": __call__, "__doc__": doc, "__module__": __name__})


FloatStatus = _device_only("FloatStatus")
NPUAllocFloatStatus = _device_only("NPUAllocFloatStatus")
NPUGetFloatStatus = _device_only("NPUGetFloatStatus")
NPUClearFloatStatus = _device_only("NPUClearFloatStatus")

__all__ = ["AssignAdd", "Flatten", "FloatStatus", "GatherNd", "NPUAllocFloatStatus",
           "NPUClearFloatStatus", "NPUGetFloatStatus", "StridedSlice", "assign_add", "gather_nd",
           "identity", "make_range", "strided_slice"]
