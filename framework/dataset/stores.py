"""Row stores: random access to the rows of a pipeline before ``batch``.

A store has column ``names``, a length, and ``gather(ids, key)``: the rows ``ids`` (an int
array) as one value per column with a leading row axis (an array, or a list when rows
differ in shape). ``key`` is a tuple of ints naming the draw (epoch, batch ...) from which
random operations seed their generator, so a batch is the same whenever it is recomputed.

- :class:`ArrayStore`: columns held as arrays (MNIST, CIFAR-10, NumPy slices);
- :class:`ItemStore`: a random-access Python source (``GeneratorDataset`` of ``source[i]``);
- :class:`CachedStore`: deterministic vectorized operations applied once to whole columns
  of an ``ArrayStore`` (several ``map`` calls on a column fuse into one chain, computed
  in chunks the first time a row is needed, so only the final result is kept);
- :class:`MapStore`: operations applied to the gathered rows (random operations, Python
  functions, maps over several columns);
- :class:`SelectStore`: ``project``/``rename`` views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .ops_base import DataOp, as_array, is_cacheable, stack_rows

CHUNK = 2048  # rows per chunk when a chain is applied to a whole column


class Store:
    names: list[str]
    materialized = False  # every column is a full array that needs no user code

    def __len__(self) -> int:
        raise NotImplementedError

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        raise NotImplementedError

    def column(self, index: int) -> np.ndarray:  # materialized stores only
        raise NotImplementedError


class ArrayStore(Store):
    materialized = True

    def __init__(self, names: Sequence[str], arrays: Sequence[np.ndarray]) -> None:
        lengths = {len(a) for a in arrays}
        if len(lengths) != 1:
            raise ValueError(f"columns {list(names)} have different numbers of rows: "
                             f"{[len(a) for a in arrays]}")
        self.names, self.arrays = list(names), list(arrays)

    def __len__(self) -> int:
        return len(self.arrays[0])

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        return [a[ids] for a in self.arrays]

    def column(self, index: int) -> np.ndarray:
        return self.arrays[index]


def normalize_row(item: Any, width: int | None, where: str) -> tuple[Any, ...]:
    """A source item as a tuple of arrays (a single value is a one-column row)."""
    values = tuple(item) if isinstance(item, tuple | list) else (item,)
    if width is not None and len(values) != width:
        raise ValueError(f"{where}: a row has {len(values)} values but column_names names {width} "
                         "columns")
    return tuple(as_array(v) for v in values)


class ItemStore(Store):
    def __init__(self, names: Sequence[str], source: Any) -> None:
        self.names, self.source = list(names), source

    def __len__(self) -> int:
        return len(self.source)

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        rows = [normalize_row(self.source[int(i)], len(self.names), "GeneratorDataset") for i in ids]
        return [stack_rows([r[c] for r in rows], name) for c, name in enumerate(self.names)]


def apply_chain(x: Any, ops: Sequence[Callable[..., Any]], rng: np.random.Generator | None) -> Any:
    """Apply ``ops`` to a column of rows: data operations on the whole array, other callables row by row."""
    for op in ops:
        if isinstance(op, DataOp) and isinstance(x, np.ndarray):
            x = op.apply_batch(x, rng)
        elif isinstance(op, DataOp):
            x = stack_rows([op.apply_batch(np.asarray(r)[np.newaxis], rng)[0] for r in x], "map")
        else:
            x = stack_rows([op(r) for r in x], "map")
    return x


class CachedStore(Store):
    materialized = True

    def __init__(self, base: Store, chains: dict[int, list[Any]]) -> None:
        if isinstance(base, CachedStore):  # fuse with the parent's chains
            merged = {i: list(c) for i, c in base.chains.items()}
            for i, chain in chains.items():
                merged[i] = merged.get(i, []) + list(chain)
            base, chains = base.base, merged
        self.base, self.chains, self.names = base, chains, list(base.names)
        self._cache: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.base)

    def column(self, index: int) -> np.ndarray:
        if index not in self.chains:
            return self.base.column(index)
        if index not in self._cache:
            source, chain = self.base.column(index), self.chains[index]
            first = apply_chain(source[:CHUNK], chain, None)
            if not isinstance(first, np.ndarray):
                raise ValueError(f"map on column {self.names[index]!r}: the operations give rows of "
                                 "different shapes")
            out = np.empty((len(source), *first.shape[1:]), dtype=first.dtype)
            out[:CHUNK] = first
            for start in range(CHUNK, len(source), CHUNK):
                out[start:start + CHUNK] = apply_chain(source[start:start + CHUNK], chain, None)
            self._cache[index] = out
        return self._cache[index]

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        return [self.column(i)[ids] for i in range(len(self.names))]


class MapStore(Store):
    def __init__(self, parent: Store, ops: list[Any], inputs: list[int], outputs: list[str],
                 seed: int, salt: int) -> None:
        self.parent, self.ops, self.inputs, self.outputs = parent, ops, inputs, outputs
        self.seed, self.salt = seed, salt
        self.random = any(getattr(op, "random", False) for op in ops)
        self.names = output_names(parent.names, inputs, outputs)

    def __len__(self) -> int:
        return len(self.parent)

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        cols = self.parent.gather(ids, key)
        rng = np.random.default_rng([self.seed, self.salt, *key]) if self.random else None
        results = apply_map(self.ops, [cols[i] for i in self.inputs], len(self.outputs), rng)
        return replace_columns(cols, self.inputs, results)


def apply_map(ops: list[Any], inputs: list[Any], n_out: int, rng: np.random.Generator | None) -> list[Any]:
    """The output columns of ``map`` for gathered input columns."""
    if len(inputs) == 1 and n_out == 1:
        return [apply_chain(inputs[0], ops, rng)]
    rows = []
    for r in range(len(inputs[0])):
        values: Any = tuple(col[r] for col in inputs)
        for op in ops:
            if isinstance(op, DataOp):
                if len(values) != 1:
                    raise ValueError(f"map: {op!r} takes one column, but it gets {len(values)}")
                values = (op.apply_batch(np.asarray(values[0])[np.newaxis], rng)[0],)
            else:
                out = op(*values)
                values = tuple(out) if isinstance(out, tuple) else (out,)
        if len(values) != n_out:
            raise ValueError(f"map: the operations return {len(values)} values per row but "
                             f"output_columns names {n_out}")
        rows.append(values)
    return [stack_rows([row[c] for row in rows], "map") for c in range(n_out)]


def output_names(names: list[str], inputs: list[int], outputs: list[str]) -> list[str]:
    """Column names after a map (MindSpore's rule): as many outputs as inputs replace them in
    place; otherwise the outputs come first, then the other columns in their order."""
    out = replace_columns(list(names), inputs, list(outputs))
    if len(set(out)) != len(out):
        raise ValueError(f"map: output_columns {outputs} repeat a column name of {names}")
    return out


def replace_columns(cols: list[Any], inputs: list[int], results: list[Any]) -> list[Any]:
    if len(results) == len(inputs):
        out = list(cols)
        for i, value in zip(inputs, results, strict=True):
            out[i] = value
        return out
    return list(results) + [c for i, c in enumerate(cols) if i not in inputs]


class SelectStore(Store):
    def __init__(self, parent: Store, indexes: list[int], names: list[str]) -> None:
        self.parent, self.indexes, self.names = parent, indexes, names
        self.materialized = parent.materialized

    def __len__(self) -> int:
        return len(self.parent)

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        cols = self.parent.gather(ids, key)
        return [cols[i] for i in self.indexes]

    def column(self, index: int) -> np.ndarray:
        return self.parent.column(self.indexes[index])


def map_store(parent: Store, ops: list[Any], inputs: list[int], outputs: list[str], seed: int,
              salt: int) -> Store:
    """The store of ``map``: a leading run of deterministic data operations on one column of a
    materialized store is cached (fused with earlier maps); the rest runs on gathered rows."""
    same_name = len(inputs) == 1 and outputs == [parent.names[inputs[0]]]
    if not (parent.materialized and same_name and not isinstance(parent, SelectStore)):
        return MapStore(parent, ops, inputs, outputs, seed, salt)
    cut = 0
    while cut < len(ops) and is_cacheable(ops[cut]):
        cut += 1
    store: Store = CachedStore(parent, {inputs[0]: ops[:cut]}) if cut else parent
    if cut < len(ops):
        store = MapStore(store, ops[cut:], inputs, outputs, seed, salt)
    return store
