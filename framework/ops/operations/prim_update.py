"""Primitive classes that update or rearrange by index (N-d scatters, Parameter updates,
optimizer steps, padding, sequence reversal, diagonals) over the functional ops we have,
as MindSpore 2.10's ``mindspore.ops.operations`` spell them. The classes that
update a ``variable`` in place (``ScatterNdUpdate``, ``ScatterNdAdd``, ``ScatterAdd``,
``ApplyMomentum``, ``ApplyGradientDescent``) assign the new value with ``ops.assign`` and
return the variable; the rest return new tensors. Gradients and graph mode are those of the
functional ops each one applies.

Contracts (``P.X(attrs)(inputs)``):

- ``TensorScatterUpdate()(x, indices, updates)``: ``x`` with ``x[indices[j]] = updates[j]``
  (``indices``: ``(..., K)``, addressing ``x``'s first ``K`` axes);
  ``ScatterNdUpdate(use_locking=True)(var, indices, updates)`` the same in place,
  ``ScatterNdAdd(use_locking=False)`` adding (repeated indices add up);
  ``ScatterAdd(use_locking=False)(var, indices, updates)``: rows ``indices`` of ``var`` plus
  ``updates`` (shape ``indices.shape + var.shape[1:]``);
- ``IndexPut(accumulate=0)(x1, x2, indices)``: ``x1`` with ``x1[indices] = x2`` (``indices``
  a tuple of 1-D index tensors for the leading axes, ``x2`` broadcast to the rows), added
  instead with ``accumulate`` (repeated indices add up);
- ``ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable,
  accumulation, learning_rate, gradient, momentum)``: ``acc = acc * momentum + gradient *
  gradient_scale``, ``variable -= lr * acc`` (Nesterov: ``lr * (gradient + momentum * acc)``);
  ``ApplyGradientDescent()(var, alpha, delta)``: ``var -= alpha * delta``;
- ``MirrorPad(mode='REFLECT')(x, paddings)``: ``paddings`` an ``(ndim, 2)`` constant of
  (before, after) per axis, ``'REFLECT'`` or ``'SYMMETRIC'`` (the edge repeated);
  ``PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value=None)``:
  PyTorch's order from the last axis (non-contiguous: all befores, then all afters);
- ``ReverseSequence(seq_dim, batch_dim=0)(x, seq_lengths)``: per batch entry ``b`` the first
  ``seq_lengths[b]`` entries along ``seq_dim`` reversed;
- ``EmbeddingLookup()(params, indices, offset)``: rows ``indices - offset`` of ``params``,
  zeros where that is out of range;
- ``DiagPart()(x)``: ``x`` of rank ``2k``, its diagonal ``x[i.., i..]`` (rank ``k``);
  ``FillDiagonal(fill_value, wrap=False)(x)``: NumPy's ``fill_diagonal``;
- ``Renorm(p, dim, maxnorm)(x)``: each slice along ``dim`` whose ``p``-norm exceeds
  ``maxnorm`` scaled to it (by ``maxnorm / (norm + 1e-7)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...mint import shape as mint_shape
from .. import functional as ops
from .._class_form import REQUIRED, class_form
from ..padding_modes import pad as pad_last_first


def _constant(value: Any, who: str) -> np.ndarray:
    """A constant argument (a tuple, list or tensor) as a NumPy array."""
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if isinstance(value, list | tuple):
        return np.asarray(value)
    raise TypeError(f"{who}: needs a constant tuple, list or tensor, got {type(value).__name__}")


def _nd_rows(who: str, x: Any, indices: Any, updates: Any) -> tuple[Any, Any, Any]:
    """``x`` as ``(P, R)`` rows, ``indices`` as ``(M, R)`` row numbers, ``updates`` as ``(M, R)``."""
    k = indices.shape[-1]
    if k > len(x.shape):
        raise ValueError(f"{who}: indices address {k} axes, input {tuple(x.shape)} has {len(x.shape)}")
    lead = tuple(x.shape[:k])
    rest = int(np.prod(x.shape[k:], dtype=np.int64))
    strides = np.cumprod((1, *lead[::-1]))[:-1][::-1].astype(np.int64)
    from ...common.tensor import Tensor

    linear = (ops.cast(indices, Tensor(strides).dtype) * Tensor(strides)).sum(-1)
    rows = ops.reshape(linear, (-1, 1))
    count = rows.shape[0]
    index = ops.broadcast_to(rows, (count, rest))
    return ops.reshape(x, (-1, rest)), index, ops.reshape(updates, (count, rest))


def _tensor_scatter_update(x: Any, indices: Any, updates: Any) -> Any:
    flat, index, rows = _nd_rows("TensorScatterUpdate", x, indices, updates)
    return ops.reshape(mint_shape.scatter(flat, 0, index, rows), tuple(x.shape))


def _scatter_nd_update(var: Any, indices: Any, updates: Any, *, use_locking: bool) -> Any:
    del use_locking
    return ops.assign(var, _tensor_scatter_update(var, indices, updates))


def _scatter_nd_add(var: Any, indices: Any, updates: Any, *, use_locking: bool) -> Any:
    del use_locking
    flat, index, rows = _nd_rows("ScatterNdAdd", var, indices, updates)
    return ops.assign(var, ops.reshape(mint_shape.scatter_add(flat, 0, index, rows), tuple(var.shape)))


def _scatter_add(var: Any, indices: Any, updates: Any, *, use_locking: bool) -> Any:
    del use_locking
    rows = ops.reshape(indices, (-1,))
    values = ops.reshape(updates, (rows.shape[0], *var.shape[1:]))
    return ops.assign(var, ops.index_add(var, rows, values, 0))


def _index_put(x1: Any, x2: Any, indices: Any, *, accumulate: int) -> Any:
    if not isinstance(indices, list | tuple) or not indices:
        raise TypeError(f"IndexPut: indices must be a non-empty tuple or list of tensors, got {indices!r}")
    index = ops.stack([ops.cast(i, indices[0].dtype) for i in indices], -1)
    updates = ops.broadcast_to(x2, (index.shape[0], *x1.shape[len(indices):]))
    flat, rows, values = _nd_rows("IndexPut", x1, index, updates)
    put = mint_shape.scatter_add if accumulate else mint_shape.scatter
    return ops.reshape(put(flat, 0, rows, values), tuple(x1.shape))


def _apply_momentum(variable: Any, accumulation: Any, learning_rate: Any, gradient: Any, momentum: Any, *,
                    use_nesterov: bool, use_locking: bool, gradient_scale: float) -> Any:
    del use_locking
    acc = accumulation * momentum + gradient * gradient_scale
    ops.assign(accumulation, acc)
    step = (gradient + acc * momentum) * learning_rate if use_nesterov else acc * learning_rate
    return ops.assign(variable, variable - step)


def _apply_gradient_descent(var: Any, alpha: Any, delta: Any) -> Any:
    return ops.assign(var, var - alpha * delta)


def _mirror_pad(x: Any, paddings: Any, *, mode: str) -> Any:
    pads = _constant(paddings, "MirrorPad").astype(np.int64)
    if pads.shape != (len(x.shape), 2):
        raise ValueError(f"MirrorPad: paddings must be ({len(x.shape)}, 2), got {pads.shape}")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"MirrorPad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    shift = 1 if mode == "REFLECT" else 0
    for axis, (before, after) in enumerate(pads.tolist()):
        n = x.shape[axis]
        index = np.concatenate([np.arange(before, 0, -1) - 1 + shift, np.arange(n),
                                n - 1 - shift - np.arange(after)])
        if before or after:
            from ...common.tensor import Tensor

            x = ops.gather(x, Tensor(index.astype(np.int32)), axis)
    return x


def _pad_v3(x: Any, paddings: Any, constant_value: Any = None, *, mode: str,
            paddings_contiguous: bool) -> Any:
    pads = [int(p) for p in _constant(paddings, "PadV3").ravel()]
    if not paddings_contiguous:
        half = len(pads) // 2
        pads = [p for pair in zip(pads[:half], pads[half:]) for p in pair]
    value = None
    if mode == "constant" and constant_value is not None:
        value = float(_constant(constant_value, "PadV3"))
    return pad_last_first(x, tuple(pads), mode, value)


def _reverse_sequence(x: Any, seq_lengths: Any, *, seq_dim: int, batch_dim: int) -> Any:
    from ...common.tensor import Tensor

    rank = len(x.shape)
    seq_shape, batch_shape = [1] * rank, [1] * rank
    seq_shape[seq_dim], batch_shape[batch_dim] = x.shape[seq_dim], x.shape[batch_dim]
    steps = Tensor(np.arange(x.shape[seq_dim], dtype=np.int64).reshape(seq_shape))
    shape = np.broadcast_shapes(tuple(seq_shape), tuple(batch_shape))
    steps = ops.broadcast_to(steps, shape)
    lengths = ops.broadcast_to(ops.reshape(ops.cast(seq_lengths, steps.dtype), tuple(batch_shape)), shape)
    source = ops.select(ops.less(steps, lengths), lengths - 1 - steps, steps)
    return mint_shape.gather(x, seq_dim, ops.broadcast_to(source, tuple(x.shape)))


def _embedding_lookup(params: Any, indices: Any, offset: Any) -> Any:
    local = indices - offset
    valid = ops.logical_and(ops.greater_equal(local, 0), ops.less(local, params.shape[0]))
    rows = ops.gather(params, ops.select(valid, local, ops.zeros_like(local)), 0)
    mask = ops.reshape(valid, (*valid.shape, *([1] * (len(params.shape) - 1))))
    return ops.select(ops.broadcast_to(mask, rows.shape), rows, ops.zeros_like(rows))


def _diag_part(x: Any) -> Any:
    rank = len(x.shape)
    half = tuple(x.shape[: rank // 2])
    if rank % 2 or rank == 0 or half != tuple(x.shape[rank // 2:]):
        raise ValueError(f"DiagPart: needs a rank-2k input of shape S + S, got {tuple(x.shape)}")
    from ...common.tensor import Tensor

    size = int(np.prod(half, dtype=np.int64))
    square = ops.reshape(x, (size, size))
    eye = Tensor(np.eye(size, dtype=bool))
    return ops.reshape(ops.select(eye, square, ops.zeros_like(square)).sum(1), half)


def _fill_diagonal(x: Any, *, fill_value: float, wrap: bool) -> Any:
    mask = np.zeros(tuple(x.shape), bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    from ...common.tensor import Tensor

    return ops.select(Tensor(mask), ops.full_like(x, fill_value), x)


def _renorm(x: Any, *, p: float, dim: int, maxnorm: float) -> Any:
    axes = tuple(a for a in range(len(x.shape)) if a != dim % len(x.shape))
    norms = ops.norm(x, p, axes, True)
    factor = ops.select(ops.greater(norms, maxnorm), maxnorm / (norms + 1e-7), ops.ones_like(norms))
    return x * factor


TensorScatterUpdate = class_form("TensorScatterUpdate", _tensor_scatter_update)
ScatterNdUpdate = class_form("ScatterNdUpdate", _scatter_nd_update, use_locking=True)
ScatterNdAdd = class_form("ScatterNdAdd", _scatter_nd_add, use_locking=False)
ScatterAdd = class_form("ScatterAdd", _scatter_add, use_locking=False)
ApplyMomentum = class_form("ApplyMomentum", _apply_momentum, use_nesterov=False, use_locking=False,
                           gradient_scale=1.0)
ApplyGradientDescent = class_form("ApplyGradientDescent", _apply_gradient_descent)
IndexPut = class_form("IndexPut", _index_put, accumulate=0)
MirrorPad = class_form("MirrorPad", _mirror_pad, mode="REFLECT")
PadV3 = class_form("PadV3", _pad_v3, mode="constant", paddings_contiguous=True)
ReverseSequence = class_form("ReverseSequence", _reverse_sequence, seq_dim=REQUIRED, batch_dim=0)
EmbeddingLookup = class_form("EmbeddingLookup", _embedding_lookup)
DiagPart = class_form("DiagPart", _diag_part)
FillDiagonal = class_form("FillDiagonal", _fill_diagonal, fill_value=REQUIRED, wrap=False)
Renorm = class_form("Renorm", _renorm, p=REQUIRED, dim=REQUIRED, maxnorm=REQUIRED)

__all__ = ["ApplyGradientDescent", "ApplyMomentum", "DiagPart", "EmbeddingLookup", "FillDiagonal", "IndexPut",
           "MirrorPad", "PadV3", "Renorm", "ReverseSequence", "ScatterAdd", "ScatterNdAdd", "ScatterNdUpdate",
           "TensorScatterUpdate"]
