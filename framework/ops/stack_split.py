"""Array functions (stacking, splitting, rotating, selecting): compositions of
Concat, Reshape, Transpose, ReverseV2, Gather and slices, so both modes and the gradients
come from those primitives' rules.

Contracts (as MindSpore's / NumPy's of the same names):

- ``atleast_1d/2d/3d(inputs)``: a tensor or a sequence of them, each given leading (and
  for 3-D, trailing) axes of size 1 up to that rank;
- ``hstack`` (axis 1, axis 0 for 1-D), ``vstack``/``row_stack`` (1-D as rows),
  ``dstack`` (axis 2 after ``atleast_3d``), ``column_stack`` (1-D as columns);
- ``tensor_split(input, indices_or_sections, axis=0)``: an int ``n`` cuts ``n`` pieces,
  the first ``size % n`` one longer; a sequence gives the cut positions;
  ``hsplit``/``vsplit``/``dsplit``: along axis 1 (0 for 1-D), 0 and 2;
- ``rot90(input, k, dims)``: ``k`` quarter turns from ``dims[0]`` towards ``dims[1]``;
- ``diagflat(input, offset=0)``: the flattened input on a diagonal of a square matrix;
- ``index_select(input, axis, index)``: ``gather`` along ``axis`` with a 1-D index;
- ``linspace``/``logspace``: float32 by default; ``tril_indices``/``triu_indices``: a
  ``(2, n)`` int64 tensor (NumPy's order); ``cartesian_prod(*inputs)``: ``(N, k)`` rows in
  'ij' order; ``block_diag(*inputs)``: the blocks (1-D as rows) on a diagonal;
  ``msort``: sorted along axis 0; ``matrix_power(input, n)``: ``n >= 0`` products;
  ``ldexp(x, other)``: ``x * 2^other``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from . import array_layout as _array_layout
from . import elementwise as _elementwise
from .array_layout import diag, flip, meshgrid
from .array_ops import stack
from .creation import ones
from .elementwise import cast, pow
from .nn_ops import matmul
from .scatter_gather import gather
from .shape_ops import concat, pad, reshape, transpose
from .sorting import sort


def _many(inputs: Any) -> tuple[bool, tuple]:
    if isinstance(inputs, Tensor):
        return True, (inputs,)
    return False, tuple(inputs)


def _atleast(inputs: Any, rank: int) -> Any:
    single, tensors = _many(inputs)
    out = []
    for t in tensors:
        shape = tuple(t.shape)
        if len(shape) < rank:
            if rank == 3 and len(shape) == 2:
                shape = (*shape, 1)
            elif rank == 3 and len(shape) == 1:
                shape = (1, *shape, 1)
            else:
                shape = (1,) * (rank - len(shape)) + shape
            t = reshape(t, shape)
        out.append(t)
    return out[0] if single else tuple(out)


def atleast_1d(inputs):
    return _atleast(inputs, 1)


def atleast_2d(inputs):
    return _atleast(inputs, 2)


def atleast_3d(inputs):
    return _atleast(inputs, 3)


def hstack(tensors):
    tensors = tuple(tensors)
    return concat(tensors, 0 if all(len(t.shape) == 1 for t in tensors) else 1)


def vstack(inputs):
    return concat(_atleast(tuple(inputs), 2), 0)


row_stack = vstack


def dstack(tensors):
    return concat(_atleast(tuple(tensors), 3), 2)


def column_stack(tensors):
    tensors = [reshape(t, (-1, 1)) if len(t.shape) <= 1 else t for t in tensors]
    return concat(tensors, 1)


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002  (MindSpore's names)
    size = input.shape[axis]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n < 1:
            raise ValueError(f"tensor_split: sections must be >= 1, got {n}")
        sizes = [size // n + (1 if i < size % n else 0) for i in range(n)]
        cuts = [sum(sizes[:i]) for i in range(1, n)]
    else:
        cuts = [min(max(int(c), 0), size) for c in indices_or_sections]
    bounds = [0, *cuts, size]
    lead = (slice(None),) * (axis % len(input.shape))
    return tuple(input[(*lead, slice(a, max(a, b)))] for a, b in zip(bounds, bounds[1:]))


def hsplit(input, indices_or_sections):  # noqa: A002
    return tensor_split(input, indices_or_sections, 0 if len(input.shape) == 1 else 1)


def vsplit(input, indices_or_sections):  # noqa: A002
    if len(input.shape) < 2:
        raise ValueError(f"vsplit: input must be at least 2-D, got {tuple(input.shape)}")
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):  # noqa: A002
    if len(input.shape) < 3:
        raise ValueError(f"dsplit: input must be at least 3-D, got {tuple(input.shape)}")
    return tensor_split(input, indices_or_sections, 2)


def rot90(input, k, dims):  # noqa: A002
    rank = len(input.shape)
    a, b = (d % rank for d in dims)
    if a == b or len(dims) != 2:
        raise ValueError(f"rot90: dims must be two different axes, got {dims}")
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return flip(flip(input, (a,)), (b,))
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose(flip(input, (b,)), tuple(perm))
    return flip(transpose(input, tuple(perm)), (b,))


def diagflat(input, offset=0):  # noqa: A002
    d = diag(reshape(input, (-1,)))
    if offset == 0:
        return d
    n = abs(offset)
    return pad(d, ((0, n), (n, 0)) if offset > 0 else ((n, 0), (0, n)))


def index_select(input, axis, index):  # noqa: A002
    if len(index.shape) != 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {tuple(index.shape)}")
    return gather(input, index, axis)


# -- creation and assembly: linspace, logspace, index triangles, products of sets ---------
def linspace(start, end, steps):
    """``steps`` float32 values from ``start`` to ``end`` (both included), Python numbers
    or 0-d tensors."""
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"linspace: steps must be an int >= 1, got {steps!r}")
    ramp = Tensor((np.arange(steps) / max(steps - 1, 1)).astype(np.float32))
    if not isinstance(start, Tensor) and not isinstance(end, Tensor):
        return Tensor(np.linspace(float(start), float(end), steps).astype(np.float32))
    return ones((steps,)) * start + ramp * (end - start)


def logspace(start, end, steps, base=10, *, dtype=None):
    values = pow(float(base), linspace(start, end, steps))
    return cast(values, dtype or mstype.float32)


def _indices(rows: np.ndarray, cols: np.ndarray, dtype: Any) -> Any:
    return Tensor(np.stack([rows, cols]), dtype or mstype.int64)


def tril_indices(row, col, offset=0, *, dtype=None):
    return _indices(*np.tril_indices(row, offset, col), dtype)


def triu_indices(row, col, offset=0, *, dtype=None):
    return _indices(*np.triu_indices(row, offset, col), dtype)


def cartesian_prod(*inputs):
    grids = meshgrid(*inputs, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def block_diag(*inputs):
    blocks = [reshape(t, (1, -1)) if len(t.shape) < 2 else t for t in inputs]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(pad(b, ((0, 0), (left, width - left - b.shape[1]))))
        left += b.shape[1]
    return concat(rows, 0)


def msort(input):  # noqa: A002
    return sort(input, 0)[0]


def matrix_power(input, n):  # noqa: A002
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"matrix_power: n must be an int >= 0 (no inverse), got {n!r}")
    if n == 0:
        identity = _array_layout.eye(input.shape[-1])
        batch = (1,) * (len(input.shape) - 2) + tuple(input.shape[-2:])
        return _elementwise.cast(reshape(identity, batch) + input * 0, input.dtype)
    out = input
    for _ in range(n - 1):
        out = matmul(out, input)
    return out


def ldexp(x, other):
    return x * pow(2.0, other)
