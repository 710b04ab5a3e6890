"""Sequences along an axis: reversed (whole or per-row prefixes), repeated, combined,
counted (``range``) and masked by length (``sequence_mask``).

Reorderings read their input with ``Gather``/``GatherElements`` at positions computed on
the host (or, for ``reverse_sequence``'s lengths, with framework ops), so gradients and
graph mode are those primitives'. ``range`` and ``sequence_mask`` without ``maxlen`` have
value-dependent lengths: they need their inputs' values (PyNative, or constants).
"""

from __future__ import annotations

import builtins
import itertools
from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import argument_error, one_dim
from .array_layout import flip, repeat_interleave
from .elementwise import cast, less, select
from .scatter_elements import GatherElements
from .scatter_gather import gather
from .shape_ops import broadcast_to, expand_dims, reshape


def _tensor(array: Any) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _value(op: str, name: str, value: Any) -> Any:
    """A Python number from ``value`` (a number or a tensor with its values at hand)."""
    data = getattr(value, "_data", value)
    if not isinstance(data, np.ndarray | np.generic | int | float | bool):
        raise argument_error(op, RuntimeError(
            f"{name} decides the output's shape, so it needs its value: graph mode (jit) "
            "cannot compile it from a traced tensor; call it in PyNative mode"))
    array = np.asarray(data)
    if array.size != 1:
        raise argument_error(op, ValueError(f"{name} must be one number, got shape {array.shape}"))
    return array.reshape(()).item()


def reverse(x, axis):
    """``x`` reversed along each axis of ``axis`` (MindSpore's ``ReverseV2``)."""
    return flip(x, axis)


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """Per entry ``b`` along ``batch_dim``, its first ``seq_lengths[b]`` entries along
    ``seq_dim`` reversed (the rest kept)."""
    ndim = len(x.shape)
    s, b = one_dim("reverse_sequence", seq_dim, ndim), one_dim("reverse_sequence", batch_dim, ndim)
    if s == b:
        raise argument_error("reverse_sequence", ValueError("seq_dim and batch_dim must differ"))
    if tuple(seq_lengths.shape) != (x.shape[b],):
        raise argument_error("reverse_sequence", ValueError(
            f"seq_lengths of shape {tuple(seq_lengths.shape)} must have one length per entry of "
            f"batch_dim ({x.shape[b]})"))
    data = getattr(seq_lengths, "_data", None)
    if isinstance(data, np.ndarray) and ((data < 0) | (data > x.shape[s])).any():
        raise argument_error("reverse_sequence", ValueError(
            f"seq_lengths {data.tolist()} must lie in [0, {x.shape[s]}] (the size of seq_dim)"))
    steps, lengths, plane = [1] * ndim, [1] * ndim, [1] * ndim
    steps[s] = plane[s] = x.shape[s]
    lengths[b] = plane[b] = x.shape[b]
    position = broadcast_to(_tensor(np.arange(x.shape[s], dtype=np.int64).reshape(steps)), tuple(plane))
    length = broadcast_to(reshape(cast(seq_lengths, mstype.int64), tuple(lengths)), tuple(plane))
    source = select(less(position, length), length - 1 - position, position)
    return GatherElements(s)(x, broadcast_to(source, tuple(x.shape)))


def repeat_elements(x, rep, axis=0):
    """Each entry of ``x`` along ``axis`` repeated ``rep`` times in place."""
    if not isinstance(rep, int) or isinstance(rep, bool) or rep < 1:
        raise argument_error("repeat_elements", ValueError(f"rep must be a positive int, got {rep!r}"))
    return repeat_interleave(x, rep, one_dim("repeat_elements", axis, len(x.shape)))


def combinations(input, r=2, with_replacement=False):  # noqa: A002  (MindSpore's names)
    """The length-``r`` combinations of a 1-d ``input``'s entries, one per row."""
    if len(input.shape) != 1:
        raise argument_error("combinations", ValueError(
            f"input must be 1-d, got shape {tuple(input.shape)}"))
    if not isinstance(r, int) or r < 0:
        raise argument_error("combinations", ValueError(f"r must be an int >= 0, got {r!r}"))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(builtins.range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return gather(input, _tensor(rows), 0)


def range(start, end, step, maxlen=1000000):  # noqa: A001  (MindSpore's name)
    """``start, start + step, ...`` below ``end`` (above it for a negative step): int64 for
    integers, float32 otherwise; at most ``maxlen`` entries."""
    values = [_value("range", n, v) for n, v in (("start", start), ("end", end), ("step", step))]
    if values[2] == 0:
        raise argument_error("range", ValueError("step must not be 0"))
    integral = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    out = np.arange(*values, dtype=np.int64 if integral else np.float64)
    if out.size > maxlen:
        raise argument_error("range", ValueError(
            f"the range has {out.size} entries, more than maxlen={maxlen}"))
    return _tensor(out if integral else out.astype(np.float32))


def sequence_mask(lengths, maxlen=None):
    """``mask[..., j] = j < lengths[...]``: one bool row of ``maxlen`` entries per length
    (``maxlen`` None: the largest length, which needs the lengths' values)."""
    if maxlen is None:
        data = getattr(lengths, "_data", None)
        if not isinstance(data, np.ndarray):
            raise argument_error("sequence_mask", RuntimeError(
                "without maxlen the mask's length is the largest length, a value graph mode "
                "(jit) cannot compile from a traced tensor; pass maxlen"))
        maxlen = int(data.max()) if data.size else 0
    maxlen = int(_value("sequence_mask", "maxlen", maxlen))
    if maxlen < 0:
        raise argument_error("sequence_mask", ValueError(f"maxlen must be >= 0, got {maxlen}"))
    positions = _tensor(np.arange(maxlen, dtype=np.int64))
    return less(positions, expand_dims(cast(lengths, mstype.int64), -1))
