"""The contract between the pipeline and its data operations (``vision``, ``transforms``).

A :class:`DataOp` works on one column. It has two entry points:

- ``op(sample)``: MindSpore's eager use, one sample (an image is ``H x W`` or ``H x W x C``);
- ``op.apply_batch(x, rng)``: the same operation on many samples at once, ``x`` having a
  leading sample axis (``N x H x W [x C]``); ``rng`` is a ``numpy.random.Generator`` for
  random operations (``random = True``), ``None`` for the others.

``apply_batch`` must give, sample by sample, what ``op(sample)`` gives (the tests check it).
Deterministic operations (``random = False``) are pure functions of one sample: the
pipeline may apply them once to a whole source array and keep the result. Any other
callable in ``map`` (a Python function, a lambda) is called per row with the row's
column values, as MindSpore calls it, and is never cached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class DataOp:
    """Base class of the vectorized data operations."""

    random: bool = False

    def apply_batch(self, x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, sample: Any) -> np.ndarray:
        x = np.asarray(sample.asnumpy() if hasattr(sample, "asnumpy") else sample)
        rng = np.random.default_rng() if self.random else None
        return eager_array(self.apply_batch(x[np.newaxis], rng)[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SampleOp(DataOp):
    """A data operation written for one sample (``sample(x, rng)``): ``apply_batch`` loops over
    the samples (their results may differ in shape: a ragged column is a list of arrays).
    Eager random calls draw from a generator seeded by ``dataset.config.set_seed`` when set."""

    def sample(self, x: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        raise NotImplementedError

    def apply_batch(self, x: np.ndarray, rng: np.random.Generator | None = None) -> Any:
        if self.random and rng is None:
            rng = self._rng()
        return stack_rows([self.sample(np.asarray(s), rng) for s in x], type(self).__name__)

    def _rng(self) -> np.random.Generator:
        if getattr(self, "_eager", None) is None:
            from .config import get_seed

            self._eager = np.random.default_rng(get_seed())
        return self._eager

    def __call__(self, sample: Any) -> np.ndarray:
        x = np.asarray(sample.asnumpy() if hasattr(sample, "asnumpy") else sample)
        return eager_array(self.sample(x, self._rng() if self.random else None))


class Compose(DataOp):
    """``Compose(transforms)``: apply operations in order (``transforms.Compose``)."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        items = list(transforms) if isinstance(transforms, list | tuple) else None
        if not items or not all(callable(t) for t in items):
            raise TypeError(f"Compose: transforms must be a non-empty list of operations, got {transforms!r}")
        self.transforms = flatten_ops(items)

    @property
    def random(self) -> bool:  # type: ignore[override]
        return any(getattr(t, "random", False) for t in self.transforms)

    def apply_batch(self, x: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        for t in self.transforms:
            if not isinstance(t, DataOp):
                return np.stack([self(s) for s in x]) if len(x) else x
            x = t.apply_batch(x, rng)
        return x

    def __call__(self, *sample: Any) -> Any:
        values: Any = sample
        for t in self.transforms:
            out = t(*values)
            values = out if isinstance(out, tuple) else (out,)
        return values if len(values) != 1 else values[0]

    def __repr__(self) -> str:
        return f"Compose({self.transforms!r})"


def flatten_ops(operations: Any) -> list[Callable[..., Any]]:
    """A flat list of operations: a single one, lists and ``Compose`` objects unpacked."""
    if operations is None:
        raise TypeError("map: operations must be given (an operation or a list of them)")
    items = operations if isinstance(operations, list | tuple) else [operations]
    out: list[Callable[..., Any]] = []
    for op in items:
        if isinstance(op, Compose):
            out.extend(op.transforms)
        elif isinstance(op, list | tuple):
            out.extend(flatten_ops(op))
        elif callable(op) and not isinstance(op, type):
            out.append(op)
        else:
            raise TypeError(f"map: {op!r} is not a data operation or a callable (did you forget "
                            "the parentheses, e.g. vision.HWC2CHW()?)")
    return out


def is_cacheable(op: Any) -> bool:
    """A deterministic per-sample operation whose result may be kept across epochs."""
    return isinstance(op, DataOp) and not op.random


def stack_rows(values: list[Any], what: str) -> Any:
    """One array from per-row values (a list when their shapes differ or they are dicts)."""
    if any(isinstance(v, dict) for v in values):
        return list(values)  # Python objects stay as they are until batch or the iterator
    arrays = [np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v) for v in values]
    if not arrays:
        return np.empty((0,))
    first = arrays[0].shape
    if all(a.shape == first for a in arrays):
        return np.stack(arrays)
    return arrays  # ragged: kept per row; batch() refuses it with a message


def eager_array(value: Any) -> np.ndarray:
    """An eager call's result as MindSpore returns it: an array (0-d too), int64 with NumPy's
    ``longlong`` type (equal to int64; it prints as ``array(0, dtype=int64)``, as MindSpore's)."""
    array = np.asarray(value)
    return array.view(np.longlong) if array.dtype == np.int64 else array


def as_array(value: Any) -> np.ndarray:
    """A row value as a NumPy array (Python numbers, lists, Tensors); a dict stays a dict."""
    if isinstance(value, dict):
        return value
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    return np.asarray(value)
