"""``RandomDraw``: a tensor of random numbers drawn from the framework's generator at each
call, in both modes (the random creation functions of ``mint``: ``rand``, ``randn``,
``randint``, ``randperm``, ``normal``, ``bernoulli`` and the ``_like`` forms).

Contracts:

- ``RandomDraw(kind, shape, dtype, a=0, b=0)()`` takes no tensor input and gives a tensor of
  ``shape`` and ``dtype`` (a NumPy dtype). ``kind`` is one of
  ``"uniform"`` (``[0, 1)``), ``"normal"`` (mean ``a``, standard deviation ``b``),
  ``"integers"`` (``[a, b)``) and ``"permutation"`` (of ``range(shape[0])``).
- The values come from ``framework.seed.generator()`` (``ms.set_seed``), drawn in float64 /
  int64 and cast to ``dtype``. The primitive is ``host_random``: in graph mode the draw is
  made on the host at each run of the compiled function and fed to it (its lowering is the
  identity of that input), so a compiled function gives new numbers at each call, and the
  two modes consume the generator alike: after the same ``ms.set_seed``, the same calls
  give the same numbers in PyNative and in graph mode.
- ``seed`` given: the draws come from a generator of that seed (one per seed, advancing
  at each draw, as ``Multinomial``'s), so a seeded call gives the same sequence in every
  process, in both modes; else from the framework's generator.
- No gradient (``differentiable = False``); never constant-folded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import seed as _seed
from ..primitive import Primitive, Spec

KINDS = ("uniform", "normal", "integers", "permutation")
_SEEDED: dict[int, np.random.Generator] = {}


class RandomDraw(Primitive):
    """``RandomDraw(kind, shape, dtype, a=0, b=0)()``: see the module docstring."""

    host_random = True
    differentiable = False

    def __init__(self, kind: str, shape: tuple[int, ...], dtype: Any, a: float = 0,
                 b: float = 0, seed: int | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"RandomDraw: kind must be one of {KINDS}, got {kind!r}")
        shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError(f"RandomDraw: shape must be non-negative ints, got {shape}")
        if kind == "integers" and not a < b:
            raise ValueError(f"RandomDraw: integers need low < high, got low={a}, high={b}")
        super().__init__(kind=kind, shape=shape, dtype=np.dtype(dtype), a=a, b=b,
                         seed=None if seed is None else int(seed))

    def infer(self) -> Spec:
        return Spec(self.shape, self.dtype)

    def random_spec(self) -> Spec:
        return Spec(self.shape, self.dtype)

    def draw_mask(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        rng = _seed.generator() if self.seed is None else \
            _SEEDED.setdefault(self.seed, np.random.default_rng(self.seed))
        if self.kind == "uniform":
            values = rng.random(shape)
        elif self.kind == "normal":
            values = rng.normal(self.a, self.b, shape)
        elif self.kind == "integers":
            values = rng.integers(int(self.a), int(self.b), shape)
        else:
            values = rng.permutation(shape[0]).reshape(shape)
        return np.asarray(values).astype(dtype)

    def kernel(self, draw: np.ndarray | None = None) -> np.ndarray:
        return self.draw_mask(self.shape, self.dtype) if draw is None else draw


def random_draw(kind: str, shape: tuple[int, ...], dtype: Any, a: float = 0, b: float = 0,
                seed: int | None = None) -> Any:
    """A fresh tensor of ``RandomDraw(kind, shape, dtype, a, b, seed)`` (new numbers per call)."""
    return RandomDraw(kind, shape, dtype, a, b, seed)()
