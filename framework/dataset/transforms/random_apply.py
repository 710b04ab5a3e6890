"""``mindspore.dataset.transforms``' random compositions (``RandomApply``, ``RandomChoice``,
``RandomOrder``), ``not_random`` and ``Plugin``.

A composition draws per sample from the generator the pipeline gives (seeded per epoch and
row), so its choices are reproducible under ``dataset.config.set_seed``; MindSpore's own
random stream is not reproduced, only its distribution (apply with ``prob``, one operation
uniformly, a uniformly random order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ops_base import DataOp, SampleOp


def _operations(transforms: Any, what: str) -> list[Callable[..., Any]]:
    if not isinstance(transforms, list | tuple):
        raise TypeError(f"{what}: transforms must be a list of operations, got {transforms!r}")
    if not transforms:
        raise ValueError(f"{what}: transforms must not be empty")
    if not all(callable(t) and not isinstance(t, type) for t in transforms):
        raise TypeError(f"{what}: every transform must be an operation (an instance), got {transforms!r}")
    return list(transforms)


def _run(op: Callable[..., Any], x: Any, rng: np.random.Generator) -> Any:
    if isinstance(op, DataOp):
        out = op.apply_batch(np.asarray(x)[np.newaxis], rng)
        return out[0]
    return op(x)


class RandomApply(SampleOp):
    """``RandomApply(transforms, prob=0.5)``: all of ``transforms`` in order with probability
    ``prob``, else none."""

    random = True

    def __init__(self, transforms: Sequence[Any], prob: float = 0.5) -> None:
        self.transforms = _operations(transforms, "RandomApply")
        if isinstance(prob, bool) or not isinstance(prob, int | float) or not 0.0 <= prob <= 1.0:
            raise ValueError(f"RandomApply: prob must be a number in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def sample(self, x: np.ndarray, rng: Any) -> Any:
        if rng.random() < self.prob:
            for op in self.transforms:
                x = _run(op, x, rng)
        return x


class RandomChoice(SampleOp):
    """``RandomChoice(transforms)``: one of ``transforms``, drawn uniformly per sample."""

    random = True

    def __init__(self, transforms: Sequence[Any]) -> None:
        self.transforms = _operations(transforms, "RandomChoice")

    def sample(self, x: np.ndarray, rng: Any) -> Any:
        return _run(self.transforms[int(rng.integers(len(self.transforms)))], x, rng)


class RandomOrder(SampleOp):
    """``RandomOrder(transforms)``: all of ``transforms``, in an order drawn per sample."""

    random = True

    def __init__(self, transforms: Sequence[Any]) -> None:
        self.transforms = _operations(transforms, "RandomOrder")

    def sample(self, x: np.ndarray, rng: Any) -> Any:
        for i in rng.permutation(len(self.transforms)):
            x = _run(self.transforms[int(i)], x, rng)
        return x


def not_random(function: Callable[..., Any]) -> Callable[..., Any]:
    """``@not_random``: mark a Python function deterministic (MindSpore may then cache its
    results); the function is returned unchanged but for the mark."""
    if not callable(function):
        raise TypeError(f"not_random: expected a function, got {function!r}")
    function.random = False  # type: ignore[attr-defined]
    return function


class Plugin:
    """``Plugin(lib_path, func_name, user_args=None)``: MindSpore's hook for a C++ plugin
    library built against MindSpore's plugin API; that API does not exist here."""

    __refused__ = ("transforms.Plugin: MindSpore C++ plugins cannot be loaded here (use a "
                   "Python function in map)")

    def __init__(self, lib_path: str, func_name: str, user_args: Any = None) -> None:
        if not isinstance(lib_path, str) or not isinstance(func_name, str):
            raise TypeError(
                f"Plugin: lib_path and func_name must be strings, got {lib_path!r}, {func_name!r}"
            )
        self.lib_path, self.func_name, self.user_args = lib_path, func_name, user_args

    def __call__(self, *values: Any) -> Any:
        raise RuntimeError(
            f"Plugin: {self.lib_path!r} is a MindSpore C++ plugin; this framework cannot "
            "load MindSpore plugins (use a Python function in map instead)"
        )
