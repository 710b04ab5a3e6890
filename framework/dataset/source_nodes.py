"""Source nodes (a store with MindSpore's sampler options, a Python stream) and ``split``.

Node contract: :mod:`framework.dataset.engine`. Orders are seeded by ``(node seed, node
depth, epoch)``, as in :mod:`framework.dataset.nodes`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .engine import Dataset
from .ms_random import ChainedOrder, shuffle, uniform_draws
from .nodes import _count, _EpochCache, _Passthrough
from .stores import Store


class SourceDataset(Dataset):
    """A store with MindSpore's sampler options: ``shuffle`` (None means True), ``num_samples``,
    ``num_shards``/``shard_id`` (shard ``i`` takes rows ``i, i + k, ...`` of the epoch's order,
    padded by wrapping around so that every shard has ``ceil(N / k)`` rows), or a ``sampler``
    (:mod:`framework.dataset.samplers`; exclusive with the others, as in MindSpore)."""

    def __init__(self, store: Store, shuffle: bool | None = None, num_samples: int | None = None,
                 num_shards: int | None = None, shard_id: int | None = None, sampler: Any = None) -> None:
        super().__init__((), store.names)
        from .samplers import as_sampler, check_sampler_args

        check_sampler_args(sampler, shuffle, num_samples, num_shards, shard_id)
        self.sampler = as_sampler(sampler) if sampler is not None else None
        self.store = store
        self.shuffle_rows = True if shuffle is None else bool(shuffle)
        self.num_samples = _count(num_samples, "num_samples") or None if num_samples is not None else None
        if (num_shards is None) != (shard_id is None):
            raise ValueError("num_shards and shard_id must be given together")
        if num_shards is not None:
            num_shards = _count(num_shards, "num_shards", 1)
            if not 0 <= _count(shard_id, "shard_id") < num_shards:
                raise ValueError(f"shard_id must be in [0, {num_shards}), got {shard_id!r}")
        self.num_shards, self.shard_id = num_shards, shard_id
        self._cache = _EpochCache()
        self._order: ChainedOrder | None = None

    def _store(self) -> Store:
        return self.store

    def _make_ids(self, epoch: int) -> np.ndarray:
        """MindSpore's order for the seed (:mod:`framework.dataset.ms_random`)."""
        n = len(self.store)
        if self.sampler is not None:
            return self.sampler.ids(n, self.seed, epoch, self.store)
        if self.num_shards:
            order = self._chain(n, self.seed + 1).order(epoch) if self.shuffle_rows else np.arange(n)
            per = math.ceil(n / self.num_shards)
            order = np.resize(order, per * self.num_shards)[self.shard_id::self.num_shards]
        elif self.shuffle_rows and self.num_samples:
            return uniform_draws(n, min(n, self.num_samples), self.seed + epoch)
        else:
            order = self._chain(n, self.seed).order(epoch) if self.shuffle_rows else np.arange(n)
        return order[:self.num_samples] if self.num_samples else order

    def _chain(self, n: int, seed: int) -> ChainedOrder:
        if self._order is None or (self._order.n, self._order.seed) != (n, seed):
            self._order = ChainedOrder(n, seed)
        return self._order

    def _ids(self, epoch: int) -> np.ndarray:
        return self._cache.get(epoch, self._make_ids)

    def _num_rows(self) -> int:
        n = len(self.store)
        if self.sampler is not None:
            return len(self._ids(0))
        if self.num_shards:
            n = math.ceil(n / self.num_shards)
        return min(n, self.num_samples) if self.num_samples else n


class StreamDataset(Dataset):
    """Rows from a Python iterable or a function returning one (read again each epoch)."""

    def __init__(self, source: Any, column_names: list[str], num_samples: int | None = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        super().__init__((), column_names)
        self.source, self.num_samples = source, num_samples or None
        self.num_shards, self.shard_id = num_shards, shard_id

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        from .stores import normalize_row

        source = self.source
        items = source() if callable(source) and not hasattr(source, "__iter__") else source
        rows: Any = iter(items)
        if self.num_shards:
            rows = itertools.islice(rows, self.shard_id, None, self.num_shards)
        if self.num_samples:
            rows = itertools.islice(rows, self.num_samples)
        for item in itertools.islice(rows, start, None):
            yield list(normalize_row(item, len(self.column_names), "GeneratorDataset"))

    def _num_rows(self) -> int | None:
        return None


class SubsetDataset(_Passthrough):
    """One part of ``split`` of indexable rows: fixed ``positions`` in the parent's order of
    each epoch (MindSpore's subset sampler under the source's sampler). An unshuffled parent
    has one order, so a part holds the same rows every epoch; a shuffled source gives each
    part other rows every epoch, as MindSpore's do (its docs advise ``randomize`` instead)."""

    def __init__(self, parent: Dataset, positions: np.ndarray) -> None:
        super().__init__(parent)
        self.positions = positions

    def _make_ids(self, epoch: int) -> np.ndarray:
        return self.parents[0]._ids(epoch)[self.positions]

    def _num_rows(self) -> int:
        return len(self.positions)


def _split_counts(sizes: Sequence[int | float], total: int) -> list[int]:
    sizes = list(sizes)
    if not sizes:
        raise ValueError("split: sizes must not be empty")
    if all(isinstance(s, float) for s in sizes):
        if not math.isclose(sum(sizes), 1.0) or min(sizes) <= 0:
            raise ValueError(f"split: fractions must be > 0 and sum to 1, got {sizes}")
        # MindSpore's: each fraction of the rows rounded (Python's round), the first part
        # taking what the rounding gained or lost
        counts = [round(s * total) for s in sizes]
        counts[0] += total - sum(counts)
        if min(counts) < 1:
            raise ValueError(f"split: fractions {sizes} of {total} rows leave a part empty")
        return counts
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        counts = [int(s) for s in sizes]
        if sum(counts) != total or min(counts) < 1:
            raise ValueError(f"split: sizes {counts} must be >= 1 and sum to the dataset size {total}")
        return counts
    raise ValueError(f"split: sizes must be all ints or all floats, got {sizes}")


def split_dataset(ds: Dataset, sizes: Sequence[int | float], randomize: bool) -> list[Dataset]:
    """MindSpore's ``split``. Indexable rows (sources and what keeps them indexable): the
    positions ``0..n-1``, shuffled once with the seed when ``randomize``, cut into parts of
    ``sizes`` (:class:`SubsetDataset`). Streams (a generator function's rows): each part
    skips the rows of the parts before it and takes its own, after one shuffle that is the
    same every epoch when ``randomize`` (MindSpore's design; its buffer's draws are not
    reproduced, so the rows of a randomized stream's parts differ from MindSpore's)."""
    if ds.get_repeat_count() != 1:
        raise ValueError("split: a repeated dataset cannot be split; split before repeat()")
    if ds._store() is None:
        return _split_stream(ds, sizes, randomize)
    total = len(ds._ids(0))
    counts = _split_counts(sizes, total)
    positions = np.arange(total)
    if randomize:  # MindSpore's: one seeded shuffle of the positions, the same every epoch
        positions = shuffle(positions, ds.seed)
    bounds = np.cumsum([0, *counts])
    return [SubsetDataset(ds, positions[a:b]) for a, b in itertools.pairwise(bounds)]


def _split_stream(ds: Dataset, sizes: Sequence[int | float], randomize: bool) -> list[Dataset]:
    from .nodes import ShuffleDataset

    counts = _split_counts(sizes, ds.get_dataset_size())
    parts, skipped = [], 0
    for count in counts:
        part = ds
        if randomize:
            part = ShuffleDataset(ds, 10000, reshuffle_each_epoch=False)
        parts.append(part.skip(skipped).take(count) if skipped else part.take(count))
        skipped += count
    return parts
