"""Array functions built from the shape, gather and select primitives: flips, rolls,
repeats, axis moves, diagonals, meshgrid, eye and friends.

Contracts (no new primitive: each traces to existing ones, so both modes and gradients
come from those):

- ``flip(input, dims)``/``roll(input, shifts, dims=None)``/``repeat_interleave``: a
  ``Gather`` per axis with constant indices (``roll`` with ``dims=None`` rolls the
  flattened input; ``repeat_interleave`` with ``axis=None`` repeats it flattened);
- ``movedim``/``moveaxis``/``swapaxes``/``swapdims``/``t``: one ``Transpose``;
- ``narrow(input, axis, start, length)``: one ``Slice``; ``unbind`` is ``unstack``;
- ``diag(input)``: rank k in, rank 2k out, ``input`` on the diagonal (``P.Diag``);
- ``eye(n, m=None, dtype=float32)``, ``full_like``: constants; ``trace``: the sum of a
  matrix's diagonal; ``diff(x, n=1, axis=-1)``: ``n``-th forward differences (of booleans: xor);
- ``meshgrid(*inputs, indexing='xy')``: 1-D inputs broadcast to the grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import REQUIRED, class_form
from ._utils import argument_error, normalize_axes, normalize_axis
from .array_ops import unstack
from .elementwise import mul, not_equal, sub
from .reduce import reduce_sum
from .scatter_gather import gather
from .shape_ops import broadcast_to, concat, expand_dims, reshape, slice_, transpose


def _tensor(array: np.ndarray) -> Any:
    return Tensor(array)


def _axis(op: str, x: Any, axis: int) -> int:
    try:
        return normalize_axis(int(axis), len(x.shape))
    except ValueError as error:
        raise argument_error(op, error) from None


def _take(x: Any, index: np.ndarray, axis: int) -> Any:
    return gather(x, _tensor(index.astype(np.int32)), axis)


def flip(input, dims):  # noqa: A002  (MindSpore's parameter names)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = input
    for axis in normalize_axes(dims, len(input.shape)):
        out = _take(out, np.arange(input.shape[axis])[::-1], axis)
    return out


def fliplr(input):  # noqa: A002
    return flip(input, (1,))


def flipud(input):  # noqa: A002
    return flip(input, (0,))


def roll(input, shifts, dims=None):  # noqa: A002
    if dims is None:
        return reshape(roll(reshape(input, (-1,)), shifts, 0), tuple(input.shape))
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise argument_error("roll", ValueError(f"shifts {shifts} and dims {dims} differ in length"))
    out = input
    for shift, dim in zip(shifts, dims):
        axis = _axis("roll", input, dim)
        n = input.shape[axis]
        out = _take(out, (np.arange(n) - int(shift)) % n, axis)
    return out


def repeat_interleave(input, repeats, axis=None):  # noqa: A002
    x = reshape(input, (-1,)) if axis is None else input
    axis = 0 if axis is None else _axis("repeat_interleave", input, axis)
    n = x.shape[axis]
    counts = np.asarray(repeats.asnumpy() if hasattr(repeats, "asnumpy") else repeats).reshape(-1)
    if counts.size not in (1, n) or (counts < 0).any():
        raise argument_error("repeat_interleave", ValueError(
            f"repeats must be one count >= 0 or one per entry ({n}), got {counts.tolist()}"))
    return _take(x, np.repeat(np.arange(n), np.broadcast_to(counts, (n,))), axis)


def movedim(x, source, destination):
    src = normalize_axes(source, len(x.shape))
    dst = normalize_axes(destination, len(x.shape))
    if len(src) != len(dst):
        raise argument_error("movedim", ValueError(f"source {source} and destination "
                                                   f"{destination} differ in length"))
    rest = [a for a in range(len(x.shape)) if a not in src]
    perm = [None] * len(x.shape)
    for s, d in zip(src, dst):
        perm[d] = s
    perm = [p if p is not None else rest.pop(0) for p in perm]
    return transpose(x, tuple(perm))


def swapaxes(input, axis0, axis1):  # noqa: A002
    perm = list(range(len(input.shape)))
    a, b = _axis("swapaxes", input, axis0), _axis("swapaxes", input, axis1)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(input, tuple(perm))


def t(input):  # noqa: A002
    if len(input.shape) > 2:
        raise argument_error("t", ValueError(f"input must be 1-D or 2-D, got shape {input.shape}"))
    return input if len(input.shape) < 2 else transpose(input, (1, 0))


def narrow(input, axis, start, length):  # noqa: A002
    axis = _axis("narrow", input, axis)
    begin = [0] * len(input.shape)
    size = list(input.shape)
    begin[axis], size[axis] = int(start), int(length)
    return slice_(input, tuple(begin), tuple(size))


def unbind(input, dim=0):  # noqa: A002
    return unstack(input, dim)


def unsqueeze(input, dim):  # noqa: A002
    return expand_dims(input, dim)


def ravel(input):  # noqa: A002
    return reshape(input, (-1,))


def eye(n, m=None, dtype=None):
    """An ``n x m`` identity (float32 unless ``dtype`` says otherwise, as MindSpore's)."""
    dtype = mstype.float32 if dtype is None else dtype
    return _tensor(np.eye(int(n), int(n if m is None else m), dtype=mstype.to_np(dtype)))


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    dtype = input.dtype if dtype is None else dtype
    return _tensor(np.full(tuple(input.shape), fill_value, dtype=mstype.to_np(dtype)))


def diag(input):  # noqa: A002
    shape = tuple(input.shape)
    size = int(np.prod(shape, dtype=np.int64))
    flat = expand_dims(reshape(input, (-1,)), 1)
    out = mul(flat, _tensor(np.eye(size, dtype=input.dtype.np)))
    return reshape(out, shape + shape)


def trace(input):  # noqa: A002
    if len(input.shape) != 2:
        raise argument_error("trace", ValueError(f"input must be 2-D, got shape {input.shape}"))
    return reduce_sum(mul(input, _tensor(np.eye(*input.shape, dtype=input.dtype.np))))


def diff(x, n=1, axis=-1, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    out = concat(parts, axis) if len(parts) > 1 else x
    ax = _axis("diff", out, axis)
    step = not_equal if out.dtype == mstype.bool_ else sub  # booleans: xor, as MindSpore
    for _ in range(int(n)):
        length = out.shape[ax]
        head = narrow(out, ax, 1, length - 1)
        out = step(head, narrow(out, ax, 0, length - 1))
    return out


def meshgrid(*inputs, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise argument_error("meshgrid", ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}"))
    if len(inputs) == 1 and isinstance(inputs[0], tuple | list):
        inputs = tuple(inputs[0])
    sizes = [int(v.shape[0]) for v in inputs]
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, v in enumerate(inputs):
        axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" and len(inputs) >= 2 else i
        shape = [1] * len(inputs)
        shape[axis] = sizes[axis]
        out.append(broadcast_to(reshape(v, tuple(shape)), tuple(sizes)))
    return tuple(out)


def outer(input, vec2):  # noqa: A002
    return mul(expand_dims(input, 1), expand_dims(vec2, 0))


moveaxis, swapdims = movedim, swapaxes


def _reverse(x, axis):
    return flip(x, axis)


def _roll(x, shifts, dims):
    return roll(x, shifts, dims)


def _meshgrid(inputs, indexing="xy"):
    return meshgrid(*inputs, indexing=indexing)


def _eye(n, m, t):
    return eye(n, m, t)


ReverseV2 = class_form("ReverseV2", _reverse, axis=REQUIRED)
Roll = class_form("Roll", _roll, shifts=REQUIRED, dims=None)
Meshgrid = class_form("Meshgrid", _meshgrid, indexing="xy")
Diag = class_form("Diag", diag)
Trace = class_form("Trace", trace)
Eye = class_form("Eye", _eye)
