"""Integration: the real Fashion-MNIST and MNIST-10k files under $TRAIN_DATA_DIR."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import datasets
from datasets import checksum_matches, sources

DATA_DIR = os.environ.get("TRAIN_DATA_DIR")
pytestmark = pytest.mark.skipif(
    not DATA_DIR, reason="TRAIN_DATA_DIR is not set (point it at shared/datasets to run these)"
)


def need(name: str) -> Path:
    folder = Path(DATA_DIR or "") / name
    if not folder.is_dir():
        pytest.skip(f"{folder} does not exist")
    return folder


@pytest.mark.parametrize(
    ("name", "split", "count", "per_class"),
    [
        ("fashion-mnist", "train", 60_000, 6_000),
        ("fashion-mnist", "test", 10_000, 1_000),
        ("mnist-10k", "train", 10_000, None),
        ("mnist-10k", "test", 10_000, None),
    ],
)
def test_shapes_dtypes_classes(name: str, split: str, count: int, per_class: int | None) -> None:
    folder = need(name)
    images, labels = datasets.load(name, split)
    assert datasets.locate(name, split)[0].parent == folder
    assert images.shape == (count, 28, 28) and images.dtype == np.uint8
    assert labels.shape == (count,) and labels.dtype == np.int32
    counts = np.bincount(labels, minlength=10)
    assert len(counts) == 10 and counts.min() > 0, counts
    if per_class is not None:
        assert (counts == per_class).all(), counts
    assert 0 < images.mean() < 255 and images.max() == 255


def test_fashion_files_match_registered_checksums() -> None:
    folder = need("fashion-mnist")
    spec = sources.get_spec("fashion-mnist")
    for filename, sums in spec.checksums.items():
        ok, digest = checksum_matches(folder / filename, sums)
        assert ok, f"{filename}: md5 {digest} (content md5 not in {sums})"


def test_lenet_loader_on_fashion_test() -> None:
    need("fashion-mnist")
    it = datasets.make_loader("fashion-mnist", split="test", batch_size=32, transforms="lenet")
    assert len(it) == 10_000 // 32
    assert it.images.shape == (10_000, 1, 32, 32) and it.images.dtype == np.float32
    x, y = next(iter(it))
    assert x.shape == (32, 1, 32, 32) and y.dtype == np.int32
    background = (0 - 0.1307) / 0.3081
    assert np.isclose(it.images.min(), background, atol=1e-5)
    assert np.isclose(it.images.max(), (1 - 0.1307) / 0.3081, atol=1e-5)
