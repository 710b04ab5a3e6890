"""Backward primitives of MindSpore's ``ops.operations._grad_ops`` for losses, PReLU,
slicing, trace and the multivariate log-gamma (``G.SmoothL1LossGrad()`` ...), as exact
compositions of our primitives so they run in both modes and have gradients of their own.

Argument orders and attributes are MindSpore 2.10's (checked on its CPU build):
``SigmoidCrossEntropyWithLogitsGrad()(x, y, dout)``; ``SmoothL1LossGrad(beta, reduction)(
prediction, target, dout)``; ``SoftShrinkGrad(lambd)(dy, x)``; ``PReLUGrad()(dy, x, w) ->
(dx, dw)`` (``w`` per channel, axis 1, or one value); ``SliceGrad()(dy, x, begin, size)``
(``dy`` placed in zeros shaped like ``x``); ``TraceGrad()(dout, x_shape)`` (``x_shape`` an
int64 Tensor, as MindSpore requires); ``NLLLossGrad(reduction, ignore_index)(logits,
loss_grad, labels, weight, total_weight)``; ``MvlgammaGrad(p)(y_grad, x)``;
``PdistGrad(p)(y_grad, x, y)``; ``MultiMarginLossGrad(p, margin, reduction)(y_grad, x,
target, weight)``; ``MedianGrad(global_median, axis, keep_dims)(y_grad, x, y, indices)``. The adjoints of
fixed gathers (``StridedSliceGrad`` ...) are in :mod:`framework.ops.gather_adjoints`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._utils import concrete_ints
from .array_layout import eye as _eye
from .elementwise import abs as _abs
from .elementwise import add, cast, div, equal, greater, less, mul, not_equal, pow, sub
from .elementwise import sigmoid as _sigmoid
from .math_unary import sign as _sign
from .reduce import reduce_sum
from .scatter_gather import gather
from .segment import unsorted_segment_sum
from .shape_ops import pad as _pad
from .shape_ops import reshape as _reshape
from .special_math import digamma


def _mask(cond: Any, like: Any) -> Any:
    return cast(cond, like.dtype)


class SigmoidCrossEntropyWithLogitsGrad:
    """``SigmoidCrossEntropyWithLogitsGrad()(x, y, dout)``: ``dout * (sigmoid(x) - y)``."""

    def __init__(self) -> None:  # no attributes, as MindSpore's
        pass

    def __call__(self, x: Any, y: Any, dout: Any) -> Any:
        return mul(dout, sub(_sigmoid(x), y))


class SmoothL1LossGrad:
    """``SmoothL1LossGrad(beta=1.0, reduction='none')(prediction, target, dout)``: with ``d =
    prediction - target``, ``d / beta`` where ``|d| < beta``, else ``sign(d)``, times ``dout``
    (a scalar for ``'mean'``/``'sum'``; ``'mean'`` also divides by the element count)."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"SmoothL1LossGrad: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        if not beta > 0:
            raise ValueError(f"SmoothL1LossGrad: beta must be > 0, got {beta}")
        self.beta, self.reduction = float(beta), reduction

    def __call__(self, prediction: Any, target: Any, dout: Any) -> Any:
        d = sub(prediction, target)
        inside = _mask(less(_abs(d), self.beta), d)
        slope = add(mul(inside, div(d, self.beta)), mul(sub(1, inside), _sign(d)))
        grad = mul(slope, dout)
        if self.reduction == "mean":
            grad = div(grad, int(np.prod(tuple(prediction.shape), dtype=np.int64)))
        return grad


class SoftShrinkGrad:
    """``SoftShrinkGrad(lambd=0.5)(dy, x)``: ``dy`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        if lambd < 0:
            raise ValueError(f"SoftShrinkGrad: lambd must be >= 0, got {lambd}")
        self.lambd = float(lambd)

    def __call__(self, dy: Any, x: Any) -> Any:
        return mul(dy, _mask(greater(_abs(x), self.lambd), dy))


class PReLUGrad:
    """``PReLUGrad()(dy, x, w) -> (dx, dw)``: ``dx = dy`` where ``x > 0``, else ``dy * w``;
    ``dw`` sums ``dy * x`` over the elements with ``x <= 0``, per channel (axis 1) or over all
    when ``w`` holds one value."""

    def __init__(self) -> None:  # no attributes, as MindSpore's
        pass

    def __call__(self, dy: Any, x: Any, w: Any) -> tuple:
        rank, channels = len(x.shape), int(np.prod(tuple(w.shape), dtype=np.int64))
        if channels > 1 and rank >= 2:
            wb = _reshape(w, (1, channels) + (1,) * (rank - 2))
            axes = tuple(a for a in range(rank) if a != 1)
        else:
            wb, axes = _reshape(w, (1,) * rank) if rank else _reshape(w, ()), tuple(range(rank))
        positive = _mask(greater(x, 0), dy)
        dx = mul(dy, add(positive, mul(sub(1, positive), wb)))
        dw = reduce_sum(mul(mul(dy, x), sub(1, positive)), axes)
        return dx, _reshape(dw, tuple(w.shape))


def _ints(value: Any, what: str) -> tuple[int, ...]:
    value = concrete_ints(value, what)
    return tuple(int(v) for v in np.ravel(np.asarray(value, dtype=np.int64)))


class SliceGrad:
    """``SliceGrad()(dy, x, begin, size)``: zeros shaped like ``x`` with ``dy`` at
    ``begin`` (``size``: the slice's extent, as ``dy``'s shape; no -1)."""

    def __init__(self) -> None:  # no attributes, as MindSpore's
        pass

    def __call__(self, dy: Any, x: Any, begin: Any, size: Any) -> Any:
        begin, size, shape = _ints(begin, "SliceGrad: begin"), _ints(size, "SliceGrad: size"), tuple(x.shape)
        if len(begin) != len(shape) or len(size) != len(shape):
            raise ValueError(f"SliceGrad: begin {begin} and size {size} must have one entry per "
                             f"axis of x (shape {shape})")
        if any(s < 0 for s in size):
            raise ValueError(f"SliceGrad: size {size} can not be negative")
        if any(b < 0 or b + s > n for b, s, n in zip(begin, size, shape)):
            raise ValueError(f"SliceGrad: begin {begin} + size {size} exceeds x's shape {shape}")
        return _pad(dy, tuple((b, n - b - s) for b, s, n in zip(begin, size, shape)))


class TraceGrad:
    """``TraceGrad()(dout, x_shape)``: ``dout`` on the main diagonal of a matrix shaped
    ``x_shape`` (an int64 Tensor of two entries), zeros elsewhere."""

    def __init__(self) -> None:  # no attributes, as MindSpore's
        pass

    def __call__(self, dout: Any, x_shape: Any) -> Any:
        dims = _ints(x_shape, "TraceGrad: x_shape")
        if len(dims) != 2:
            raise ValueError(f"TraceGrad: x_shape must hold 2 dimensions, got {dims}")
        return mul(_eye(dims[0], dims[1], dout.dtype), dout)


class NLLLossGrad:
    """``NLLLossGrad(reduction='mean', ignore_index=-100)(logits, loss_grad, labels, weight,
    total_weight)``: ``-weight[labels[i]] * loss_grad`` at ``(i, labels[i])`` (``loss_grad``
    per row for ``'none'``, else a scalar, divided by ``total_weight`` for ``'mean'``), zero
    elsewhere and on the rows whose label is ``ignore_index``."""

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"NLLLossGrad: reduction must be 'none', 'mean' or 'sum', got "
                             f"{reduction!r}")
        self.reduction, self.ignore_index = reduction, int(ignore_index)

    def __call__(self, logits: Any, loss_grad: Any, labels: Any, weight: Any,
                 total_weight: Any) -> Any:
        shape = tuple(logits.shape)
        if len(shape) != 2:
            raise ValueError(f"NLLLossGrad: logits must be (N, C), got shape {shape}")
        rows = _reshape(labels, (shape[0], 1))
        classes = Tensor(np.arange(shape[1], dtype=np.int64).reshape(1, shape[1]))
        picked = mul(_mask(equal(cast(rows, classes.dtype), classes), logits),
                     _mask(not_equal(rows, self.ignore_index), logits))
        scale = mul(_reshape(weight, (1, shape[1])), loss_grad if self.reduction != "none"
                    else _reshape(loss_grad, (shape[0], 1)))
        if self.reduction == "mean":
            scale = div(scale, total_weight)
        return sub(0, mul(picked, scale))  # 0 - x: +0, not -0, off the picked entries


class MvlgammaGrad:
    """``MvlgammaGrad(p)(y_grad, x)``: ``y_grad * sum(digamma(x - i / 2) for i < p)``, the
    derivative of the multivariate log-gamma function of order ``p``."""

    def __init__(self, p: int) -> None:
        if int(p) < 1:
            raise ValueError(f"MvlgammaGrad: p must be >= 1, got {p}")
        self.p = int(p)

    def __call__(self, y_grad: Any, x: Any) -> Any:
        total = digamma(x)
        for i in range(1, self.p):
            total = add(total, digamma(sub(x, i / 2)))
        return mul(y_grad, total)


class PdistGrad:
    """``PdistGrad(p=2.0)(y_grad, x, y)``: the gradient of ``pdist(x, p)`` (``y``: its
    output, ``x``: ``(N, M)``): pair ``k = (i, j)``, ``i < j`` in row-major order, adds ``g_k *
    c`` to row ``i`` and subtracts it from row ``j``, ``c = sign(d) |d|^(p-1) / y_k^(p-1)``
    with ``d = x_i - x_j`` (``sign(d)`` for ``p = 1``; at ``p = inf`` only where ``|d| =
    y_k``; 0 for ``p = 0`` and where ``y_k = 0``)."""

    def __init__(self, p: float = 2.0) -> None:
        if p < 0:
            raise ValueError(f"PdistGrad: p must be >= 0, got {p}")
        self.p = float(p)

    def __call__(self, y_grad: Any, x: Any, y: Any) -> Any:
        shape = tuple(x.shape)
        if len(shape) != 2:
            raise ValueError(f"PdistGrad: x must be (N, M), got shape {shape}")
        first, second = (Tensor(a.astype(np.int32)) for a in np.triu_indices(shape[0], 1))
        d = sub(gather(x, first, 0), gather(x, second, 0))
        dist, g = _reshape(y, (-1, 1)), _reshape(y_grad, (-1, 1))
        if self.p == 0:
            c = mul(d, 0)
        elif self.p == 1:
            c = _sign(d)
        elif np.isinf(self.p):
            c = mul(_sign(d), _mask(equal(_abs(d), dist), d))
        else:
            nonzero = _mask(greater(dist, 0), d)
            safe = add(dist, sub(1, nonzero))  # 1 where y is 0, so the quotient stays finite
            c = mul(mul(_sign(d), div(pow(_abs(d), self.p - 1), pow(safe, self.p - 1))), nonzero)
        share = mul(g, c)
        rows = shape[0]
        return sub(unsorted_segment_sum(share, first, rows), unsorted_segment_sum(share, second, rows))


def _one_hot(labels: Any, shape: tuple[int, ...], axis: int, like: Any) -> Any:
    """1.0 where position ``k`` along ``axis`` of ``shape`` equals ``labels`` (broadcast)."""
    classes = np.arange(shape[axis], dtype=np.int64).reshape(
        tuple(n if a == axis else 1 for a, n in enumerate(shape)))
    return _mask(equal(cast(labels, mstype.int64), Tensor(classes)), like)


class MultiMarginLossGrad:
    """``MultiMarginLossGrad(p=1, margin=1.0, reduction='mean')(y_grad, x, target, weight)``:
    with ``m_i = margin - x[y] + x_i`` over the classes ``i != y``, class ``i`` gets ``p *
    m_i^(p-1)`` where ``m_i > 0`` and class ``y`` minus their sum, times ``weight[y]`` (if
    given) and ``y_grad`` over the class count (``y_grad`` per row for ``'none'``, over the
    rows too for ``'mean'``)."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean") -> None:
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLossGrad: p must be 1 or 2, got {p}")
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"MultiMarginLossGrad: reduction must be 'none', 'mean' or 'sum', "
                             f"got {reduction!r}")
        self.p, self.margin, self.reduction = int(p), float(margin), reduction

    def __call__(self, y_grad: Any, x: Any, target: Any, weight: Any = None) -> Any:
        shape = tuple(x.shape)
        if len(shape) != 2:
            raise ValueError(f"MultiMarginLossGrad: x must be (N, C), got shape {shape}")
        rows = _reshape(target, (shape[0], 1))
        hot = _one_hot(rows, shape, 1, x)
        m = add(sub(self.margin, reduce_sum(mul(x, hot), 1, keep_dims=True)), x)
        active = mul(_mask(greater(m, 0), x), sub(1, hot))
        coef = active if self.p == 1 else mul(mul(m, 2), active)
        scale = y_grad if self.reduction != "none" else _reshape(y_grad, (shape[0], 1))
        if weight is not None:
            scale = mul(scale, _reshape(gather(weight, _reshape(target, (-1,)), 0), (shape[0], 1)))
        scale = div(scale, shape[1] * (shape[0] if self.reduction == "mean" else 1))
        others = mul(coef, scale)
        return sub(others, mul(hot, reduce_sum(others, 1, keep_dims=True)))


class MedianGrad:
    """``MedianGrad(global_median=False, axis=0, keep_dims=False)(y_grad, x, y, indices)``:
    ``y_grad`` at the median's ``indices`` along ``axis``; for the global median shared
    equally among the elements of ``x`` equal to ``y``."""

    def __init__(self, global_median: bool = False, axis: int = 0, keep_dims: bool = False) -> None:
        self.global_median, self.axis, self.keep_dims = bool(global_median), int(axis), bool(keep_dims)

    def __call__(self, y_grad: Any, x: Any, y: Any, indices: Any) -> Any:
        if self.global_median:
            ties = _mask(equal(x, y), x)
            return mul(ties, div(y_grad, reduce_sum(ties)))
        shape, axis = tuple(x.shape), self.axis % max(len(x.shape), 1)
        if not self.keep_dims:
            kept = tuple(1 if a == axis else n for a, n in enumerate(shape))
            y_grad, indices = _reshape(y_grad, kept), _reshape(indices, kept)
        return mul(_one_hot(indices, shape, axis, x), y_grad)


__all__ = ["MedianGrad", "MultiMarginLossGrad", "MvlgammaGrad", "NLLLossGrad", "PReLUGrad", "PdistGrad",
           "SigmoidCrossEntropyWithLogitsGrad", "SliceGrad", "SmoothL1LossGrad", "SoftShrinkGrad",
           "TraceGrad"]
