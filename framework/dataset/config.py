"""``mindspore.dataset.config``: the seed of shuffles and random operations.

A pipeline node takes its seed when it is created: ``config.set_seed`` if called, else
``ms.set_seed``'s seed, else a random one (recorded in the pipeline's ``state_dict`` so a
resumed run keeps the order of the run it continues).
"""

from __future__ import annotations

import secrets

_seed: int | None = None


def set_seed(seed: int) -> None:
    global _seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"dataset.config.set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _seed = seed


def get_seed() -> int | None:
    """The dataset seed: ``set_seed``'s, else ``ms.set_seed``'s, else None."""
    if _seed is not None:
        return _seed
    from ..seed import get_seed as framework_seed

    return framework_seed()


def node_seed() -> tuple[int, bool]:
    """``(seed, explicit)`` for a new pipeline node."""
    seed = get_seed()
    return (seed, True) if seed is not None else (secrets.randbits(32), False)


def set_num_parallel_workers(num: int) -> None:  # accepted; the pipeline runs in the caller's thread
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"set_num_parallel_workers: expected an int >= 1, got {num!r}")


def get_num_parallel_workers() -> int:
    return 1
