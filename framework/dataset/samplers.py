"""``mindspore.dataset`` samplers: which rows of a source an epoch reads, in which order.

Contract: a sampler's ``ids(n, seed, epoch, source)`` is the epoch's row ids (an int64
array) for a source of ``n`` rows; ``seed`` is the source's seed (``ds.config.set_seed``'s
when set), so random samplers are reproducible; ``source`` is the source's store
(``PKSampler`` reads its class column there). Every id is checked to lie in ``[0, n)``.

- :class:`SequentialSampler` (``start_index``, ``num_samples``), :class:`SubsetSampler`
  (the given ids in order), :class:`DistributedSampler` (shard ``i`` of ``k`` takes rows
  ``i, i+k, ...`` of the (shuffled) order, wrapping round so every shard has ``ceil(n/k)``;
  with ``offset`` the first row goes to shard ``offset`` and nothing wraps) are
  deterministic and match MindSpore row for row;
- :class:`RandomSampler`, shuffled :class:`DistributedSampler` shards and
  :class:`SubsetRandomSampler` give MindSpore's exact orders for a seed
  (:mod:`framework.dataset.ms_random`); :class:`WeightedRandomSampler` and
  :class:`PKSampler` draw from NumPy: MindSpore's properties (weights honoured, ``K``
  rows per class) but not its exact draws;
- :class:`Sampler`: subclass it and write ``__iter__`` (yield ids; ``self.dataset_size``
  is the source's row count while it runs). Any object with ``__getitem__`` and
  ``__len__`` (or a list of ints) is a fixed list of ids.

``a.add_child(b)``: ``a`` samples positions of ``b``'s output (``ids = b_ids[a_ids]``).
``num_samples`` caps the count (None or 0: all), as in MindSpore: a sampler never gives
more than its population (``RandomSampler(num_samples=15)`` on 10 rows gives 10).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .ms_random import ChainedOrder, uniform_draws


def _int(value: Any, what: str, minimum: int = 0, allow_none: bool = True) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _ids_list(indices: Any, what: str) -> np.ndarray:
    if isinstance(indices, str) or not isinstance(indices, Iterable):
        raise TypeError(f"{what}: indices must be a list or tuple of ints, got {type(indices).__name__}")
    values = list(indices)
    if not all(isinstance(i, int | np.integer) and not isinstance(i, bool) for i in values):
        raise TypeError(f"{what}: indices must be ints, got {values[:5]!r}")
    return np.asarray(values, np.int64).reshape(-1)


class Sampler:
    """Base of every sampler; subclass it and write ``__iter__`` yielding row ids."""

    num_samples: int | None = None  # class defaults: a subclass may skip ``__init__``
    child_sampler: Sampler | None = None
    dataset_size: int | None = None

    def __init__(self, num_samples: int | None = None) -> None:
        self.num_samples = _int(num_samples, f"{type(self).__name__}: num_samples")
        self.child_sampler: Sampler | None = None
        self.dataset_size: int | None = None

    def add_child(self, sampler: Any) -> None:
        """Sample from ``sampler``'s output instead of the source's rows."""
        if self.child_sampler is not None:
            raise RuntimeError(f"{type(self).__name__} already has a child sampler")
        self.child_sampler = as_sampler(sampler)

    def get_child(self) -> Sampler | None:
        return self.child_sampler

    def get_num_samples(self) -> int | None:
        return self.num_samples

    def __iter__(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: a Sampler subclass must define __iter__")

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        """This sampler's ids over ``n`` rows (user samplers: its ``__iter__``)."""
        self.dataset_size = n
        ids = np.fromiter((int(i) for i in iter(self)), np.int64)
        return ids[:self.num_samples] if self.num_samples else ids

    def ids(self, n: int, seed: int, epoch: int, source: Any = None) -> np.ndarray:
        if self.child_sampler is None:
            ids = self._draw(n, seed, epoch, source)
            bound = n
        else:
            base = self.child_sampler.ids(n, seed, epoch, source)
            ids = self._draw(len(base), seed, epoch, None)
            bound = len(base)
        bad = ids[(ids < 0) | (ids >= bound)]
        if len(bad):
            raise IndexError(f"{type(self).__name__}: sample id {int(bad[0])} is out of bound, expected "
                             f"range [0, {bound - 1}]")
        return ids if self.child_sampler is None else base[ids]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_samples={self.num_samples})"


def _chained(sampler: Sampler, n: int, seed: int, step: int = 1) -> ChainedOrder:
    """The sampler's chained shuffle of ``n`` items for ``seed`` (kept between epochs)."""
    chain = getattr(sampler, "_chain", None)
    if chain is None or (chain.n, chain.seed, chain.step) != (n, seed, step):
        chain = sampler._chain = ChainedOrder(n, seed, step)  # type: ignore[attr-defined]
    return chain


def _capped(count: int, num_samples: int | None) -> int:
    return min(count, num_samples) if num_samples else count


class SequentialSampler(Sampler):
    """``SequentialSampler(start_index=None, num_samples=None)``: rows from ``start_index`` on."""

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.start_index = _int(start_index, "SequentialSampler: start_index") or 0

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        if n and self.start_index >= n:
            raise ValueError(f"SequentialSampler: start_index {self.start_index} must be less than the "
                             f"dataset size {n}")
        return np.arange(self.start_index, self.start_index + _capped(n - self.start_index,
                                                                      self.num_samples), dtype=np.int64)


class RandomSampler(Sampler):
    """``RandomSampler(replacement=False, num_samples=None)``: a new permutation (or draws with
    replacement) each epoch; at most the dataset's size."""

    def __init__(self, replacement: bool = False, num_samples: int | None = None,
                 shuffle: Any = True) -> None:
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        self.replacement = replacement

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        count = _capped(n, self.num_samples)
        if self.replacement:
            return uniform_draws(n, count, seed + epoch)
        return _chained(self, n, seed).order(epoch)[:count]


class SubsetSampler(Sampler):
    """``SubsetSampler(indices, num_samples=None)``: the given row ids, in their order."""

    def __init__(self, indices: Sequence[int], num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.indices = _ids_list(indices, type(self).__name__)

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        return self.indices[:_capped(len(self.indices), self.num_samples)]


class SubsetRandomSampler(SubsetSampler):
    """``SubsetRandomSampler(indices, num_samples=None)``: the given ids in a random order."""

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        order = _chained(self, len(self.indices), seed, step=0).order(epoch)
        return self.indices[order][:_capped(len(self.indices), self.num_samples)]


class WeightedRandomSampler(Sampler):
    """``WeightedRandomSampler(weights, num_samples=None, replacement=True)``: row ``i`` drawn
    with probability ``weights[i] / sum(weights)`` (``num_samples`` defaults to the dataset's
    size; without replacement the zero-weight rows come last, in a random order)."""

    def __init__(self, weights: Sequence[float], num_samples: int | None = None,
                 replacement: bool = True) -> None:
        super().__init__(_int(num_samples, "WeightedRandomSampler: num_samples", 1))
        w = np.asarray(list(weights) if not isinstance(weights, np.ndarray) else weights, np.float64)
        if w.ndim != 1 or not len(w):
            raise ValueError("WeightedRandomSampler: weights must be a non-empty list of numbers")
        if (w < 0).any() or not np.isfinite(w).all() or not w.sum() > 0:
            raise ValueError(f"WeightedRandomSampler: weights must be finite, >= 0 and not all 0, got "
                             f"{w.tolist()[:8]}")
        self.weights, self.replacement = w, bool(replacement)

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        count = self.num_samples or n
        w, rng = self.weights, np.random.default_rng([seed, epoch])
        if self.replacement:
            return rng.choice(len(w), size=count, p=w / w.sum()).astype(np.int64)
        if count > len(w):
            raise ValueError(f"WeightedRandomSampler: without replacement, the weights ({len(w)}) must "
                             f"be at least num_samples ({count})")
        keys = np.where(w > 0, rng.random(len(w)) ** (1.0 / np.where(w > 0, w, 1.0)), -rng.random(len(w)))
        return np.argsort(-keys, kind="stable")[:count].astype(np.int64)


class DistributedSampler(Sampler):
    """``DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=None, offset=-1)``."""

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples: int | None = None,
                 offset: int = -1) -> None:
        super().__init__(num_samples)
        self.num_shards = _int(num_shards, "DistributedSampler: num_shards", 1, False)
        self.shard_id = _int(shard_id, "DistributedSampler: shard_id", 0, False)
        if self.shard_id >= self.num_shards:
            raise ValueError(f"DistributedSampler: shard_id must be in [0, {self.num_shards}), "
                             f"got {shard_id}")
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedSampler: shuffle must be a bool, got {shuffle!r}")
        self.shuffle, self.offset = shuffle, int(offset)

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        order = _chained(self, n, seed + 1).order(epoch) if self.shuffle else np.arange(n, dtype=np.int64)
        k = self.num_shards
        if self.offset >= 0:
            ids = order[(self.shard_id - self.offset) % k::k]
        else:
            ids = np.resize(order, math.ceil(n / k) * k)[self.shard_id::k] if n else order
        return ids[:_capped(len(ids), self.num_samples)]


class PKSampler(Sampler):
    """``PKSampler(num_val, num_class=None, shuffle=False, class_column='label', num_samples=None)``:
    ``num_val`` random rows of each class, classes in increasing order (a random order with
    ``shuffle``); a class with fewer rows repeats some. Needs a source with a class column."""

    def __init__(self, num_val: int, num_class: int | None = None, shuffle: bool = False,
                 class_column: str = "label", num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if num_class is not None:
            raise NotImplementedError("PKSampler: num_class is not supported (as in MindSpore)")
        self.num_val = _int(num_val, "PKSampler: num_val", 1, False)
        self.shuffle, self.class_column = bool(shuffle), class_column

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        names = getattr(source, "names", [])
        if self.class_column not in names or not getattr(source, "materialized", False):
            raise ValueError(f"PKSampler: the dataset has no class column {self.class_column!r} "
                             f"(columns {names})")
        labels = np.asarray(source.column(names.index(self.class_column))).reshape(n, -1)[:, 0]
        rng = np.random.default_rng([seed, epoch])
        classes = np.unique(labels)
        if self.shuffle:
            classes = classes[rng.permutation(len(classes))]
        parts = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            parts.append(rng.choice(rows, self.num_val, replace=len(rows) < self.num_val))
        ids = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
        return ids[:_capped(len(ids), self.num_samples)]


class _FixedSampler(Sampler):
    """A user object with ``__getitem__``/``__len__`` (or a list of ints): fixed ids."""

    def __init__(self, source: Any) -> None:
        super().__init__(None)
        self.source = source

    def _draw(self, n: int, seed: int, epoch: int, source: Any) -> np.ndarray:
        return _ids_list([self.source[i] for i in range(len(self.source))], "sampler")


def as_sampler(sampler: Any) -> Sampler:
    """A :class:`Sampler` for the ``sampler=`` argument of a source."""
    if isinstance(sampler, Sampler):
        return sampler
    if isinstance(sampler, list | tuple | np.ndarray):
        return SubsetSampler(sampler)
    if hasattr(sampler, "__getitem__") and hasattr(sampler, "__len__") and not isinstance(sampler, str):
        return _FixedSampler(sampler)
    raise TypeError(f"sampler must be a mindspore.dataset sampler, a list of ids or an object with "
                    f"__getitem__ and __len__, got {type(sampler).__name__}")


def check_sampler_args(sampler: Any, shuffle: Any, num_samples: Any, num_shards: Any, shard_id: Any) -> None:
    """MindSpore refuses ``sampler`` together with ``shuffle``/``num_samples``/``num_shards``."""
    if sampler is not None and not (shuffle is None and num_samples is None and num_shards is None
                                    and shard_id is None):
        raise ValueError(f"Conflicting arguments during sampler assignments. num_samples: {num_samples}, "
                         f"num_shards: {num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")
