"""What ``batch`` does to a group of rows, and how Python objects leave the pipeline.

- :func:`batch_column`: a column of ``k`` rows as one value: arrays of one shape stacked;
  dicts (MindSpore's Python-object columns) as one dict whose every key holds the stacked
  values of that key (they must stack into a non-object array: nested dicts and mixed
  types are an error, as in MindSpore); ``pad`` (``padded_batch``'s ``(shape, value)``)
  pads arrays of different shapes first, ``None`` dims to the batch's largest.
- :func:`apply_per_batch_map`: ``batch(per_batch_map=f, input_columns=..., output_columns=...)``:
  ``f(col_1, ..., col_n, batch_info)`` gets each input column as a list of the rows' values
  (NumPy arrays, dicts as they are) and returns a tuple of columns; a column returned as a
  list of dicts becomes one dict of lists (grouped by key), any other is batched by
  :func:`batch_column`. Columns are placed by :func:`stores.replace_columns`'s rule.
- :func:`output_value`: a row value as an iterator gives it: Tensors (NumPy arrays with
  ``output_numpy``), recursively inside dicts, lists and tuples; strings stay NumPy arrays.
  A top-level int64 array is returned with NumPy's ``longlong`` type, as MindSpore's
  iterator does, so that it prints as ``array(0, dtype=int64)``; a str array is as wide
  as its longest string.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .ops_base import stack_rows
from .stores import replace_columns


class BatchInfo:
    """The ``batch_info`` argument of ``per_batch_map`` and of a callable ``batch_size``."""

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        return self._batch_num

    def get_epoch_num(self) -> int:
        return self._epoch_num


def _pad(values: list[Any], name: str, pad: tuple[Any, Any]) -> list[np.ndarray]:
    shape, value = pad
    arrays = [np.asarray(v) for v in values]
    ndim = arrays[0].ndim
    target = list(shape) if shape is not None else [None] * ndim
    if len(target) != ndim or any(a.ndim != ndim for a in arrays):
        raise ValueError(f"padded_batch: column {name!r}: pad shape {shape} does not fit rows of rank {ndim}")
    target = [max(a.shape[d] for a in arrays) if t is None else int(t) for d, t in enumerate(target)]
    out = []
    for a in arrays:
        if any(s > t for s, t in zip(a.shape, target, strict=True)):
            raise ValueError(f"padded_batch: column {name!r}: a row of shape {a.shape} is larger than the "
                             f"pad shape {tuple(target)}")
        out.append(np.pad(a, [(0, t - s) for s, t in zip(a.shape, target, strict=True)],
                          constant_values=value if value is not None else 0))
    return out


def _batch_dicts(values: list[dict[str, Any]], name: str) -> dict[str, Any]:
    keys = list(values[0])
    if any(list(v) != keys for v in values):
        raise ValueError(f"batch: the dicts of column {name!r} have different keys")
    out = {}
    for key in keys:
        stacked = stack_rows([v[key] for v in values], name)
        if isinstance(stacked, list) or stacked.dtype == object:
            raise ValueError(f"batch: failed to make one NumPy array of the values of key {key!r} in "
                             f"column {name!r}; define a per_batch_map function to batch them")
        out[key] = stacked
    return out


def batch_column(values: list[Any], name: str, pad: tuple[Any, Any] | None = None) -> Any:
    """``values`` (one per row, or already stacked) batched into one value (see module doc)."""
    if isinstance(values, np.ndarray):
        return values
    if values and all(isinstance(v, dict) for v in values):
        return _batch_dicts(values, name)
    if any(isinstance(v, dict) for v in values):
        raise ValueError(f"batch: column {name!r} mixes dicts and other values")
    if pad is not None:
        values = _pad(values, name, pad)
    stacked = stack_rows(values, name)
    if isinstance(stacked, list):
        shapes = sorted({tuple(np.shape(v)) for v in stacked})
        raise ValueError(f"batch: column {name!r} has rows of different shapes {shapes[:3]}; "
                         "resize or pad them to one shape (or use padded_batch) before batch()")
    return stacked


def _rows_of(column: Any) -> list[Any]:
    if isinstance(column, np.ndarray):
        return [np.asarray(v) for v in column]
    return [v if isinstance(v, dict) else np.asarray(v) for v in column]


def _group(value: Any, name: str) -> Any:
    if isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
        keys = list(value[0])
        return {k: [v[k] for v in value] for k in keys}
    if isinstance(value, dict):
        return value
    return batch_column(list(value) if not isinstance(value, np.ndarray) else value, name)


def apply_per_batch_map(fn: Callable[..., Any], cols: list[Any], inputs: list[int], outputs: list[str],
                        info: BatchInfo) -> list[Any]:
    """The batch's columns after ``fn`` (``cols``: per column, stacked or a list of rows)."""
    result = fn(*[_rows_of(cols[i]) for i in inputs], info)
    if not isinstance(result, tuple):
        raise TypeError(f"batch: per_batch_map must return a tuple of columns, got {type(result).__name__}")
    if len(result) != len(outputs):
        raise ValueError(f"batch: per_batch_map returned {len(result)} columns but output_columns names "
                         f"{len(outputs)}: {outputs}")
    return replace_columns(cols, inputs, [_group(v, n) for v, n in zip(result, outputs, strict=True)])


def _leaf(value: Any, numpy: bool) -> Any:
    if isinstance(value, dict):
        return {k: _leaf(v, numpy) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_leaf(v, numpy) for v in value)
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if numpy or array.dtype.kind in "USO":
        return array
    from ..common.tensor import Tensor

    return Tensor(array)


def _narrow(array: np.ndarray) -> np.ndarray:
    """A str array with the width of its longest string (MindSpore's rows do not keep their
    source array's width: ``['x', 'yy']`` gives ``'x'`` as ``<U1``)."""
    width = int(np.char.str_len(array).max()) if array.size else 1
    return array.astype(f"<U{max(width, 1)}")


def output_value(value: Any, numpy: bool) -> Any:
    """A top-level row value as the iterator returns it (see the module docstring)."""
    if isinstance(value, dict):
        return _leaf(value, numpy)
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    if array.dtype.kind == "U":
        return _narrow(array)
    if array.dtype.kind in "SO" and not numpy:
        return array
    if not numpy:
        from ..common.tensor import Tensor

        return Tensor(array)
    return array.view(np.longlong) if array.dtype == np.int64 else array


def column_names_after(names: Sequence[str], inputs: list[int], outputs: Sequence[str]) -> list[str]:
    out = replace_columns(list(names), inputs, list(outputs))
    if len(set(out)) != len(out):
        raise ValueError(f"batch: output_columns {list(outputs)} repeat a column name of {list(names)}")
    return out
