"""Batching rules for indexing, convolution-like and normalization primitives (the
contract is :mod:`framework.autograd.batching_rules`' docstring).

- ``Gather``/``IndexAdd``/``ScatterUpdate``: with unbatched indices the batch is one more
  leading axis of the data (``axis + 1``). With batched indices each example's indices
  are offset into its own block of the data flattened over (batch, indexed axis):
  ``index + example * n``, negative indices wrapped first and every index checked
  against the per-example axis size (the same error as unbatched, in both modes).
- ``Conv2D``/``GroupConv2D``/``Conv2DBackpropInput``/``GroupConv2DBackpropInput``, the
  pools and their gradients: the batch is folded into N (``(B, N, C, H, W) ->
  (B*N, C, H, W)``); only with an unbatched weight. The filter gradients (per example,
  they would need one weight gradient per example) have no rule.
- ``LayerNorm`` with unbatched ``gamma``/``beta``: its axes shift by one. ``LayerNormGrad``
  (per-example ``dgamma``) has no rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops._utils import normalize_axis
from ..ops.conv import Conv2D, Conv2DBackpropInput
from ..ops.elementwise import Add, Less, Select
from ..ops.group_conv import GroupConv2D, GroupConv2DBackpropInput
from ..ops.layer_norm import LayerNorm
from ..ops.pool import AvgPool, AvgPoolBackprop, MaxPool, MaxPoolGrad
from ..ops.range_check import check_range
from ..ops.scatter_gather import Gather, IndexAdd, ScatterUpdate, _out_of_bounds
from ..ops.shape_ops import Transpose
from .batching_rules import Call, emit, fold, materialize, register, unfold, variant


def _moved(x: Any, source: int, target: int) -> Any:
    """``x`` with axis ``source`` moved to position ``target``."""
    if source == target:
        return x
    perm = [i for i in range(len(x.shape)) if i != source]
    perm.insert(target, source)
    return emit(Transpose(tuple(perm)), x)


def _flat_indices(call: Call, indices: Any, n: int, axis: int) -> Any:
    """Batched ``indices`` (B, *I) into axis ``axis`` (size ``n``) of each example, as
    indices into the (B*n) rows of the data flattened over (batch, axis)."""
    from ..common.tensor import Tensor

    check_range(indices, -n, n, _out_of_bounds(call.prim.name, n, axis))
    dtype = indices._data.dtype
    wrapped = emit(Select(), emit(Less(), indices, Tensor(np.array(0, dtype))),
                   emit(Add(), indices, Tensor(np.array(n, dtype))), indices)
    offsets = (np.arange(call.size) * n).astype(dtype).reshape((-1,) + (1,) * (len(indices.shape) - 1))
    return emit(Add(), wrapped, Tensor(offsets))


def _rows(x: Any, axis: int) -> Any:
    """Batched data ``(B, *X)`` with the per-example ``axis`` moved next to the batch and
    the two flattened: ``(B*n, *rest)``."""
    return fold(_moved(x, axis + 1, 1))


def _unrows(x: Any, size: int, axis: int) -> Any:
    """The inverse of :func:`_rows`."""
    return _moved(unfold(x, size), 1, axis + 1)


@register(Gather)
def _gather(call: Call) -> Any:
    x, indices = call.args
    rank = len(call.in_shape(0))
    axis = normalize_axis(call.prim.axis, rank)
    if not call.batched[1]:
        return emit(Gather(axis + 1), x, indices)
    if not call.batched[0]:  # the indices' batch axis lands at ``axis``: moved to the front
        return _moved(emit(Gather(axis), x, indices), axis, 0)
    n, index_rank = call.in_shape(0)[axis], len(call.in_shape(1))
    out = emit(Gather(0), _rows(x, axis), _flat_indices(call, indices, n, axis))
    # (B, *I, *X[:axis], *X[axis+1:]) -> (B, *X[:axis], *I, *X[axis+1:])
    perm = (0, *range(1 + index_rank, 1 + index_rank + axis), *range(1, 1 + index_rank),
            *range(1 + index_rank + axis, len(out.shape)))
    return emit(Transpose(perm), out) if perm != tuple(range(len(perm))) else out


@register(IndexAdd)
def _index_add(call: Call) -> Any:
    x, indices, y = call.args
    bx, bi, by = call.batched
    size = call.size
    axis = normalize_axis(call.prim.axis, len(call.in_shape(0)))
    x, y = materialize(x, bx, size), materialize(y, by, size)
    if not bi:
        return emit(IndexAdd(axis + 1), x, indices, y)
    n, index_rank = call.in_shape(0)[axis], len(call.in_shape(1))
    # y (B, *X[:axis], *I, *X[axis+1:]) -> (B, *I, *X[:axis], *X[axis+1:])
    perm = (0, *range(1 + axis, 1 + axis + index_rank), *range(1, 1 + axis),
            *range(1 + axis + index_rank, len(y.shape)))
    y = emit(Transpose(perm), y) if perm != tuple(range(len(perm))) else y
    out = emit(IndexAdd(0), _rows(x, axis), _flat_indices(call, indices, n, axis), y)
    return _unrows(out, size, axis)


@register(ScatterUpdate)
def _scatter_update(call: Call) -> Any:
    x, indices, updates = call.args
    bx, bi, bu = call.batched
    size = call.size
    x, updates = materialize(x, bx, size), materialize(updates, bu, size)
    indices = materialize(indices, bi, size)
    flat = _flat_indices(call, indices, call.in_shape(0)[0], 0)
    out = emit(ScatterUpdate(), fold(x), flat, updates)
    return unfold(out, size)


# -- convolutions and pools: the batch folded into N ---------------------------------------
def _weight_unbatched(batched: tuple[bool, ...]) -> bool:
    return not batched[1]


@register(Conv2D, GroupConv2D, when=_weight_unbatched)
def _conv(call: Call) -> Any:
    x, w = call.args
    return unfold(emit(call.prim, fold(x), w), call.size)


@register(Conv2DBackpropInput, GroupConv2DBackpropInput, when=_weight_unbatched)
def _conv_input_grad(call: Call) -> Any:
    dy, w = call.args
    dims = tuple(call.prim.input_shape)
    prim = variant(call.prim, input_shape=(call.size * dims[0],) + dims[1:])
    return unfold(emit(prim, fold(dy), w), call.size)


@register(MaxPool, AvgPool, MaxPoolGrad)
def _pool(call: Call) -> Any:
    args = [fold(materialize(a, b, call.size)) for a, b in zip(call.args, call.batched)]
    return unfold(emit(call.prim, *args), call.size)


@register(AvgPoolBackprop)
def _avg_pool_grad(call: Call) -> Any:
    dims = tuple(call.prim.input_shape)
    prim = variant(call.prim, input_shape=(call.size * dims[0],) + dims[1:])
    return unfold(emit(prim, fold(call.args[0])), call.size)


# -- normalization ---------------------------------------------------------------------------
def _params_unbatched(batched: tuple[bool, ...]) -> bool:
    return not any(batched[1:])


@register(LayerNorm, when=_params_unbatched)
def _layer_norm(call: Call) -> Any:
    rank = len(call.in_shape(0))
    prim = variant(call.prim,
                   begin_norm_axis=normalize_axis(call.prim.begin_norm_axis, rank) + 1,
                   begin_params_axis=normalize_axis(call.prim.begin_params_axis, rank) + 1)
    return emit(prim, *call.args)
