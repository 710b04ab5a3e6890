"""Functional nn operators: distances, channel rearrangements, GLU, channel
dropout and group norm; compositions of existing primitives (both modes and gradients from
their rules).

Contracts:

- ``cosine_similarity(x1, x2, dim=1, eps=1e-8)``: ``sum(x1 x2) / sqrt(max(|x1|^2 |x2|^2,
  eps^2))`` along ``dim`` (inputs broadcast);
- ``cdist(x1, x2, p=2.0)``: ``(B, P, M), (B, R, M) -> (B, P, R)`` (or without ``B``), the
  p-norm of each pair of rows' difference; ``p`` > 0 or ``inf``; the gradient at a zero
  distance is NaN for p < 1 as the formula's;
- ``pdist(input, p=2.0)``: ``(N, M) -> (N (N - 1) / 2,)``, the distances of rows
  ``i < j`` in row-major order;
- ``dist(input, other, p=2)``: the p-norm of ``input - other`` over all entries (a 0-d
  tensor); p = 0 counts the nonzero differences;
- ``pixel_shuffle(input, upscale_factor)``: ``(*, C r^2, H, W) -> (*, C, H r, W r)``;
  ``pixel_unshuffle`` is its inverse; ``channel_shuffle(x, groups)``: ``(N, C, *)`` with
  channels ``g * (C / groups) + k`` moved to ``k * groups + g``;
- ``glu(x, axis=-1)``: ``a * sigmoid(b)`` of the two halves along ``axis``;
- ``dropout1d/2d/3d(input, p=0.5, training=True)``: whole channels (one entry per
  ``(N, C)``) zeroed with probability ``p``, the rest scaled by ``1 / (1 - p)``; the
  identity when not training;
- ``group_norm(input, num_groups, weight=None, bias=None, eps=1e-5)``: ``(N, C, *)``
  normalized over each group of ``C / num_groups`` channels and the trailing axes (biased
  variance), then ``* weight + bias`` per channel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.tensor import Tensor
from .array_ops import split
from .creation import ones
from .elementwise import abs as _abs
from .elementwise import cast, maximum, not_equal, pow, sigmoid, sqrt
from .nn_ops import dropout
from .reduce import reduce_max, reduce_mean, reduce_sum
from .scatter_gather import gather
from .shape_ops import expand_dims, reshape, transpose


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    dot = reduce_sum(x1 * x2, dim)
    w = reduce_sum(x1 * x1, dim) * reduce_sum(x2 * x2, dim)
    return dot / sqrt(maximum(w, eps * eps))


def _p_norm(diff: Any, p: float, axis: Any) -> Any:
    if p == math.inf:
        return reduce_max(_abs(diff), axis)
    if p == 0:
        return reduce_sum(cast(not_equal(diff, 0.0), diff.dtype), axis)
    if p == 1:
        return reduce_sum(_abs(diff), axis)
    if p == 2:
        return sqrt(reduce_sum(diff * diff, axis))
    return pow(reduce_sum(pow(_abs(diff), float(p)), axis), 1.0 / p)


def _check_p(who: str, p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, int | float) or p < 0:
        raise ValueError(f"{who}: p must be a number >= 0, got {p!r}")
    return float(p)


def cdist(x1, x2, p=2.0):
    who = "cdist"
    p = _check_p(who, p)
    if len(x1.shape) not in (2, 3) or len(x2.shape) != len(x1.shape) or \
            x1.shape[-1] != x2.shape[-1] or x1.shape[:-2] != x2.shape[:-2]:
        raise ValueError(f"{who}: x1 (B, P, M) and x2 (B, R, M) (or without B) must agree, got "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    diff = expand_dims(x1, -2) - expand_dims(x2, -3)
    return _p_norm(diff, p, -1)


def pdist(input, p=2.0):  # noqa: A002  (MindSpore's parameter names)
    who = "pdist"
    p = _check_p(who, p)
    if len(input.shape) != 2:
        raise ValueError(f"{who}: input must be 2-D (N, M), got {tuple(input.shape)}")
    rows, cols = np.triu_indices(input.shape[0], 1)
    diff = gather(input, Tensor(rows.astype(np.int32)), 0) - gather(
        input, Tensor(cols.astype(np.int32)), 0)
    return _p_norm(diff, p, -1)


def dist(input, other, p=2):  # noqa: A002
    p = _check_p("dist", p)
    return _p_norm(reshape(input - other, (-1,)), p, 0)


def _need_rank(who: str, x: Any, rank: int) -> None:
    if len(x.shape) < rank:
        raise ValueError(f"{who}: input needs at least {rank} axes, got {tuple(x.shape)}")


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    who, r = "pixel_shuffle", upscale_factor
    _need_rank(who, input, 3)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"{who}: channels {c} must be divisible by upscale_factor^2 = {r * r}")
    k = len(lead)
    x = reshape(input, (*lead, c // (r * r), r, r, h, w))
    x = transpose(x, (*range(k), k, k + 3, k + 1, k + 4, k + 2))
    return reshape(x, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    who, r = "pixel_unshuffle", downscale_factor
    _need_rank(who, input, 3)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"{who}: height {h} and width {w} must be divisible by {r}")
    k = len(lead)
    x = reshape(input, (*lead, c, h // r, r, w // r, r))
    x = transpose(x, (*range(k), k, k + 2, k + 4, k + 1, k + 3))
    return reshape(x, (*lead, c * r * r, h // r, w // r))


def channel_shuffle(x, groups):
    who = "channel_shuffle"
    _need_rank(who, x, 3)
    n, c, *rest = x.shape
    if groups < 1 or c % groups:
        raise ValueError(f"{who}: channels {c} must be divisible by groups {groups}")
    y = reshape(x, (n, groups, c // groups, *rest))
    y = transpose(y, (0, 2, 1, *range(3, len(rest) + 3)))
    return reshape(y, (n, c, *rest))


def glu(x, axis=-1):
    size = x.shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} of {tuple(x.shape)} must have an even size")
    a, b = split(x, size // 2, axis)
    return a * sigmoid(b)


def _channel_dropout(who: str, rank: int, input: Any, p: float, training: bool) -> Any:  # noqa: A002
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{who}: p must be in [0, 1], got {p}")
    if len(input.shape) not in (rank, rank + 1):
        raise ValueError(f"{who}: input must be {rank}-D or {rank + 1}-D, got {tuple(input.shape)}")
    if not training or p == 0.0:
        return input
    lead = input.shape[:-rank + 1] if len(input.shape) == rank + 1 else input.shape[:1]
    keep = dropout(ones((*lead, *(1,) * (len(input.shape) - len(lead))), input.dtype), p)
    return input * keep


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    return _channel_dropout("dropout1d", 2, input, p, training)


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    return _channel_dropout("dropout2d", 3, input, p, training)


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    return _channel_dropout("dropout3d", 4, input, p, training)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    who = "group_norm"
    _need_rank(who, input, 2)
    n, c, *rest = input.shape
    if num_groups < 1 or c % num_groups:
        raise ValueError(f"{who}: channels {c} must be divisible by num_groups {num_groups}")
    x = reshape(input, (n, num_groups, -1))
    centred = x - reduce_mean(x, -1, True)
    var = reduce_mean(centred * centred, -1, True)
    y = reshape(centred / sqrt(var + eps), input.shape)
    per_channel = (c, *(1,) * len(rest))
    if weight is not None:
        y = y * reshape(weight, per_channel)
    if bias is not None:
        y = y + reshape(bias, per_channel)
    return y
