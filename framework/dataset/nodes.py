"""Pipeline nodes: sources with a sampler, map, batch, shuffle, repeat, take/skip,
project/rename and split (the node contract is in :mod:`framework.dataset.engine`).

Random draws are seeded by ``(node seed, node depth, epoch[, batch/row])``: the order of an
epoch and its augmentations depend on nothing else, so they are the same when recomputed
after a resume.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .engine import Dataset
from .ops_base import DataOp, flatten_ops, stack_rows
from .stores import Store, apply_map, map_store, replace_columns

IGNORED_OPTIONS = {"num_parallel_workers", "python_multiprocessing", "max_rowsize", "cache", "callbacks",
                   "offload"}


def check_options(what: str, options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - IGNORED_OPTIONS)
    if unknown:
        raise TypeError(f"{what}: unsupported argument(s) {', '.join(unknown)}")


def _count(value: Any, what: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{what} must be an int >= {minimum}, got {value!r}")
    return int(value)


class _EpochCache:
    """Keeps the last two epochs' id arrays of a node (permutations are not free)."""

    def __init__(self) -> None:
        self._items: dict[int, np.ndarray] = {}

    def get(self, epoch: int, make: Any) -> np.ndarray:
        if epoch not in self._items:
            if len(self._items) >= 2:
                self._items.pop(next(iter(self._items)))
            self._items[epoch] = make(epoch)
        return self._items[epoch]


class SourceDataset(Dataset):
    """A store with MindSpore's sampler options: ``shuffle`` (None means True), ``num_samples``,
    ``num_shards``/``shard_id`` (shard ``i`` takes rows ``i, i + k, ...`` of the epoch's order,
    padded by wrapping around so that every shard has ``ceil(N / k)`` rows)."""

    def __init__(self, store: Store, shuffle: bool | None = None, num_samples: int | None = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        super().__init__((), store.names)
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

    def _store(self) -> Store:
        return self.store

    def _make_ids(self, epoch: int) -> np.ndarray:
        n = len(self.store)
        order = (np.random.default_rng([self.seed, self.depth, epoch]).permutation(n)
                 if self.shuffle_rows else np.arange(n))
        if self.num_shards:
            per = math.ceil(n / self.num_shards)
            order = np.resize(order, per * self.num_shards)[self.shard_id::self.num_shards]
        return order[:self.num_samples] if self.num_samples else order

    def _ids(self, epoch: int) -> np.ndarray:
        return self._cache.get(epoch, self._make_ids)

    def _num_rows(self) -> int:
        n = len(self.store)
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


class MapDataset(Dataset):
    def __init__(self, parent: Dataset, operations: Any, input_columns: Any, output_columns: Any) -> None:
        super().__init__([parent])
        self.ops = flatten_ops(operations)
        names = parent.column_names
        inputs = [input_columns] if isinstance(input_columns, str) else list(input_columns or names[:1])
        missing = [c for c in inputs if c not in names]
        if missing:
            raise ValueError(f"map: input_columns {missing} are not among the columns {names}")
        outputs = ([output_columns] if isinstance(output_columns, str) else list(output_columns)
                   if output_columns is not None else list(inputs))
        self.inputs, self.outputs = [names.index(c) for c in inputs], outputs
        from .stores import output_names

        self.column_names = output_names(names, self.inputs, outputs)
        self.batched = parent.batched
        store = parent._store()
        self._map_store = (map_store(store, self.ops, self.inputs, outputs, self.seed, self.depth)
                           if store is not None else None)
        self.random = any(getattr(op, "random", False) for op in self.ops)

    def _store(self) -> Store | None:
        return self._map_store

    def _ids(self, epoch: int) -> np.ndarray:
        return self.parents[0]._ids(epoch)

    def _num_rows(self) -> int | None:
        return self.parents[0]._num_rows()

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._map_store is not None:
            yield from super()._rows(epoch, start)
            return
        for pos, row in enumerate(self.parents[0]._rows(epoch, start), start):
            rng = np.random.default_rng([self.seed, self.depth, epoch, pos]) if self.random else None
            if self.batched:  # a row is a batch: every operation gets whole columns
                values = [row[i] for i in self.inputs]
                for op in self.ops:
                    out = op.apply_batch(values[0], rng) if isinstance(op, DataOp) else op(*values)
                    values = list(out) if isinstance(out, tuple) else [out]
                yield replace_columns(row, self.inputs, values)
            else:
                cols = [np.asarray(v)[np.newaxis] for v in row]
                results = apply_map(self.ops, [cols[i] for i in self.inputs], len(self.outputs), rng)
                yield [c[0] for c in replace_columns(cols, self.inputs, results)]


class BatchDataset(Dataset):
    batched = True

    def __init__(self, parent: Dataset, batch_size: int, drop_remainder: bool) -> None:
        super().__init__([parent])
        if parent.batched:
            raise ValueError("batch: the dataset is already batched; call batch() once")
        self.batch_size = _count(batch_size, "batch_size", 1)
        self.drop_remainder = bool(drop_remainder)

    def _num_rows(self) -> int | None:
        n = self.parents[0]._num_rows()
        if n is None:
            return None
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def _stack(self, cols: list[Any]) -> list[Any]:
        for name, col in zip(self.column_names, cols, strict=True):
            if isinstance(col, list):
                shapes = sorted({tuple(np.shape(v)) for v in col})
                raise ValueError(f"batch: column {name!r} has rows of different shapes {shapes[:3]}; "
                                 "resize or pad them to one shape before batch()")
        return cols

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        parent, size = self.parents[0], self.batch_size
        store = parent._store()
        if store is not None:
            ids = parent._ids(epoch)
            count = len(ids) // size if self.drop_remainder else math.ceil(len(ids) / size)
            for b in range(start, count):
                yield self._stack(store.gather(ids[b * size:(b + 1) * size], (epoch, 0, b)))
            return
        rows: list[list[Any]] = []
        for row in parent._rows(epoch, start * size):
            rows.append(row)
            if len(rows) == size:
                yield self._stack([stack_rows([r[c] for r in rows], "batch") for c in range(len(row))])
                rows = []
        if rows and not self.drop_remainder:
            yield self._stack([stack_rows([r[c] for r in rows], "batch") for c in range(len(rows[0]))])


class _Passthrough(Dataset):
    """A node whose rows come from its parent's store (ids transformed by ``_ids``)."""

    def __init__(self, parent: Dataset) -> None:
        super().__init__([parent])
        self.batched = parent.batched
        self._cache = _EpochCache()

    def _store(self) -> Store | None:
        return self.parents[0]._store()

    def _ids(self, epoch: int) -> np.ndarray:
        return self._cache.get(epoch, self._make_ids)

    def _make_ids(self, epoch: int) -> np.ndarray:
        raise NotImplementedError


class ShuffleDataset(_Passthrough):
    def __init__(self, parent: Dataset, buffer_size: int) -> None:
        super().__init__(parent)
        self.buffer_size = _count(buffer_size, "shuffle: buffer_size", 2)

    def _make_ids(self, epoch: int) -> np.ndarray:
        ids = self.parents[0]._ids(epoch)
        return ids[np.random.default_rng([self.seed, self.depth, epoch]).permutation(len(ids))]

    def _num_rows(self) -> int | None:
        return self.parents[0]._num_rows()

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._store() is not None:
            yield from super()._rows(epoch, start)
            return
        rng = np.random.default_rng([self.seed, self.depth, epoch])
        buffer: list[list[Any]] = []

        def stream() -> Iterator[list[Any]]:
            for row in self.parents[0]._rows(epoch, 0):
                if len(buffer) < self.buffer_size:
                    buffer.append(row)
                    continue
                j = int(rng.integers(self.buffer_size))
                yield buffer[j]
                buffer[j] = row
            rng.shuffle(buffer)  # type: ignore[arg-type]
            yield from buffer

        yield from itertools.islice(stream(), start, None)


class RepeatDataset(_Passthrough):
    def __init__(self, parent: Dataset, count: int | None) -> None:
        super().__init__(parent)
        self.count = None if count in (None, -1) else _count(count, "repeat: count", 1)
        if self.count is None:
            self._store = lambda: None  # type: ignore[method-assign]  # endless: stream only

    def get_repeat_count(self) -> int:
        return self.count or -1

    def _make_ids(self, epoch: int) -> np.ndarray:
        parent = self.parents[0]
        return np.concatenate([parent._ids(epoch * self.count + r) for r in range(self.count)])

    def _num_rows(self) -> int | None:
        n = self.parents[0]._num_rows()
        return None if n is None or self.count is None else n * self.count

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._store() is not None:
            yield from super()._rows(epoch, start)
            return
        parent, n = self.parents[0], self.parents[0]._num_rows()
        first, skip = (start // n, start % n) if n else (0, start)
        passes = range(first, self.count) if self.count else itertools.count(first)
        rows = itertools.chain.from_iterable(
            parent._rows(epoch * (self.count or 1) + r, skip if r == first and n else 0) for r in passes)
        yield from (rows if n else itertools.islice(rows, skip, None))


class SliceDataset(_Passthrough):
    def __init__(self, parent: Dataset, begin: int, stop: int | None, what: str) -> None:
        super().__init__(parent)
        self.begin = _count(begin, f"{what}: count")
        self.stop = None if stop is None else self.begin + _count(stop, f"{what}: count", 1)

    def _make_ids(self, epoch: int) -> np.ndarray:
        return self.parents[0]._ids(epoch)[self.begin:self.stop]

    def _num_rows(self) -> int | None:
        n = self.parents[0]._num_rows()
        if n is None:
            return None
        return max(min(n, self.stop if self.stop is not None else n) - self.begin, 0)

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._store() is not None:
            yield from super()._rows(epoch, start)
            return
        rows = self.parents[0]._rows(epoch, self.begin + start)
        if self.stop is not None:
            rows = itertools.islice(rows, max(self.stop - self.begin - start, 0))
        yield from rows


class SelectDataset(_Passthrough):
    def __init__(self, parent: Dataset, picked: list[str], names: list[str], what: str,
                 renamed: Sequence[str] = ()) -> None:
        super().__init__(parent)
        known = parent.column_names
        missing = [c for c in [*picked, *renamed] if c not in known]
        if missing:
            raise ValueError(f"{what}: columns {missing} are not among the columns {known}")
        if len(set(names)) != len(names):
            raise ValueError(f"{what}: the result would repeat a column name: {names}")
        self.indexes, self.column_names = [known.index(c) for c in picked], list(names)
        from .stores import SelectStore

        store = parent._store()
        self._select_store = (SelectStore(store, self.indexes, self.column_names)
                              if store is not None else None)

    def _store(self) -> Store | None:
        return self._select_store

    def _make_ids(self, epoch: int) -> np.ndarray:
        return self.parents[0]._ids(epoch)

    def _num_rows(self) -> int | None:
        return self.parents[0]._num_rows()

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._select_store is not None:
            yield from super()._rows(epoch, start)
            return
        for row in self.parents[0]._rows(epoch, start):
            yield [row[i] for i in self.indexes]


class SubsetDataset(_Passthrough):
    """One part of ``split``: fixed store rows, reshuffled each epoch when ``randomize``."""

    def __init__(self, parent: Dataset, ids: np.ndarray, randomize: bool) -> None:
        super().__init__(parent)
        self.fixed, self.randomize = ids, randomize

    def _make_ids(self, epoch: int) -> np.ndarray:
        if not self.randomize:
            return self.fixed
        return self.fixed[np.random.default_rng([self.seed, self.depth, epoch]).permutation(len(self.fixed))]

    def _num_rows(self) -> int:
        return len(self.fixed)


def split_dataset(ds: Dataset, sizes: Sequence[int | float], randomize: bool) -> list[Dataset]:
    if ds._store() is None or ds.get_repeat_count() != 1:
        raise ValueError("split: only datasets of indexable rows (sources, map, take, skip ... before "
                         "batch and repeat) can be split")
    rows = np.sort(ds._ids(0))
    total = len(rows)
    sizes = list(sizes)
    if not sizes:
        raise ValueError("split: sizes must not be empty")
    if all(isinstance(s, float) for s in sizes):
        if not math.isclose(sum(sizes), 1.0) or min(sizes) <= 0:
            raise ValueError(f"split: fractions must be > 0 and sum to 1, got {sizes}")
        counts = [int(math.floor(s * total)) for s in sizes]
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
    elif all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        counts = [int(s) for s in sizes]
        if sum(counts) != total or min(counts) < 1:
            raise ValueError(f"split: sizes {counts} must be >= 1 and sum to the dataset size {total}")
    else:
        raise ValueError(f"split: sizes must be all ints or all floats, got {sizes}")
    if randomize:
        rows = rows[np.random.default_rng([ds.seed, ds.depth, 0x5B11]).permutation(total)]
    bounds = np.cumsum([0, *counts])
    return [SubsetDataset(ds, rows[a:b], randomize) for a, b in itertools.pairwise(bounds)]
