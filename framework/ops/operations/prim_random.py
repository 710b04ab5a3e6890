"""Sampling primitive classes (``P.RandomShuffle``, ``P.RandomCategorical``,
``P.StandardLaplace``, ``P.Bernoulli``, ``P.Cauchy``, ``P.LogNormalReverse``) over our random
functional ops, as MindSpore 2.10's ``mindspore.ops.operations`` spell them.
The samples come from our generator (``framework.set_seed``): the ``seed`` attributes name
MindSpore's streams and are accepted, not reproduced, so the values are not MindSpore's;
shapes, dtypes and distributions are.

Contracts (``P.X(attrs)(inputs)``):

- ``RandomShuffle(seed=0, seed2=0)(x)``: ``x``'s entries along axis 0 in a random order;
- ``RandomCategorical(dtype=int64)(logits, num_sample, seed=0)``: ``(batch, num_sample)``
  class indices drawn (with replacement) from ``softmax(logits)`` per row;
- ``StandardLaplace(seed=0, seed2=0)(shape)``: float32 samples of Laplace(0, 1);
- ``Bernoulli(seed=-1, offset=0)(x, p=0.5)``: 0/1 samples with probability ``p`` (a float
  or a tensor broadcastable to ``x``), ``x``'s shape and dtype;
- ``Cauchy(size, median=0.0, sigma=1.0)()``: float32 Cauchy samples of shape ``size``;
  ``LogNormalReverse(mean=1.0, std=2.0)(x)``: ``exp(N(mean, std))`` samples, ``x``'s shape and
  dtype;
- ``Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples)``: ``num_samples`` class indices
  per row of the 1-D or 2-D non-negative weights ``x``, drawn with replacement, as ``dtype``.
  Given a positional argument, ``num_samples=`` or ``replacement=``, ``Multinomial(...)``
  is our sampling primitive (:class:`framework.ops.sorting.Multinomial`, ``(num_samples,
  replacement=True, seed=None)(x)``): MindSpore's seeds are keywords here;
- ``MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)``: int64
  ``(batch, numsamples)`` class indices per row of the weights ``x`` (``seed`` and
  ``offset`` 0-d int64 tensors, accepted as the other samplers' seeds are).
"""

from __future__ import annotations

from typing import Any

from ... import dtype as mstype
from ...mint import creation as mint_creation
from .. import functional as ops
from .._class_form import REQUIRED, class_form


def _random_shuffle(x: Any, *, seed: int, seed2: int) -> Any:
    del seed, seed2  # see the module docstring
    if not x.shape:
        return x
    return ops.gather(x, mint_creation.randperm(x.shape[0]), 0)


def _random_categorical(logits: Any, num_sample: int, seed: int = 0, *, dtype: Any) -> Any:
    del seed
    return ops.cast(ops.multinomial(ops.softmax(logits, -1), int(num_sample), True), dtype)


def _standard_laplace(shape: Any, *, seed: int, seed2: int) -> Any:
    del seed, seed2
    dims = tuple(int(d) for d in (shape.asnumpy() if hasattr(shape, "asnumpy") else shape))
    u = mint_creation.rand(*dims) - 0.5  # uniform on [-0.5, 0.5): the inverse CDF
    return ops.cast(-ops.sign(u) * ops.log(1 - 2 * ops.abs(u)), mstype.float32)


def _bernoulli(x: Any, p: Any = 0.5, *, seed: int, offset: int) -> Any:
    del seed, offset
    prob = ops.broadcast_to(ops.cast(p, mstype.float32) if hasattr(p, "shape")
                            else ops.fill(mstype.float32, (), float(p)), tuple(x.shape))
    return ops.cast(mint_creation.bernoulli(prob), x.dtype)


def _cauchy(*, size: Any, median: float, sigma: float) -> Any:
    u = mint_creation.rand(*(int(d) for d in size))
    return ops.cast(median + sigma * ops.tan(3.141592653589793 * (u - 0.5)), mstype.float32)


def _log_normal_reverse(x: Any, *, mean: float, std: float) -> Any:
    sample = mint_creation.normal(float(mean), float(std), size=tuple(x.shape))
    return ops.cast(ops.exp(sample), x.dtype)


def _multinomial(x: Any, num_samples: int, *, seed: int, seed2: int, dtype: Any) -> Any:
    del seed, seed2
    return ops.cast(ops.multinomial(x, int(num_samples), True), dtype)


RandomShuffle = class_form("RandomShuffle", _random_shuffle, seed=0, seed2=0)
RandomCategorical = class_form("RandomCategorical", _random_categorical, dtype=mstype.int64)
StandardLaplace = class_form("StandardLaplace", _standard_laplace, seed=0, seed2=0)
Bernoulli = class_form("Bernoulli", _bernoulli, seed=-1, offset=0)
Cauchy = class_form("Cauchy", _cauchy, size=REQUIRED, median=0.0, sigma=1.0)
LogNormalReverse = class_form("LogNormalReverse", _log_normal_reverse, mean=1.0, std=2.0)

_MultinomialForm = class_form("Multinomial", _multinomial, seed=0, seed2=0, dtype=mstype.int32)


class Multinomial(_MultinomialForm):
    """``P.Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples)``: see the module docstring."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if args or {"num_samples", "replacement"} & set(kwargs):  # our primitive's form
            from ..sorting import Multinomial as Sampling

            return Sampling(*args, **kwargs)
        return super().__new__(cls)


def _multinomial_with_replacement(x: Any, seed: Any, offset: Any, *, numsamples: int,
                                  replacement: bool) -> Any:
    from ..random_ops import multinomial_with_replacement

    return multinomial_with_replacement(x, seed, offset, numsamples, replacement)


MultinomialWithReplacement = class_form("MultinomialWithReplacement", _multinomial_with_replacement,
                                        numsamples=REQUIRED, replacement=False)

__all__ = ["Bernoulli", "Cauchy", "LogNormalReverse", "Multinomial", "MultinomialWithReplacement",
           "RandomCategorical", "RandomShuffle", "StandardLaplace"]
