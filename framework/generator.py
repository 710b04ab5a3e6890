"""MindSpore's random-number generators (``ms.Generator``, ``ms.manual_seed`` ...).

A :class:`Generator` owns a NumPy generator and remembers the seed it was last seeded with
(``initial_seed``, 0 for a fresh one, as in MindSpore). ``default_generator`` is the
framework's global random state (:mod:`framework.seed`: parameter init, dropout masks), so
``ms.manual_seed(n)`` seeds every draw the framework makes, as ``ms.set_seed`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import seed as _seed


def _check_seed(where: str, value: object) -> int:
    """A seed is an int64 (MindSpore keeps it as one: -1 is a seed)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{where}: seed must be an int, got {type(value).__name__} {value!r}")
    if not -2 ** 63 <= value < 2 ** 63:
        raise ValueError(f"{where}: seed {value} is out of the int64 range")
    return int(value)


class Generator:
    """A random-number generator: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``,
    ``set_state`` as MindSpore's ``Generator``."""

    def __init__(self) -> None:
        self._initial = 0
        self._rng = np.random.default_rng(0)

    def _numpy(self) -> np.random.Generator:
        return self._rng

    def manual_seed(self, seed: int) -> Generator:
        """Seed it; returns the generator."""
        self._initial = _check_seed("Generator.manual_seed", seed)
        self._rng = np.random.default_rng(self._initial % 2 ** 64)
        return self

    def seed(self) -> int:
        """Seed it from fresh entropy; returns the seed used."""
        value = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))  # an int64
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._initial

    def get_state(self) -> dict[str, Any]:
        """The state (plain data; ``set_state`` takes it back)."""
        return {"seed": self._initial, "state": self._numpy().bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or set(state) != {"seed", "state"}:
            raise TypeError("Generator.set_state: state must be what get_state() returned")
        self._initial = state["seed"]
        self._numpy().bit_generator.state = state["state"]


class _DefaultGenerator(Generator):
    """The global generator: its NumPy generator is :mod:`framework.seed`'s."""

    def _numpy(self) -> np.random.Generator:
        return _seed.generator()

    def manual_seed(self, seed: int) -> Generator:
        self._initial = _check_seed("manual_seed", seed)
        _seed.reseed(self._initial % 2 ** 64)
        return self


default_generator: Generator = _DefaultGenerator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (every random draw of the framework); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from fresh entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with (0 if never)."""
    return default_generator.initial_seed()
