"""``MindDataset``: MindRecord files as a pipeline source (MindSpore's signature and columns).

    ds = MindDataset("data.mindrecord", columns_list=None, shuffle=False)

Columns are the schema's fields in name order, or ``columns_list`` in its order. Values as
MindSpore gives them: numbers as 0-d arrays of the field's type, arrays in the schema's
shape, strings as 0-d ``str`` arrays, ``bytes`` as a ``(1,)`` array of ``S`` dtype. A str
``dataset_files`` reads every shard its header lists; a list reads those files. Rows run
file by file; ``shuffle`` (None or True: shuffled each epoch; ``Shuffle`` values count as
True), ``num_samples`` and ``num_shards``/``shard_id`` (shard ``i`` takes rows ``i, i + k,
...`` padded by wrapping, as MindSpore) and ``sampler`` work as for the other sources
(:class:`framework.dataset.source_nodes.SourceDataset`). Rows are read from disk when a
batch needs them. ``padded_sample``/``num_padded`` are refused; ``cache`` is ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..mindrecord.reader import MindRecordSet
from ..mindrecord.schema import NUMERIC, MindRecordError
from .ops_base import stack_rows
from .source_nodes import SourceDataset
from .stores import Store


def _value(value: Any, spec: dict[str, Any]) -> np.ndarray:
    kind = spec["type"]
    if kind == "bytes":
        return np.array([value], dtype=f"S{max(len(value), 1)}")
    if kind == "string":
        return np.array(value)
    if "shape" in spec:
        return value
    return np.asarray(value, dtype=NUMERIC[kind])


class MindRecordStore(Store):
    """Rows of a :class:`MindRecordSet`, only the ``names`` columns."""

    def __init__(self, records: MindRecordSet, names: list[str]) -> None:
        self.records, self.names = records, names
        self.specs = [records.schema[n] for n in names]
        self.wanted = set(names)

    def __len__(self) -> int:
        return len(self.records)

    def gather(self, ids: np.ndarray, key: tuple[int, ...]) -> list[Any]:
        rows = [self.records.read(int(i), self.wanted) for i in ids]
        out = []
        for name, spec in zip(self.names, self.specs):
            values = [_value(r[name], spec) for r in rows]
            if spec["type"] in ("string", "bytes") and len({v.dtype for v in values}) > 1:
                out.append(values)  # each row keeps its own width (<U5, |S3 ...), as in MindSpore
            else:
                out.append(stack_rows(values, name))
        return out


def _columns(columns_list: Sequence[str] | None, schema: dict[str, Any]) -> list[str]:
    if columns_list is None:
        return list(schema)
    names = [columns_list] if isinstance(columns_list, str) else list(columns_list)
    unknown = [n for n in names if n not in schema]
    if not names or unknown or len(set(names)) != len(names):
        raise MindRecordError(f"MindDataset: columns_list {names} must be distinct fields of {list(schema)}")
    return names


class MindDataset(SourceDataset):
    """``MindDataset(dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
    num_shards=None, shard_id=None, sampler=None, padded_sample=None, num_padded=None,
    num_samples=None, cache=None)``; see the module docstring."""

    def __init__(self, dataset_files: Any, columns_list: Sequence[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, sampler: Any = None, padded_sample: Any = None,
                 num_padded: int | None = None, num_samples: int | None = None, cache: Any = None) -> None:
        if padded_sample is not None or num_padded:
            raise TypeError("MindDataset: padded_sample/num_padded are not supported")
        records = MindRecordSet(dataset_files)
        store = MindRecordStore(records, _columns(columns_list, records.schema))
        if shuffle is not None and not isinstance(shuffle, bool):
            shuffle = True  # Shuffle.GLOBAL / FILES / INFILE: all shuffle rows here
        extra = {} if sampler is None else {"sampler": sampler}  # framework.dataset.samplers
        super().__init__(store, shuffle, num_samples, num_shards, shard_id, **extra)
