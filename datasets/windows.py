"""Batches of a token stream for language models: random windows, as nanoGPT draws them.

``TokenWindows(ids, block_size, batch_size, steps, seed)`` yields ``(x, y)`` int32 batches
``B x T`` with ``y`` the tokens after ``x`` (targets shifted by one). Batch ``k`` (counted
over the whole run) is a pure function of ``(seed, k)``: its window starts are
``default_rng([seed, k]).integers(0, len(ids) - T, B * num_shards)``, of which shard ``r``
takes ``[r::num_shards]``. So a resume needs only the position (``state_dict``: epoch and
batches done, as datasets.loader.BatchIterator), every rank of a data-parallel job draws
different windows, and one process with the global batch draws exactly the union of the
ranks' windows. An "epoch" is ``steps`` batches (the trainer's evaluation interval).
``sequential=True`` reads non-overlapping windows in order instead (evaluation passes; a
text of fewer windows than ``batch_size`` is one smaller batch).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .errors import BatchConfigError


class TokenWindows:
    def __init__(self, ids: np.ndarray, block_size: int, batch_size: int, steps: int,
                 seed: int = 0, *, num_shards: int = 1, shard_id: int = 0,
                 sequential: bool = False) -> None:
        self.ids = np.ascontiguousarray(ids, dtype=np.int32)
        if block_size < 1 or batch_size < 1 or steps < 1:
            raise BatchConfigError(f"block_size, batch_size and steps must be >= 1, got {block_size}, "
                                   f"{batch_size}, {steps}")
        if len(self.ids) <= block_size:
            raise BatchConfigError(f"the text has {len(self.ids)} tokens, fewer than block_size + 1 = "
                                   f"{block_size + 1}; use a smaller dataset.block_size or more text")
        if not 0 <= shard_id < num_shards:
            raise BatchConfigError(f"shard_id must be in [0, {num_shards}), got {shard_id}")
        self.block_size, self.batch_size, self.steps, self.seed = block_size, batch_size, steps, seed
        self.num_shards, self.shard_id, self.sequential = num_shards, shard_id, sequential
        if sequential:
            windows = (len(self.ids) - 1) // block_size  # >= 1: the text is longer than a block
            # fewer windows than a batch: one batch of the windows there are
            self.batch_size = batch_size = min(batch_size, windows)
            self.steps = max(1, min(steps, windows // batch_size))
        self._epoch, self._position = 0, 0
        self._offsets = np.arange(block_size, dtype=np.int64)

    def __len__(self) -> int:
        return self.steps

    @property
    def num_samples(self) -> int:
        return self.steps * self.batch_size

    def starts(self, k: int) -> np.ndarray:
        """Window starts of batch ``k`` of the run, this shard's."""
        b, t = self.batch_size, self.block_size
        if self.sequential:
            first = (k % self.steps) * b * self.num_shards + self.shard_id * b
            return np.arange(first, first + b, dtype=np.int64) * t
        rng = np.random.default_rng([self.seed, k])
        every = rng.integers(0, len(self.ids) - t, b * self.num_shards)
        return every[self.shard_id::self.num_shards]

    def batch(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        index = self.starts(k)[:, None] + self._offsets
        return self.ids[index], self.ids[index + 1]

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The rest of the current epoch; then the next loop starts the next epoch."""
        epoch = self._epoch
        while self._epoch == epoch and self._position < self.steps:
            k = epoch * self.steps + self._position
            self._position += 1
            yield self.batch(k)
        if self._epoch == epoch and self._position >= self.steps:
            self._epoch, self._position = epoch + 1, 0

    def state_dict(self) -> dict[str, Any]:
        return {"epoch": self._epoch, "position": self._position, "seed": self.seed,
                "num_shards": self.num_shards, "tokens": len(self.ids)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        mine = self.state_dict()
        for key in ("seed", "num_shards", "tokens"):
            if key in state and state[key] != mine[key]:
                raise ValueError(f"{key} was {state[key]}, now {mine[key]}")
        epoch, position = int(state.get("epoch", 0)), int(state.get("position", 0))
        if position >= self.steps:
            epoch, position = epoch + 1, 0
        self._epoch, self._position = epoch, position
