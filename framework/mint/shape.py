"""``mint``'s shape, join/split and indexing functions (``dim`` keywords) on ``framework.ops``.

Contracts, as MindSpore 2.10's ``mint`` (PyTorch's semantics):

- ``narrow(input, dim, start, length)``, ``select(input, dim, index)`` (the axis removed),
  ``split(tensor, split_size_or_sections, dim)`` (an int is the size of each piece);
- ``flatten(input, start_dim=0, end_dim=-1)``; ``transpose(input, dim0, dim1)`` swaps two
  axes, ``permute(input, dims)`` reorders all; ``meshgrid`` defaults to ``'ij'``;
- ``gather(input, dim, index)`` / ``scatter(input, dim, index, src)`` /
  ``scatter_add``: PyTorch's element-wise indexing along ``dim`` (``index`` has the
  input's rank); built from flat indices on ``ops.gather`` / ``ops.scatter_update`` /
  ``ops.index_add``, so gradients and graph mode follow those;
- ``nonzero`` / ``masked_select`` / ``where(condition)`` have value-dependent shapes: the
  positions are computed on the host (graph mode splits the compiled function there,
  ``ops/host_split.py``); indices are int64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as ops
from ..ops._utils import argument_error
from ..ops.host_split import host_computed
from ._util import as_tensor, one_dim


def cat(tensors, dim=0):
    return ops.concat(tuple(tensors), dim)


concat = cat


def stack(tensors, dim=0):
    return ops.stack(tuple(tensors), dim)


def hstack(tensors):
    return ops.hstack(tuple(tensors))


def dstack(tensors):
    return ops.dstack(tuple(tensors))


def narrow(input, dim, start, length):  # noqa: A002
    return ops.narrow(input, one_dim("narrow", dim, input.ndim), int(start), int(length))


def select(input, dim, index):  # noqa: A002
    """``input`` at ``index`` along ``dim``, that axis removed."""
    axis = one_dim("select", dim, input.ndim)
    size = input.shape[axis]
    if not -size <= int(index) < size:
        raise argument_error("select", IndexError(f"index {index} is out of range for size {size}"))
    return ops.squeeze(ops.narrow(input, axis, int(index) % size, 1), axis)


def split(tensor, split_size_or_sections, dim=0):
    return ops.split(tensor, split_size_or_sections, one_dim("split", dim, tensor.ndim))


def chunk(input, chunks, dim=0):  # noqa: A002
    return ops.chunk(input, chunks, one_dim("chunk", dim, input.ndim))


def unbind(input, dim=0):  # noqa: A002
    return ops.unbind(input, one_dim("unbind", dim, input.ndim))


def transpose(input, dim0, dim1):  # noqa: A002
    return ops.swapaxes(input, one_dim("transpose", dim0, input.ndim),
                        one_dim("transpose", dim1, input.ndim))


swapaxes = transpose


def permute(input, dims):  # noqa: A002
    return ops.transpose(input, tuple(one_dim("permute", d, input.ndim) for d in dims))


def t(input):  # noqa: A002
    return input if input.ndim < 2 else transpose(input, 0, 1)


def reshape(input, shape):  # noqa: A002
    return ops.reshape(input, tuple(shape))


def ravel(input):  # noqa: A002
    return ops.reshape(input, (-1,))


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """Axes ``start_dim..end_dim`` merged into one (a 0-d input becomes 1-d)."""
    if input.ndim == 0:
        return ops.reshape(input, (1,))
    start = one_dim("flatten", start_dim, input.ndim)
    end = one_dim("flatten", end_dim, input.ndim)
    if start > end:
        raise argument_error("flatten", ValueError(f"start_dim {start_dim} is after end_dim {end_dim}"))
    shape = tuple(input.shape)
    return ops.reshape(input, shape[:start] + (-1,) + shape[end + 1:])


def squeeze(input, dim=None):  # noqa: A002
    """Size-1 axes removed (all, or those of ``dim`` that have size 1)."""
    if dim is None:
        return ops.squeeze(input)
    axes = (dim,) if isinstance(dim, int) else tuple(dim)
    keep = tuple(a % input.ndim for a in axes if input.shape[a] == 1)
    return ops.squeeze(input, keep) if keep else input


def unsqueeze(input, dim):  # noqa: A002
    return ops.expand_dims(input, dim)


def flip(input, dims):  # noqa: A002
    return ops.flip(input, tuple(dims) if not isinstance(dims, int) else (dims,))


def roll(input, shifts, dims=None):  # noqa: A002
    return ops.roll(input, shifts, dims)


def tile(input, dims):  # noqa: A002
    dims = tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return ops.tile(input, dims)


def broadcast_to(input, shape):  # noqa: A002
    return ops.broadcast_to(input, tuple(shape))


def tril(input, diagonal=0):  # noqa: A002
    return ops.tril(input, diagonal)


def triu(input, diagonal=0):  # noqa: A002
    return ops.triu(input, diagonal)


def diag(input, diagonal=0):  # noqa: A002
    if diagonal != 0:
        raise argument_error("diag", ValueError("only diagonal=0 is supported"))
    return ops.diag(input)


def trace(input):  # noqa: A002
    return ops.trace(input)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing=indexing or "ij")


def repeat_interleave(input, repeats, dim=None, *, output_size=None):  # noqa: A002
    if dim is None:
        return ops.repeat_interleave(ops.reshape(input, (-1,)), repeats, 0)
    return ops.repeat_interleave(input, repeats, one_dim("repeat_interleave", dim, input.ndim))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    return ops.diff(input, n, dim, prepend, append)


def index_select(input, dim, index):  # noqa: A002
    return ops.gather(input, index, one_dim("index_select", dim, input.ndim))


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    return ops.index_add(input, index, source if alpha == 1 else source * alpha,
                         one_dim("index_add", dim, input.ndim))


def take(input, index):  # noqa: A002
    return ops.reshape(ops.gather(ops.reshape(input, (-1,)), ops.reshape(index, (-1,)), 0),
                       tuple(index.shape))


# -- PyTorch's gather/scatter along a dim, through flat indices -------------------------
def _flat_index(op: str, input: Any, dim: int, index: Any) -> Any:  # noqa: A002
    """Indices into ``input`` flattened, for ``index`` along ``dim`` (index's own shape)."""
    if index.ndim != input.ndim:
        raise argument_error(op, ValueError(
            f"index must have the input's rank {input.ndim}, got shape {tuple(index.shape)}"))
    strides = np.cumprod((tuple(input.shape[1:]) + (1,))[::-1])[::-1]
    base = np.zeros(tuple(index.shape), np.int64)
    for axis, size in enumerate(index.shape):
        if axis != dim:
            shape = [1] * index.ndim
            shape[axis] = size
            base = base + np.arange(size, dtype=np.int64).reshape(shape) * int(strides[axis])
    return ops.reshape(ops.cast(index, mstype.int64) * int(strides[dim]) + Tensor(base), (-1,))


def gather(input, dim, index):  # noqa: A002
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on)."""
    axis = one_dim("gather", dim, input.ndim)
    flat = _flat_index("gather", input, axis, index)
    return ops.reshape(ops.gather(ops.reshape(input, (-1,)), flat, 0), tuple(index.shape))


def _source(src: Any, index: Any, like: Any) -> Any:
    if not isinstance(src, Tensor):
        return ops.fill(like.dtype, tuple(index.shape), src).reshape((-1,))
    if tuple(src.shape) != tuple(index.shape):
        src = src[tuple(slice(0, n) for n in index.shape)]
    return ops.reshape(ops.cast(src, like.dtype), (-1,))


def scatter(input, dim, index, src=None, *, value=None, reduce=None):  # noqa: A002
    """A copy of ``input`` with ``src`` (a tensor, or a number) written at ``index`` along
    ``dim``; ``reduce='add'`` adds instead."""
    if reduce not in (None, "add"):
        raise argument_error("scatter", ValueError(f"reduce must be None or 'add', got {reduce!r}"))
    src = value if src is None else src
    axis = one_dim("scatter", dim, input.ndim)
    flat = _flat_index("scatter", input, axis, index)
    updates = _source(src, index, input)
    flat_input = ops.reshape(input, (-1,))
    out = ops.index_add(flat_input, flat, updates, 0) if reduce == "add" else \
        ops.scatter_update(flat_input, flat, updates)
    return ops.reshape(out, tuple(input.shape))


def scatter_add(input, dim, index, src):  # noqa: A002
    return scatter(input, dim, index, src, reduce="add")


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """The int64 coordinates of the nonzero elements (computed on the host: graph mode
    splits the compiled function here)."""
    if as_tuple:
        return host_computed(
            "nonzero", lambda a: [c.astype(np.int64) for c in np.nonzero(np.atleast_1d(a))], input)
    return host_computed("nonzero", lambda a: (np.stack(np.nonzero(np.atleast_1d(a)), -1)
                                               .astype(np.int64).reshape(-1, max(a.ndim, 1)),),
                         input)[0]


def masked_select(input, mask):  # noqa: A002
    """The elements where ``mask`` (broadcast; any dtype, read as bool) holds, as a 1-d
    tensor: ``ops.masked_select`` (which wants a bool mask) on the mask as bool."""
    mask = as_tensor(mask)
    return ops.masked_select(input, mask if mask.dtype == mstype.bool_ else ops.cast(mask, mstype.bool_))


def where(condition, input=None, other=None):  # noqa: A002
    """``where(condition, input, other)``: element-wise choice; ``where(condition)``:
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        input = as_tensor(input, other)
    elif isinstance(input, Tensor) and not isinstance(other, Tensor):
        other = as_tensor(other, input) if isinstance(other, int) or ops.is_floating_point(input) \
            else Tensor(other, mstype.float32)
    return ops.where(condition, input, other)


__all__ = sorted(n for n, v in list(globals().items())
                 if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == __name__)
