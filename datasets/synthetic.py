"""Generated image data of any shape, for smoke runs without downloads (CIFAR shapes by
default): ``dataset.name: synthetic`` in an experiment, with ``dataset.args`` the keyword
arguments of :func:`make_synthetic`.

The data is learnable but not trivial: each class has a fixed random template image;
a sample is ``0.5 * template + 0.5 * noise`` (both uniform in 0..255), rounded to uint8, so a
network's accuracy rises above chance within an epoch or two and a broken training step
shows. Everything is a pure function of ``seed`` (not of the run's seed: like a dataset on
disk, the data stays the same when the initialisation changes); the train and test splits
are drawn from different streams and share the class templates.
"""

from __future__ import annotations

import numpy as np

SPLITS = ("train", "test")


MAX_COUNT = 10**6  # classes, samples of a split
MAX_BYTES = 1 << 32  # images of one split (and the class templates) in memory: 4 GiB


def check_synthetic(shape: tuple[int, int, int] = (3, 32, 32), classes: int = 10,
                    train_size: int = 1000, test_size: int = 200, seed: int = 0) -> None:
    """``ValueError`` naming the argument of :func:`make_synthetic` that it refuses: a size,
    shape or class count below 1 or beyond what fits in memory, a seed out of range.
    Allocates nothing (the config checks call it)."""
    shape = tuple(int(n) for n in shape)
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(f"synthetic: shape must be [channels, height, width], each >= 1, got "
                         f"{list(shape)}")
    for name, value in (("classes", classes), ("train_size", train_size), ("test_size", test_size)):
        if value < 1:
            raise ValueError(f"synthetic: {name} must be >= 1, got {value}")
        if value > MAX_COUNT:
            raise ValueError(f"synthetic: {name} must be at most {MAX_COUNT:,}, got {value}")
    if not 0 <= seed < 2**32:
        raise ValueError(f"synthetic: seed must be in [0, 2**32), got {seed}")
    image = shape[0] * shape[1] * shape[2]
    for name, size in (("train_size", train_size), ("test_size", test_size)):
        if (size + classes) * image > MAX_BYTES:
            raise ValueError(f"synthetic: {name} {size:,} (and {classes} class templates) of shape "
                             f"{list(shape)} is {(size + classes) * image:,} bytes, more than the "
                             f"{MAX_BYTES:,} a generated split may hold; lower {name} or the shape")


def make_synthetic(split: str = "train", shape: tuple[int, int, int] = (3, 32, 32),
                   classes: int = 10, train_size: int = 1000, test_size: int = 200,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Images uint8 ``N x H x W x C`` (channels last, as files hold them; ``shape`` is what the
    model sees, ``C x H x W``) and labels int32 ``N`` in ``0 .. classes - 1`` (balanced:
    sample ``i`` has a shuffled copy of ``i % classes``).

    ``ValueError`` naming the argument for an unknown split or what :func:`check_synthetic`
    refuses.
    """
    if split not in SPLITS:
        raise ValueError(f"synthetic: unknown split {split!r}; use one of {list(SPLITS)}")
    check_synthetic(shape, classes, train_size, test_size, seed)
    channels, height, width = (int(n) for n in shape)
    size = train_size if split == "train" else test_size
    templates = np.random.default_rng([seed, 0]).integers(
        0, 256, (classes, height, width, channels), dtype=np.uint8)
    rng = np.random.default_rng([seed, 1 + SPLITS.index(split)])
    labels = rng.permutation(np.arange(size) % classes).astype(np.int32)
    noise = rng.integers(0, 256, (size, height, width, channels), dtype=np.uint8)
    images = (templates[labels].astype(np.uint16) + noise + 1) // 2  # round half up
    return images.astype(np.uint8), labels
