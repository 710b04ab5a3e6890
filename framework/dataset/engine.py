"""``Dataset``: MindSpore's dataset pipeline object, its iterators and its saveable position.

Every pipeline node is a :class:`Dataset`. The contract between nodes:

- ``column_names``; ``batched`` (its rows are batches);
- ``_store()``: a :class:`~framework.dataset.stores.Store` when the node's rows are rows of
  an indexable store (sources, map/shuffle/take/skip/repeat/project/rename before ``batch``),
  else ``None`` (a streaming source, or anything after ``batch``);
- ``_ids(epoch)``: for store-backed nodes, the store rows of that epoch, in order;
- ``_num_rows()``: rows (batches after ``batch``) per epoch, or None when unknown;
- ``_rows(epoch, start)``: the rows of ``epoch`` from row ``start`` on, each a list of
  column values (NumPy arrays). Store-backed nodes gather them in chunks; others override.

Epochs: each iterator (``for row in ds``, ``create_tuple_iterator``) runs one epoch per
pass; epoch ``e``'s order is a pure function of the nodes' seeds and ``e``, and the
dataset counts epochs, so the next pass gets the next epoch's order. ``state_dict()``
is ``{epoch, position, ...}`` of the pass under way; ``load_state_dict`` makes the next
pass start there (exact mid-epoch resume, as :class:`datasets.BatchIterator` does).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .config import node_seed

ROW_CHUNK = 64  # rows gathered at once when iterating a store-backed node row by row


class Dataset:
    """Base of all pipeline nodes (see the module docstring for the node contract)."""

    batched = False

    def __init__(self, parents: Sequence[Dataset] = (), column_names: Sequence[str] = ()) -> None:
        self.parents = list(parents)
        self.column_names = list(column_names) if column_names else (
            list(self.parents[0].column_names) if self.parents else [])
        self.depth = 1 + max((p.depth for p in self.parents), default=0)
        self.seed, self.seed_explicit = node_seed()
        self._epoch = 0  # the epoch under way (or the next one when none is)
        self._position = 0  # rows of that epoch yielded
        self._restored = False  # load_state_dict set the position the next pass starts at
        self._started = False  # a pass has begun (the next one is a new epoch)

    # -- node contract -------------------------------------------------------------------------
    def _store(self) -> Any:
        return None

    def _ids(self, epoch: int) -> np.ndarray:
        raise NotImplementedError

    def _num_rows(self) -> int | None:
        store = self._store()
        return len(self._ids(0)) if store is not None else None

    def _rows(self, epoch: int, start: int) -> Iterator[list[Any]]:
        store = self._store()
        if store is None:
            raise NotImplementedError(type(self).__name__)
        ids = self._ids(epoch)
        first = start - start % ROW_CHUNK
        for chunk_start in range(first, len(ids), ROW_CHUNK):
            cols = store.gather(ids[chunk_start:chunk_start + ROW_CHUNK], (epoch, 1, chunk_start))
            for r in range(max(start - chunk_start, 0), len(cols[0])):
                yield [c[r] for c in cols]

    def _nodes(self) -> list[Dataset]:
        out, todo = [], [self]
        while todo:
            node = todo.pop()
            if node not in out:
                out.append(node)
                todo.extend(node.parents)
        return out

    # -- information (MindSpore names) ---------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows per epoch (batches after ``batch``); counts a streaming source by running it."""
        n = self._num_rows()
        if n is None and any(getattr(node, "endless", False) for node in self._nodes()):
            raise ValueError("get_dataset_size: the dataset is endless (repeat() without a count)")
        if n is None:
            n = sum(1 for _ in self._rows(0, 0))
        return n

    def get_col_names(self) -> list[str]:
        return list(self.column_names)

    def get_batch_size(self) -> int:
        for node in [self, *self.parents]:
            if hasattr(node, "batch_size"):
                return int(node.batch_size)
        return self.parents[0].get_batch_size() if self.parents else 1

    def get_repeat_count(self) -> int:
        return self.parents[0].get_repeat_count() if self.parents else 1

    def _first_row(self) -> list[np.ndarray]:
        row = next(iter(self._rows(0, 0)), None)
        if row is None:
            raise ValueError(f"{type(self).__name__} is empty: no row to read shapes and types from")
        return [np.asarray(v) for v in row]

    def output_shapes(self) -> list[list[int]]:
        return [list(v.shape) for v in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        return [v.dtype for v in self._first_row()]

    # -- epochs and position ------------------------------------------------------------------------
    def _begin_pass(self) -> tuple[int, int]:
        """The (epoch, start row) of a new pass, and mark it under way."""
        if self._restored:
            self._restored = False
        elif self._position or self._started:
            self._epoch, self._position = self._epoch + 1, 0
        self._started = True
        return self._epoch, self._position

    def _settings(self) -> dict[str, Any]:
        return {"rows": self._num_rows(), "batch_size": self.get_batch_size(),
                "columns": list(self.column_names)}

    def state_dict(self) -> dict[str, Any]:
        """The pass under way: ``epoch``, ``position`` (rows done), the seeds and settings."""
        seeds = [node.seed for node in self._nodes()]
        return {"epoch": self._epoch, "position": self._position, "seeds": seeds} | self._settings()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Make the next pass continue the saved one; refuses a pipeline with other settings."""
        ours = self._settings()
        diff = [f"{k} {state[k]!r} != {v!r}" for k, v in ours.items() if k in state and state[k] != v]
        nodes, seeds = self._nodes(), state.get("seeds")
        if seeds is not None and len(seeds) != len(nodes):
            diff.append(f"{len(seeds)} pipeline steps != {len(nodes)}")
        elif seeds is not None:
            for node, seed in zip(nodes, seeds, strict=True):
                if node.seed_explicit and node.seed != seed:
                    diff.append(f"seed {seed} != {node.seed}")
                    break
        if diff:
            raise ValueError(f"dataset state was saved with other settings: {', '.join(diff)}")
        for node, seed in zip(nodes, seeds or [], strict=False):
            node.seed = int(seed)
        epoch, position = int(state["epoch"]), int(state["position"])
        rows = ours["rows"]
        if rows is not None and position >= rows:
            epoch, position = epoch + 1, 0
        self._epoch, self._position, self._restored, self._started = epoch, position, True, True

    # -- iteration ------------------------------------------------------------------------------
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> TupleIterator:
        """Rows as lists of Tensors (NumPy arrays with ``output_numpy=True``)."""
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> DictIterator:
        """Rows as ``{column name: Tensor}`` (NumPy arrays with ``output_numpy=True``)."""
        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self) -> TupleIterator:
        return TupleIterator(self, None, 1, False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(columns={self.column_names})"

    # -- operations (the node classes are in nodes.py) ---------------------------------------------
    def map(self, operations: Any = None, input_columns: str | Sequence[str] | None = None,
            output_columns: str | Sequence[str] | None = None, column_order: Any = None,
            num_parallel_workers: int | None = None, **options: Any) -> Dataset:
        """Apply ``operations`` (one or a list) to ``input_columns`` (default: the first column)."""
        from .nodes import MapDataset, check_options

        check_options("map", options)
        mapped = MapDataset(self, operations, input_columns, output_columns)
        return mapped.project(list(column_order)) if column_order is not None else mapped

    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              **kwargs: Any) -> Dataset:
        """Stack ``batch_size`` consecutive rows (a short last batch is kept unless
        ``drop_remainder``); ``per_batch_map``, ``input_columns``, ``output_columns`` as in
        MindSpore (see :mod:`framework.dataset.batching`)."""
        from .nodes import BatchDataset, check_options

        mapping = {k: kwargs.pop(k, None) for k in ("per_batch_map", "input_columns", "output_columns")}
        check_options("batch", kwargs)
        return BatchDataset(self, batch_size, drop_remainder, **mapping)

    def padded_batch(self, batch_size: Any, drop_remainder: bool = False,
                     num_parallel_workers: int | None = None,
                     pad_info: dict[str, Any] | None = None) -> Dataset:
        """``batch`` padding the columns of ``pad_info`` (``{name: (shape or None, value)}``)."""
        from .nodes import BatchDataset

        return BatchDataset(self, batch_size, drop_remainder, pad_info=pad_info)

    def filter(self, predicate: Any, input_columns: str | Sequence[str] | None = None,
               num_parallel_workers: int | None = None) -> Dataset:
        """The rows for which ``predicate(*values of input_columns)`` is True."""
        from .combine import FilterDataset

        return FilterDataset(self, predicate, input_columns)

    def save(self, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
        """The rows written as MindRecord file(s) (:func:`framework.mindrecord.save_dataset`)."""
        from ..mindrecord import save_dataset

        save_dataset(self, file_name, num_files, file_type)

    def concat(self, datasets: Any) -> Dataset:
        """This dataset's rows, then each of ``datasets``' (``ds1 + ds2`` too)."""
        from .combine import concat

        return concat(self, datasets)

    def __add__(self, datasets: Any) -> Dataset:
        return self.concat(datasets)

    def zip(self, datasets: Any) -> Dataset:
        """The columns of this dataset and of ``datasets`` side by side."""
        from .combine import zip_datasets

        return zip_datasets(datasets, self)

    def shuffle(self, buffer_size: int) -> Dataset:
        """A new random order each epoch (a full permutation when the rows are indexable; a
        ``buffer_size`` buffer for streams and batches)."""
        from .nodes import ShuffleDataset

        return ShuffleDataset(self, buffer_size)

    def repeat(self, count: int | None = None) -> Dataset:
        """``count`` epochs of the input as one (None or -1: endless)."""
        from .nodes import RepeatDataset

        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> Dataset:
        from .nodes import SliceDataset

        return SliceDataset(self, 0, None if count == -1 else count, "take")

    def skip(self, count: int) -> Dataset:
        from .nodes import SliceDataset

        return SliceDataset(self, count, None, "skip")

    def project(self, columns: str | Sequence[str]) -> Dataset:
        from .nodes import SelectDataset

        names = [columns] if isinstance(columns, str) else list(columns)
        return SelectDataset(self, names, names, "project")

    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> Dataset:
        from .nodes import SelectDataset

        old = [input_columns] if isinstance(input_columns, str) else list(input_columns)
        new = [output_columns] if isinstance(output_columns, str) else list(output_columns)
        if len(old) != len(new):
            raise ValueError(f"rename: {len(old)} input_columns but {len(new)} output_columns")
        mapping = dict(zip(old, new, strict=True))
        return SelectDataset(self, list(self.column_names), [mapping.get(n, n) for n in self.column_names],
                             "rename", renamed=old)

    def split(self, sizes: Sequence[int | float], randomize: bool = True) -> list[Dataset]:
        """Disjoint datasets of ``sizes`` rows (ints) or fractions summing to 1."""
        from .source_nodes import split_dataset

        return split_dataset(self, sizes, randomize)


class TupleIterator:
    """Iterates a dataset pass by pass: a pass ends with ``StopIteration`` and the next
    ``for`` over the same iterator runs the next epoch, ``num_epochs`` times (-1: no limit)."""

    def __init__(self, dataset: Dataset, columns: Sequence[str] | None, num_epochs: int,
                 output_numpy: bool) -> None:
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or not (num_epochs == -1
                                                                                   or num_epochs >= 1):
            raise ValueError(f"num_epochs must be -1 or an int >= 1, got {num_epochs!r}")
        self.dataset, self.num_epochs, self.output_numpy = dataset, num_epochs, output_numpy
        names = dataset.column_names
        if columns is not None:
            missing = [c for c in columns if c not in names]
            if missing:
                raise ValueError(f"columns {missing} are not among the dataset's columns {names}")
        self._select = [names.index(c) for c in columns] if columns is not None else None
        self._passes = 0
        self._current: Iterator[list[Any]] | None = None

    def __iter__(self) -> TupleIterator:
        return self

    def _pass(self) -> Iterator[list[Any]]:
        ds = self.dataset
        epoch, start = ds._begin_pass()
        for row in ds._rows(epoch, start):
            ds._position += 1
            yield row

    def __next__(self) -> Any:
        if self._current is None:
            if self.num_epochs != -1 and self._passes >= self.num_epochs:
                raise StopIteration
            self._passes += 1
            self._current = self._pass()
        try:
            row = next(self._current)
        except StopIteration:
            self._current = None
            raise
        if self._select is not None:
            row = [row[i] for i in self._select]
        return self._output(row)

    def _output(self, row: list[Any]) -> Any:
        from .batching import output_value

        return [output_value(v, self.output_numpy) for v in row]

    def __len__(self) -> int:
        return self.dataset.get_dataset_size()

    def stop(self) -> None:
        self._current = None


class DictIterator(TupleIterator):
    def _output(self, row: list[Any]) -> Any:
        values = super()._output(row)
        return dict(zip(self.dataset.column_names, values, strict=True))
