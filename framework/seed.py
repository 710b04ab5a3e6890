"""The framework's global random state (``ms.set_seed``), used by initializers and dropout."""

from __future__ import annotations

from typing import Any

import numpy as np

_seed: int | None = None
_rng = np.random.default_rng()


def set_seed(seed: int) -> None:
    """Seed every random draw the framework makes (parameter init, dropout masks)."""
    global _seed, _rng
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _seed = seed
    _rng = np.random.default_rng(seed)


def reseed(seed: int) -> None:
    """Restart the random state from ``seed`` without changing ``get_seed()`` (MindSpore's
    ``manual_seed`` leaves the global seed alone)."""
    global _rng
    _rng = np.random.default_rng(seed)


def get_seed() -> int | None:
    return _seed


def generator() -> np.random.Generator:
    return _rng


def get_rng_state() -> dict[str, Any]:
    """The generator's state as plain JSON-able data (for checkpoints)."""
    return _rng.bit_generator.state


def set_rng_state(state: dict[str, Any]) -> None:
    _rng.bit_generator.state = state
