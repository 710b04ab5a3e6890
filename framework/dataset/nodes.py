"""Pipeline operation nodes: map, batch, shuffle, repeat, take/skip, project/rename (the
node contract is in :mod:`framework.dataset.engine`; sources and split are in
:mod:`framework.dataset.source_nodes`).

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
from .ops_base import DataOp, flatten_ops
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
    """``batch``/``padded_batch``: groups of ``batch_size`` rows (a callable ``batch_size``
    gets a :class:`~framework.dataset.batching.BatchInfo` per batch); ``per_batch_map``,
    dict columns and padding are in :mod:`framework.dataset.batching`."""

    batched = True

    def __init__(self, parent: Dataset, batch_size: Any, drop_remainder: bool, per_batch_map: Any = None,
                 input_columns: Any = None, output_columns: Any = None, pad_info: Any = None) -> None:
        super().__init__([parent])
        if parent.batched:
            raise ValueError("batch: the dataset is already batched; call batch() once")
        self.size_fn = batch_size if callable(batch_size) else None
        self.batch_size = 1 if self.size_fn else _count(batch_size, "batch_size", 1)
        self.drop_remainder = bool(drop_remainder)
        names = parent.column_names
        self.pad_info = dict(pad_info or {})
        unknown = [c for c in self.pad_info if c not in names]
        if unknown:
            raise ValueError(f"padded_batch: pad_info names columns {unknown} not among {names}")
        self.per_batch_map, self.inputs, self.outputs = per_batch_map, [], []
        if per_batch_map is None and (input_columns is not None or output_columns is not None):
            raise ValueError("batch: input_columns and output_columns need a per_batch_map")
        if per_batch_map is not None:
            self._set_map(per_batch_map, input_columns, output_columns)

    def _set_map(self, fn: Any, input_columns: Any, output_columns: Any) -> None:
        from .batching import column_names_after

        if not callable(fn):
            raise TypeError(f"batch: per_batch_map must be callable, got {type(fn).__name__}")
        names = self.parents[0].column_names
        wanted = [input_columns] if isinstance(input_columns, str) else list(input_columns or names)
        missing = [c for c in wanted if c not in names]
        if missing:
            raise ValueError(f"batch: input_columns {missing} are not among the columns {names}")
        outputs = [output_columns] if isinstance(output_columns, str) else list(output_columns or wanted)
        self.inputs, self.outputs = [names.index(c) for c in wanted], outputs
        self.column_names = column_names_after(names, self.inputs, outputs)

    def _num_rows(self) -> int | None:
        n = self.parents[0]._num_rows()
        if n is None or self.size_fn is not None:
            return None
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def _finish(self, cols: list[Any], epoch: int, index: int) -> list[Any]:
        from .batching import BatchInfo, apply_per_batch_map, batch_column

        names = self.parents[0].column_names
        for c, name in enumerate(names):
            if c in self.inputs:
                continue
            pad = self.pad_info.get(name)
            if pad is not None and isinstance(cols[c], np.ndarray):
                cols[c] = list(cols[c])
            cols[c] = batch_column(cols[c], name, pad)
        if self.per_batch_map is None:
            return cols
        info = BatchInfo(index, epoch)
        return apply_per_batch_map(self.per_batch_map, cols, self.inputs, self.outputs, info)

    def _groups(self, epoch: int, start: int) -> Iterator[list[Any]]:
        """The columns of each batch from batch ``start`` on (stacked arrays or row lists)."""
        parent, size = self.parents[0], self.batch_size
        store = parent._store()
        if store is None or self.size_fn is not None:
            yield from self._stream_groups(epoch, start)
            return
        ids = parent._ids(epoch)
        count = len(ids) // size if self.drop_remainder else math.ceil(len(ids) / size)
        for b in range(start, count):
            yield store.gather(ids[b * size:(b + 1) * size], (epoch, 0, b))

    def _stream_groups(self, epoch: int, start: int) -> Iterator[list[Any]]:
        from .batching import BatchInfo

        first, size = (0 if self.size_fn else start), self.batch_size
        rows: list[list[Any]] = []
        b = first
        for row in self.parents[0]._rows(epoch, first * size):
            if not rows and self.size_fn is not None:
                size = _count(self.size_fn(BatchInfo(b, epoch)), "batch_size (from the callable)", 1)
            rows.append(row)
            if len(rows) >= size:
                if b >= start:
                    yield [[r[c] for r in rows] for c in range(len(row))]
                rows, b = [], b + 1
        if rows and not self.drop_remainder and b >= start:
            yield [[r[c] for r in rows] for c in range(len(rows[0]))]

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        for index, cols in enumerate(self._groups(epoch, start), start):
            yield self._finish(list(cols), epoch, index)


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
    """``reshuffle_each_epoch=False``: every epoch in the first epoch's order (``split``'s)."""

    def __init__(self, parent: Dataset, buffer_size: int, reshuffle_each_epoch: bool = True) -> None:
        super().__init__(parent)
        self.buffer_size = _count(buffer_size, "shuffle: buffer_size", 2)
        self.reshuffle_each_epoch = reshuffle_each_epoch

    def _draws(self, epoch: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, self.depth, epoch if self.reshuffle_each_epoch else 0])

    def _make_ids(self, epoch: int) -> np.ndarray:
        ids = self.parents[0]._ids(epoch)
        return ids[self._draws(epoch).permutation(len(ids))]

    def _num_rows(self) -> int | None:
        return self.parents[0]._num_rows()

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        if self._store() is not None:
            yield from super()._rows(epoch, start)
            return
        rng = self._draws(epoch)
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
        self.endless = self.count is None
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
