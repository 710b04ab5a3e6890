"""Sorting and sampling primitives: TopK, Sort (values + int32 indices), Multinomial.

Ties: equal values keep their index order (a stable sort; descending and ``largest``
too), in the kernels and in the TVM lowerings. The gradient of TopK and Sort sends each
output's cotangent back to the position it came from: a scatter-add (``IndexAdd``) into
a flattened zero tensor, never a one-hot product.

``Multinomial`` is ``host_random``: its uniform draws come from the framework's generator
(``ms.set_seed``), in graph mode drawn on the host at each run, so both modes sample alike.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtype as mstype
from .. import seed as _seed
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import float_dtype, normalize_axis
from .creation import zeros
from .elementwise import add, cast
from .scatter_gather import index_add
from .shape_ops import reshape, transpose

INDEX_DTYPE = np.dtype(np.int32)


def _check_axis(x: Any, axis: int) -> int:
    if not x.shape:
        raise ValueError("input must have at least one axis")
    return normalize_axis(axis, len(x.shape))


def stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices sorting ``x`` along ``axis``; equal values keep their index order."""
    if descending:
        x = -x.astype(np.int64) if x.dtype.kind in "bu" else -x
    return np.argsort(x, axis=axis, kind="stable")


def scatter_back(x: Any, indices: Any, dout: Any, axis: int) -> Any:
    """Zeros shaped like ``x`` with ``dout`` added at ``indices`` along ``axis``
    (``indices``/``dout`` have x's shape except on ``axis``)."""
    shape, rank = tuple(x.shape), len(x.shape)
    if dout.dtype != x.dtype:
        dout = cast(dout, x.dtype)
    if axis != rank - 1:
        perm = tuple(i for i in range(rank) if i != axis) + (axis,)
        indices, dout = transpose(indices, perm), transpose(dout, perm)
    lead, n = tuple(indices.shape[:-1]), shape[axis]
    offsets = (np.arange(math.prod(lead), dtype=np.int64) * n).reshape(lead + (1,))
    flat = reshape(add(indices, Tensor(offsets.astype(INDEX_DTYPE))), (-1,))
    dx = index_add(zeros((math.prod(lead) * n,), x.dtype), flat, reshape(dout, (-1,)), 0)
    dx = reshape(dx, lead + (n,))
    if axis != rank - 1:
        dx = transpose(dx, tuple(int(i) for i in np.argsort(perm)))
    return dx


class TopK(Primitive):
    """``ops.TopK(sorted=True)(input_x, k) -> (values, indices)``: the ``k`` largest
    entries along the last axis (``axis``/``largest`` for ``ops.topk``), int32 indices.
    ``sorted=False`` gives them sorted as well (MindSpore leaves that order unspecified)."""

    num_outputs = 2

    def __init__(self, sorted: bool = True, k: int | None = None, axis: int = -1,  # noqa: A002
                 largest: bool = True) -> None:
        super().__init__(sorted=bool(sorted), k=None if k is None else int(k), axis=int(axis),
                         largest=bool(largest))

    def __call__(self, input_x: Any, k: Any = None) -> Any:
        k = self.k if k is None else k
        if k is None:
            raise TypeError("TopK: k is required, as in ops.TopK()(input_x, k)")
        if hasattr(k, "asnumpy"):
            k = k.asnumpy().item()
        prim = TopK(self.sorted, int(k), self.axis, self.largest)
        return Primitive.__call__(prim, input_x)

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        axis = _check_axis(x, self.axis)
        if not 0 <= self.k <= x.shape[axis]:
            raise ValueError(f"k={self.k} must be in [0, {x.shape[axis]}] (axis {axis} of "
                             f"{tuple(x.shape)})")
        shape = tuple(self.k if i == axis else d for i, d in enumerate(x.shape))
        return Spec(shape, x.dtype), Spec(shape, INDEX_DTYPE)

    def kernel(self, x):
        axis = normalize_axis(self.axis, x.ndim)
        order = np.take(stable_order(x, axis, self.largest), np.arange(self.k), axis=axis)
        return np.take_along_axis(x, order, axis), order.astype(INDEX_DTYPE)

    def bprop(self, x, *, out, dout, needs):
        return (scatter_back(x, out[1], dout[0], normalize_axis(self.axis, len(x.shape))),)


class Sort(Primitive):
    """``ops.Sort(axis=-1, descending=False)(x) -> (values, indices)``, int32 indices."""

    num_outputs = 2

    def __init__(self, axis: int = -1, descending: bool = False) -> None:
        super().__init__(axis=int(axis), descending=bool(descending))

    def infer(self, x: Any) -> tuple[Spec, Spec]:
        _check_axis(x, self.axis)
        return Spec(tuple(x.shape), x.dtype), Spec(tuple(x.shape), INDEX_DTYPE)

    def kernel(self, x):
        order = stable_order(x, normalize_axis(self.axis, x.ndim), self.descending)
        return np.take_along_axis(x, order, self.axis), order.astype(INDEX_DTYPE)

    def bprop(self, x, *, out, dout, needs):
        return (scatter_back(x, out[1], dout[0], normalize_axis(self.axis, len(x.shape))),)


_SEEDED: dict[int, np.random.Generator] = {}


def sample_multinomial(x: np.ndarray, draw: np.ndarray, num_samples: int,
                       replacement: bool) -> np.ndarray:
    """Class indices (int32) from weights ``x`` (rows need not sum to 1) and uniforms
    ``draw``. With replacement: inverse CDF, ``draw`` one uniform per sample, the running
    sum in ``x``'s dtype. Without: the exponential race, ``draw`` one uniform per class,
    the classes of the ``num_samples`` largest ``log(u) / x``."""
    if replacement:
        cdf = np.cumsum(x, axis=-1, dtype=x.dtype)
        target = draw * cdf[..., -1:]
        picked = np.sum(cdf[..., None, :] <= target[..., :, None], axis=-1)
        return np.minimum(picked, x.shape[-1] - 1).astype(INDEX_DTYPE)
    with np.errstate(divide="ignore"):
        keys = np.log(draw) / x
    return stable_order(keys, -1, True)[..., :num_samples].astype(INDEX_DTYPE)


class Multinomial(Primitive):
    """``Multinomial(num_samples, replacement=True, seed=None)(x)``: ``num_samples`` class
    indices (int32) per row of the 1-D or 2-D non-negative weights ``x``. ``seed`` given:
    draws from a generator of that seed (one per seed, advancing), else the framework's."""

    host_random = True
    differentiable = False

    def __init__(self, num_samples: int, replacement: bool = True, seed: int | None = None):
        super().__init__(num_samples=int(num_samples), replacement=bool(replacement),
                         seed=None if seed is None else int(seed))

    def infer(self, x: Any) -> Spec:
        if len(x.shape) not in (1, 2) or not mstype.is_float(np.dtype(x.dtype)):
            raise TypeError(f"input must be a 1-D or 2-D float tensor, got {x.dtype} of shape "
                            f"{tuple(x.shape)}")
        if self.num_samples < 1:
            raise ValueError(f"num_samples must be >= 1, got {self.num_samples}")
        if not self.replacement and self.num_samples > x.shape[-1]:
            raise ValueError(f"num_samples={self.num_samples} > {x.shape[-1]} classes: sampling "
                             "without replacement needs replacement=True for that many")
        return Spec(tuple(x.shape[:-1]) + (self.num_samples,), INDEX_DTYPE)

    def random_spec(self, x: Any) -> Spec:
        last = self.num_samples if self.replacement else x.shape[-1]
        return Spec(tuple(x.shape[:-1]) + (last,), float_dtype(x.dtype))

    def draw_mask(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        if self.seed is None:
            rng = _seed.generator()
        else:
            rng = _SEEDED.setdefault(self.seed, np.random.default_rng(self.seed))
        return rng.random(shape).astype(dtype)

    def kernel(self, x, draw=None):
        if draw is None:
            draw = self.draw_mask(*self.random_spec(x))
        return sample_multinomial(x, draw, self.num_samples, self.replacement)


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002
    """``ops.topk(input, k, dim=None, largest=True, sorted=True)``; ``dim=None``: last axis."""
    return TopK(sorted, k, -1 if dim is None else dim, largest)(input)


def sort(input_x, axis=-1, descending=False):
    """``ops.sort(input_x, axis=-1, descending=False) -> (values, indices)``."""
    return Sort(axis, descending)(input_x)


def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """``ops.multinomial(input, num_samples, replacement=True, seed=None)``."""
    return Multinomial(num_samples, replacement, seed)(input)
