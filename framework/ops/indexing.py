"""``x[index]`` and ``x[index] = value`` with NumPy's semantics, in both modes.

An index item is an int, a slice (any step), ``None``, ``...``, an integer tensor (0-d
like a loop counter ``i``, or n-d), a list/array of ints, or a bool mask. Ints and
step-1 slices become one Slice + Reshape; other slices and integer tensors become
Gather along their axis (gradients scatter-add back). Item assignment is functional:
the flat positions the index selects are computed with the same machinery (on an
``arange`` of the tensor), then ScatterUpdate writes the broadcast value there; the
Tensor object then holds the result (``Tensor.__setitem__``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ..errors import user_location, with_location
from ..interpreters import is_tracing
from ..primitive import shape_str
from . import shape_ops as _shape
from .elementwise import cast, select
from .host_split import host_computed
from .scatter_gather import gather, scatter_update
from .shape_ops import broadcast_to, reshape, slice_


def _error(message: str) -> IndexError:
    return IndexError(with_location(message, user_location()))


def _is_tensor(item: Any) -> bool:
    return isinstance(item, Tensor)


def _normalize(x_shape: tuple[int, ...], index: Any) -> tuple:
    """A tuple of int / slice / None / integer Tensor items, one per indexed axis; lists and
    arrays become tensors, ``...`` is expanded, a concrete bool mask becomes positions."""
    index = index if isinstance(index, tuple) else (index,)
    items: list[Any] = []
    for item in index:
        if isinstance(item, list | np.ndarray):
            array = np.asarray(item)
            if array.dtype.kind not in "iub":
                raise _error(f"getitem: index arrays must hold ints or bools, got {array.dtype}")
            item = Tensor(array)
        if isinstance(item, bool | np.bool_):
            raise _error("getitem: a Python bool is not a supported index")
        if _is_tensor(item) and item._data.dtype == np.bool_:
            items.extend(_mask_positions(item))
            continue
        if _is_tensor(item) and item._data.dtype.kind not in "iu":
            raise _error(f"getitem: index tensors must be integers or bools, got {item.dtype}")
        if not (item is None or item is Ellipsis or isinstance(item, int | np.integer | slice)
                or _is_tensor(item)):
            raise _error(f"getitem: unsupported index {item!r}: use ints, slices, None, ..., "
                         "integer tensors or bool masks")
        items.append(item)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise _error("getitem: an index can only have a single ellipsis ('...')")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if used > len(x_shape):
        raise _error(f"getitem: too many indices ({used}) for a tensor of shape "
                     f"{shape_str(x_shape)}")
    pos = next((k for k, i in enumerate(items) if i is Ellipsis), None)
    if pos is not None:
        items[pos:pos + 1] = [slice(None)] * (len(x_shape) - used)
    return tuple(items)


def _mask_positions(mask: Any) -> tuple[Any, ...]:
    """The int64 positions a bool mask selects, one tensor per mask axis (computed on the
    host: in graph mode the compiled function is split here, ops/host_split.py)."""
    return host_computed("getitem", lambda m: [p.astype(np.int64) for p in np.nonzero(m)], mask)


def _advanced_front(items: tuple) -> bool:
    """NumPy's rule: with an n-d index tensor, the advanced indices (ints and tensors) that
    are not adjacent put their result axes first."""
    nd = [k for k, i in enumerate(items) if _is_tensor(i) and len(i.shape) > 0]
    if not nd:
        return False
    if len(nd) > 1:
        raise _error("getitem: at most one index tensor with ndim >= 1 per index "
                     "(combine them, or index one axis at a time)")
    advanced = [k for k, i in enumerate(items)
                if _is_tensor(i) or isinstance(i, int | np.integer)]
    return advanced[-1] - advanced[0] + 1 != len(advanced)


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` (see the module docstring)."""
    shape = tuple(x.shape)
    if _is_tensor(index) and index._data.dtype == np.bool_ and len(index.shape) > 1:
        if tuple(index.shape) != shape[:len(index.shape)]:
            raise _error(f"getitem: mask of shape {shape_str(index.shape)} does not match the "
                         f"leading axes of {shape_str(shape)}")
        rest = shape[len(index.shape):]
        flat = reshape(x, (int(np.prod(index.shape)),) + rest)
        (positions,) = host_computed(
            "getitem", lambda m: (np.flatnonzero(m).astype(np.int64),), index)
        return gather(flat, positions, 0)
    items = _normalize(shape, index)
    front = _advanced_front(items)
    begin, size, out_shape = [], [], []
    gathers: list[tuple[int, Any]] = []  # (output axis, index tensor)
    axis = 0
    for item in items:
        if item is None:
            out_shape.append(1)
            continue
        dim = shape[axis]
        if isinstance(item, int | np.integer):
            i = int(item) + dim if item < 0 else int(item)
            if not 0 <= i < dim:
                raise _error(f"getitem: index {item} is out of bounds for axis {axis} of "
                             f"size {dim}")
            begin.append(i)
            size.append(1)
        elif isinstance(item, slice):
            start, stop, step = item.indices(dim)
            if step == 1:
                begin.append(start)
                size.append(max(stop - start, 0))
            else:
                begin.append(0)
                size.append(dim)
                gathers.append((len(out_shape), np.arange(start, stop, step)))
            out_shape.append(size[-1])
        else:  # an integer tensor
            begin.append(0)
            size.append(dim)
            gathers.append((len(out_shape), item))
            out_shape.append(dim)
        axis += 1
    begin += [0] * (len(shape) - axis)
    size += list(shape[axis:])
    out_shape += list(shape[axis:])
    # a slice of the whole tensor is the tensor, except a constant's while tracing: the
    # Slice stays, so a symbolic trace's ``positions[:t]`` is one program at t = the whole
    # length too (its slices of constants stay unfolded: framework/ir/symbolic.py)
    whole = tuple(size) == shape and not (is_tracing() and type(x) is Tensor
                                          and isinstance(x._data, np.ndarray))
    result = x if whole else slice_(x, begin, size)
    result = reshape(result, tuple(out_shape))
    nd_axis, nd_rank = None, 0
    for out_axis, indices in reversed(gathers):  # right to left: earlier axes stay put
        result = gather(result, indices, out_axis)
        if _is_tensor(indices) and len(indices.shape) > 0:
            nd_axis, nd_rank = out_axis, len(indices.shape)
    if front and nd_axis:
        # earlier 0-d gathers removed axes before it: count them
        nd_axis -= sum(1 for a, i in gathers if a < nd_axis and _is_tensor(i) and not i.shape)
        ndim = len(result.shape)
        moved = list(range(nd_axis, nd_axis + nd_rank))
        perm = moved + [a for a in range(ndim) if a not in moved]
        result = _shape.transpose(result, tuple(perm))
    return result


def _positions(shape: tuple[int, ...], index: Any) -> Any:
    """The flat positions ``index`` selects in a tensor of ``shape`` (a tensor of ints)."""
    size = int(np.prod(shape, dtype=np.int64))
    dtype = np.int32 if size < 2**31 else np.int64
    return getitem(Tensor(np.arange(size, dtype=dtype).reshape(shape)), index)


def _fills(value: Any, mask: Any, x: Any) -> bool:
    """Whether ``x[mask] = value`` gives each selected element (a slice of ``x``'s axes after
    the mask's) the same value: a scalar, or one no larger than that slice, broadcast to it
    (a value as long as the selection, ``(count, ...)``, is not)."""
    if value.size == 1:
        return True
    rest = tuple(x.shape)[len(mask.shape):]
    if not rest or len(value.shape) > len(rest):
        return False
    try:
        return np.broadcast_shapes(tuple(value.shape), rest) == rest
    except ValueError:
        return False


def setitem(x: Any, index: Any, value: Any) -> Any:
    """The value of ``x`` after ``x[index] = value`` (a new tensor; ``x`` is unchanged)."""
    dtype = x._data.dtype
    if not _is_tensor(value):
        value = Tensor(np.asarray(value, dtype=dtype))
    elif value._data.dtype != dtype:
        value = cast(value, dtype)
    mask = index[0] if isinstance(index, tuple) and len(index) == 1 else index
    if _is_tensor(mask) and mask._data.dtype == np.bool_ and _fills(value, mask, x):
        # x[mask] = v with v the same for every selected element (a scalar, or one row
        # broadcast to each): a select, also in graph mode (no value-dependent shape)
        if tuple(mask.shape) != tuple(x.shape)[:len(mask.shape)]:
            raise _error(f"setitem: mask of shape {shape_str(mask.shape)} does not match the "
                         f"leading axes of {shape_str(x.shape)}")
        mask = reshape(mask, tuple(mask.shape) + (1,) * (len(x.shape) - len(mask.shape)))
        if value.size == 1:
            return select(mask, reshape(value, ()), x)
        return select(broadcast_to(mask, tuple(x.shape)), broadcast_to(value, tuple(x.shape)), x)
    positions = _positions(tuple(x.shape), index)
    try:
        np.broadcast_shapes(tuple(value.shape), tuple(positions.shape))
    except ValueError:
        raise _error(f"setitem: value of shape {shape_str(value.shape)} cannot be broadcast to "
                     f"the indexed shape {shape_str(positions.shape)}") from None
    updates = reshape(broadcast_to(value, tuple(positions.shape)), (-1,))
    flat = scatter_update(reshape(x, (-1,)), reshape(positions, (-1,)), updates)
    return reshape(flat, tuple(x.shape))
