"""``filter``, ``concat`` (``ds1 + ds2``) and ``zip``: nodes that stream their parents' rows.

Node contract: :mod:`framework.dataset.engine`. None of these has a store (their rows are
not the rows of one indexable source), so a ``shuffle`` after them is a buffer shuffle, as
in MindSpore. Epoch ``e`` of each reads epoch ``e`` of every parent; a resumed pass skips
whole parents whose row count is known (``concat``) or re-reads and drops rows (``filter``).

- ``filter(predicate, input_columns=None)``: keeps the rows for which ``predicate(*values)``
  (the values of ``input_columns``, default all columns, as NumPy arrays) is a bool True;
  anything but a bool (or a one-element bool array) is an error, as in MindSpore;
- ``concat``: the rows of each dataset in turn; all must have the same column names;
- ``zip``: the columns of all datasets side by side, as many rows as the shortest; the
  column names must be distinct.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .engine import Dataset


def _as_list(datasets: Any, what: str) -> list[Dataset]:
    items = list(datasets) if isinstance(datasets, list | tuple) else [datasets]
    bad = [type(d).__name__ for d in items if not isinstance(d, Dataset)]
    if bad or not items:
        raise TypeError(f"{what}: expected a dataset or a list of datasets, got {bad or items}")
    return items


def _predicate_value(result: Any) -> bool:
    if isinstance(result, bool | np.bool_):
        return bool(result)
    if isinstance(result, np.ndarray) and result.dtype == np.bool_ and result.size == 1:
        return bool(result.reshape(()))
    raise TypeError(f"filter: the predicate must return a bool, got {type(result).__name__} {result!r}")


class FilterDataset(Dataset):
    def __init__(self, parent: Dataset, predicate: Callable[..., Any],
                 input_columns: str | Sequence[str] | None) -> None:
        super().__init__([parent])
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {type(predicate).__name__}")
        names = parent.column_names
        wanted = [input_columns] if isinstance(input_columns, str) else list(input_columns or names)
        missing = [c for c in wanted if c not in names]
        if missing:
            raise ValueError(f"filter: input_columns {missing} are not among the columns {names}")
        self.predicate, self.inputs = predicate, [names.index(c) for c in wanted]
        self.batched = parent.batched

    def _num_rows(self) -> int | None:
        return None

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        def kept() -> Iterator[list[Any]]:
            for row in self.parents[0]._rows(epoch, 0):
                values = [row[i] if isinstance(row[i], dict) else np.asarray(row[i]) for i in self.inputs]
                if _predicate_value(self.predicate(*values)):
                    yield row

        yield from itertools.islice(kept(), start, None)


class ConcatDataset(Dataset):
    def __init__(self, datasets: list[Dataset]) -> None:
        super().__init__(datasets)
        names = datasets[0].column_names
        for other in datasets[1:]:
            if other.column_names != names:
                raise ValueError(f"concat: the datasets must have the same columns, got {names} and "
                                 f"{other.column_names}")
        self.batched = any(d.batched for d in datasets)

    def _num_rows(self) -> int | None:
        counts = [d._num_rows() for d in self.parents]
        return None if None in counts else sum(counts)  # type: ignore[arg-type]

    def get_repeat_count(self) -> int:
        return 1

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        for child in self.parents:
            n = child._num_rows()
            if n is not None:  # skip or enter a child of known size directly
                if start < n:
                    yield from child._rows(epoch, start)
                start = max(start - n, 0)
                continue
            for row in child._rows(epoch, 0):
                if start:
                    start -= 1
                    continue
                yield row


class ZipDataset(Dataset):
    def __init__(self, datasets: list[Dataset]) -> None:
        names = [n for d in datasets for n in d.column_names]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"zip: the datasets share the column names {repeated}; rename them first")
        super().__init__(datasets, names)
        self.batched = any(d.batched for d in datasets)

    def _num_rows(self) -> int | None:
        counts = [d._num_rows() for d in self.parents]
        return None if None in counts else min(counts)  # type: ignore[type-var]

    def get_repeat_count(self) -> int:
        return 1

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        streams = [child._rows(epoch, start) for child in self.parents]
        for parts in zip(*streams, strict=False):
            yield [v for part in parts for v in part]


def concat(first: Dataset, datasets: Any) -> Dataset:
    return ConcatDataset([first, *_as_list(datasets, "concat")])


def zip_datasets(datasets: Any, first: Dataset | None = None) -> Dataset:
    items = _as_list(datasets, "zip")
    return ZipDataset([first, *items] if first is not None else items)
