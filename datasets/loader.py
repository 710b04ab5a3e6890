"""Deterministic, resumable mini-batch iteration over in-memory arrays.

The whole (optionally limited) array is preprocessed once by vectorized transforms; a
batch is then one fancy-indexing gather.  The sample order of epoch ``e`` is a pure
function of ``(seed, e)``, and the iterator's position is ``(epoch, batches done)``, so a
run restored with :meth:`BatchIterator.load_state_dict` sees exactly the batches an
uninterrupted run would have seen.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .catalog import load
from .errors import BatchConfigError
from .transforms import Transform, build_transforms

TransformSpec = str | Sequence[Any] | Transform | None
# what a resumed iterator must share with the saved one; not ``shard_id``: every rank of a
# data-parallel job resumes from rank 0's state at the same epoch and position of its own shard
_CONFIG_KEYS = ("seed", "shuffle", "batch_size", "drop_remainder", "num_samples", "num_shards")


class BatchIterator:
    """Yields ``(x, y)`` batches: ``x`` float32 ``B x C x H x W``, ``y`` int32 ``B``.

    ``for x, y in it`` runs the rest of the current epoch and then advances to the next
    one, so repeating the loop runs epoch after epoch.  Breaking out of a loop keeps the
    position: the next loop continues the same epoch.  ``len(it)`` is batches per epoch.

    ``num_shards``/``shard_id`` (data parallelism, as MindSpore's datasets): shard ``i``
    takes rows ``i, i + k, ...`` of the epoch's order, padded by wrapping around so that
    every shard has ``ceil(N / k)`` rows; with the same ``seed`` on every rank the shards
    of one epoch cover each sample once (N divisible by k) and batch ``b`` of every rank
    together is batch ``b`` of a ``k``-times larger batch on one process.
    """

    def __init__(
        self,
        images: np.ndarray,
        labels: np.ndarray,
        *,
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int = 0,
        drop_remainder: bool = True,
        limit: int | None = None,
        transforms: TransformSpec = None,
        num_shards: int = 1,
        shard_id: int = 0,
    ) -> None:
        if not (isinstance(num_shards, int) and num_shards >= 1 and isinstance(shard_id, int)
                and 0 <= shard_id < num_shards):
            raise BatchConfigError(f"num_shards must be >= 1 and shard_id in [0, num_shards), got "
                                   f"num_shards={num_shards!r}, shard_id={shard_id!r}")
        self.num_shards, self.shard_id = num_shards, shard_id
        images, labels = np.asarray(images), np.asarray(labels)
        if labels.ndim != 1 or len(images) != len(labels):
            raise ValueError(
                f"images {images.shape} and labels {labels.shape} do not match: "
                f"expected N samples and N labels"
            )
        if batch_size < 1:
            raise BatchConfigError(f"batch_size must be >= 1, got {batch_size}")
        if limit is not None:
            if limit < 1:
                raise BatchConfigError(f"limit must be >= 1 or None, got {limit}")
            images, labels = images[:limit], labels[:limit]
        x = build_transforms(transforms)(images)
        if x.ndim == 3:  # grayscale without a channel axis
            x = x[:, np.newaxis]
        if x.ndim != 4:
            raise ValueError(f"transforms must produce N x C x H x W arrays, got shape {x.shape}")
        self._x = np.ascontiguousarray(x, dtype=np.float32)
        self._y = np.ascontiguousarray(labels, dtype=np.int32)
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.seed = int(seed)
        self.drop_remainder = bool(drop_remainder)
        if len(self) == 0:
            raise BatchConfigError(
                f"no batches: {len(self._y)} samples < batch_size {batch_size} with drop_remainder; "
                "lower the batch size or raise the sample limit"
            )
        self._epoch = 0
        self._position = 0

    @property
    def num_samples(self) -> int:
        return len(self._y)

    @property
    def images(self) -> np.ndarray:
        """The preprocessed float32 N x C x H x W array (do not modify)."""
        return self._x

    @property
    def labels(self) -> np.ndarray:
        return self._y

    @property
    def epoch(self) -> int:
        return self._epoch

    @property
    def position(self) -> int:
        """Batches of the current epoch already yielded."""
        return self._position

    @property
    def shard_samples(self) -> int:
        """Samples this shard sees per epoch: ``ceil(num_samples / num_shards)``."""
        return -(-self.num_samples // self.num_shards)

    def __len__(self) -> int:
        full, rest = divmod(self.shard_samples, self.batch_size)
        return full + (1 if rest and not self.drop_remainder else 0)

    def order(self, epoch: int) -> np.ndarray:
        """Sample indices of ``epoch`` for this shard: ``default_rng([seed, epoch]).permutation(N)``
        (or ``arange(N)``), then rows ``shard_id::num_shards`` of it, padded by wrapping."""
        if not self.shuffle:
            order = np.arange(self.num_samples)
        else:
            order = np.random.default_rng([self.seed, int(epoch)]).permutation(self.num_samples)
        if self.num_shards == 1:
            return order
        return np.resize(order, self.shard_samples * self.num_shards)[self.shard_id::self.num_shards]

    def set_epoch(self, epoch: int, position: int = 0) -> None:
        """Jump to batch ``position`` of ``epoch``; an active loop over the iterator stops."""
        if epoch < 0 or not 0 <= position <= len(self):
            raise ValueError(f"bad epoch/position {epoch}/{position} (epoch has {len(self)})")
        self._epoch, self._position = int(epoch), int(position)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if self._position >= len(self):  # the previous loop consumed the epoch without ending
            self._epoch, self._position = self._epoch + 1, 0
        epoch, batches, size = self._epoch, len(self), self.batch_size
        order = self.order(epoch)
        while self._epoch == epoch and self._position < batches:
            start = self._position * size
            index = order[start : start + size]
            self._position += 1
            yield self._x[index], self._y[index]
        if self._epoch == epoch and self._position >= batches:
            self._epoch, self._position = epoch + 1, 0

    def state_dict(self) -> dict[str, Any]:
        """Epoch and position, plus the settings that must match on resume (and, for the
        record, ``shard_id``)."""
        state = {"epoch": self._epoch, "position": self._position, "shard_id": self.shard_id}
        return state | {key: getattr(self, key) for key in _CONFIG_KEYS}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore :meth:`state_dict`; refuses a state saved with different settings."""
        diff = [
            f"{key} {state[key]!r} != {getattr(self, key)!r}"
            for key in _CONFIG_KEYS
            if key in state and state[key] != getattr(self, key)
        ]
        if diff:
            raise ValueError(f"iterator state was saved with other settings: {', '.join(diff)}")
        self.set_epoch(int(state["epoch"]), int(state["position"]))

    def __repr__(self) -> str:
        return (
            f"BatchIterator(samples={self.num_samples}, shape={self._x.shape[1:]}, "
            f"batch_size={self.batch_size}, shuffle={self.shuffle}, seed={self.seed}, "
            f"epoch={self._epoch}, position={self._position}/{len(self)}"
            + (f", shard={self.shard_id}/{self.num_shards})" if self.num_shards > 1 else ")")
        )


def make_loader(
    source: str | tuple[np.ndarray, np.ndarray],
    split: str = "train",
    root: str | os.PathLike[str] | None = None,
    *,
    batch_size: int = 32,
    shuffle: bool = True,
    seed: int = 0,
    drop_remainder: bool = True,
    limit: int | None = None,
    transforms: TransformSpec = None,
    download: bool = True,
    num_shards: int = 1,
    shard_id: int = 0,
) -> BatchIterator:
    """A :class:`BatchIterator` over a named dataset split or an ``(images, labels)`` pair.

    ``transforms``: ``None`` (pixels as float32, channel axis added), ``"lenet"`` (the
    MindSpore LeNet-5 pipeline: float32 N x 1 x 32 x 32), or a list for
    :func:`~datasets.transforms.build_transforms`.
    """
    if isinstance(source, str):
        images, labels = load(source, split, root, download=download)
    else:
        images, labels = source
    return BatchIterator(
        images,
        labels,
        batch_size=batch_size,
        shuffle=shuffle,
        seed=seed,
        drop_remainder=drop_remainder,
        limit=limit,
        transforms=transforms,
        num_shards=num_shards,
        shard_id=shard_id,
    )
