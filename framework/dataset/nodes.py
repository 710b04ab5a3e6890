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
