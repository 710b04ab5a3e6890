"""Array ops of MindSpore 2.x built from existing primitives (no primitive of their own).

Each is an exact composition that graph mode lowers to plain strided slices, reshapes,
broadcasts and concatenations (TVM fuses them into their consumers), and whose gradient
is the composition's:

- ``split`` / ``Split`` / ``chunk`` / ``unstack`` / ``Unstack``: ``Slice`` per piece
  (``unstack`` then drops the axis with ``Reshape``);
- ``stack`` / ``Stack``: ``ExpandDims`` of each tensor, then one ``Concat``;
- ``tile`` / ``Tile``: ``Reshape`` to interleaved unit axes, ``BroadcastTo`` the multiples,
  ``Reshape`` back (gradient: the broadcast's reduction);
- ``arange``: a constant tensor, as ``ops.zeros`` (a traced function bakes it in).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import NoAttributes
from ._utils import argument_error, normalize_axis
from .shape_ops import broadcast_to, concat, expand_dims, reshape, slice_


def _axis(op: str, x: Any, axis: int) -> int:
    try:
        return normalize_axis(int(axis), len(x.shape))
    except (ValueError, IndexError) as error:
        raise argument_error(op, error) from None


def _pieces(x: Any, axis: int, sizes: list[int]) -> tuple:
    shape, out, start = tuple(x.shape), [], 0
    for size in sizes:
        begin = [0] * len(shape)
        begin[axis] = start
        extent = list(shape)
        extent[axis] = size
        out.append(slice_(x, tuple(begin), tuple(extent)))
        start += size
    return tuple(out)


def split(tensor, split_size_or_sections, axis=0):
    """``ops.split(tensor, split_size_or_sections, axis=0)``: an int cuts pieces of that size
    along ``axis`` (the last one smaller when it does not divide); a list/tuple gives each
    piece's size (they must add up to the axis)."""
    ax = _axis("split", tensor, axis)
    dim = tensor.shape[ax]
    if isinstance(split_size_or_sections, numbers.Integral) and not isinstance(
            split_size_or_sections, bool):
        size = int(split_size_or_sections)
        if size <= 0:
            raise argument_error("split", ValueError(f"split size must be > 0, got {size}"))
        sizes = [min(size, dim - s) for s in range(0, dim, size)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != dim or any(s < 0 for s in sizes):
            raise argument_error("split", ValueError(
                f"sections {sizes} must be >= 0 and add up to axis {ax}'s size {dim}"))
    return _pieces(tensor, ax, sizes)


class Split:
    """``ops.Split(axis=0, output_num=1)(x)``: ``output_num`` equal pieces along ``axis``."""

    def __init__(self, axis: int = 0, output_num: int = 1) -> None:
        self.axis, self.output_num = int(axis), int(output_num)
        if self.output_num < 1:
            raise argument_error("Split", ValueError(f"output_num must be >= 1, got {output_num}"))

    def __call__(self, x: Any) -> tuple:
        ax = _axis("Split", x, self.axis)
        dim = x.shape[ax]
        if dim % self.output_num:
            raise argument_error("Split", ValueError(
                f"axis {ax} of size {dim} does not split into {self.output_num} equal pieces"))
        return _pieces(x, ax, [dim // self.output_num] * self.output_num)


def chunk(input, chunks, axis=0):  # noqa: A002  (MindSpore's name)
    """``ops.chunk(input, chunks, axis=0)``: pieces of ``ceil(size / chunks)`` along
    ``axis`` (the last one smaller; fewer than ``chunks`` when the size runs out)."""
    if isinstance(chunks, bool) or not isinstance(chunks, numbers.Integral) or chunks < 1:
        raise argument_error("chunk", ValueError(f"chunks must be an int >= 1, got {chunks!r}"))
    dim = input.shape[_axis("chunk", input, axis)]
    return split(input, max(-(-dim // int(chunks)), 1), axis)


def stack(tensors, axis=0):
    """``ops.stack(tensors, axis=0)``: tensors of one shape joined along a new axis."""
    tensors = tuple(tensors)
    if not tensors:
        raise argument_error("stack", ValueError("needs at least one tensor"))
    shape = tuple(tensors[0].shape)
    for t in tensors[1:]:
        if tuple(t.shape) != shape:
            raise argument_error("stack", ValueError(
                f"all tensors must have one shape, got {shape} and {tuple(t.shape)}"))
    try:
        ax = normalize_axis(int(axis), len(shape) + 1)
    except (ValueError, IndexError) as error:
        raise argument_error("stack", error) from None
    return concat([expand_dims(t, ax) for t in tensors], ax)


class Stack:
    """``ops.Stack(axis=0)(tensors)``."""

    def __init__(self, axis: int = 0) -> None:
        self.axis = int(axis)

    def __call__(self, tensors: Any, *more: Any) -> Any:
        return stack((tensors, *more) if more else tensors, self.axis)


def unstack(input_x, axis=0):
    """``ops.unstack(input_x, axis=0)``: the tensors along ``axis``, that axis removed."""
    ax = _axis("unstack", input_x, axis)
    shape = tuple(input_x.shape)
    rest = shape[:ax] + shape[ax + 1:]
    return tuple(reshape(p, rest) for p in _pieces(input_x, ax, [1] * shape[ax]))


class Unstack:
    """``ops.Unstack(axis=0, num=None)(x)``."""

    def __init__(self, axis: int = 0, num: int | None = None) -> None:
        self.axis, self.num = int(axis), num

    def __call__(self, x: Any) -> tuple:
        out = unstack(x, self.axis)
        if self.num is not None and len(out) != self.num:
            raise argument_error("Unstack", ValueError(
                f"num={self.num} but axis {self.axis} has size {len(out)}"))
        return out


def tile(input, multiples):  # noqa: A002
    """``ops.tile(input, multiples)``: ``input`` repeated ``multiples[i]`` times along axis
    i. Shorter ``multiples`` get leading 1s; a shorter input gets leading unit axes."""
    reps = tuple(int(m) for m in multiples)
    if any(m < 0 for m in reps):
        raise argument_error("tile", ValueError(f"multiples must be >= 0, got {reps}"))
    shape = tuple(input.shape)
    rank = max(len(shape), len(reps))
    shape = (1,) * (rank - len(shape)) + shape
    reps = (1,) * (rank - len(reps)) + reps
    if all(m == 1 for m in reps):
        return reshape(input, shape)
    unit = tuple(v for d in shape for v in (1, d))
    wide = tuple(v for m, d in zip(reps, shape) for v in (m, d))
    out = broadcast_to(reshape(input, unit), wide)
    return reshape(out, tuple(m * d for m, d in zip(reps, shape)))


class Tile(NoAttributes):
    """``ops.Tile()(input_x, multiples)``."""

    def __call__(self, input_x: Any, multiples: Any) -> Any:
        return tile(input_x, multiples)


def _scalar(name: str, value: Any) -> Any:
    if isinstance(value, Tensor):
        if value.shape != ():
            raise argument_error("arange", ValueError(f"{name} must be a 0-d tensor, got shape "
                                                      f"{value.shape}"))
        return value.asnumpy().item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise argument_error("arange", TypeError(f"{name} must be an int or a float, got "
                                                 f"{value!r}"))
    return value


def arange(start=0, end=None, step=1, *, dtype=None):
    """``ops.arange(start=0, end=None, step=1, *, dtype=None)``: ``[start, end)`` by
    ``step`` (``end=None``: ``[0, start)``); int64 when all are ints, else float32."""
    if end is None:
        start, end = 0, start
    start, end, step = _scalar("start", start), _scalar("end", end), _scalar("step", step)
    if step == 0:
        raise argument_error("arange", ValueError("step must not be 0"))
    if (end - start) * step < 0:
        raise argument_error("arange", ValueError(
            f"step {step} moves away from end {end} (start {start})"))
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = mstype.int64 if ints else mstype.float32
    dtype = mstype.to_dtype(dtype)
    if dtype.is_floating:  # start + i * step, as PyTorch and MindSpore compute it
        count = max(int(np.ceil((end - start) / step)), 0)
        values = start + step * np.arange(count, dtype=np.float64)
    else:
        values = np.arange(start, end, step)
    return Tensor(values.astype(dtype.np), dtype)
