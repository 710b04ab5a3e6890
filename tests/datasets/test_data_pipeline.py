"""BatchIterator: shapes, seeded order, epochs, limit, and exact resume from state_dict."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import datasets
from datasets import BatchIterator, make_loader, sources, write_idx

N = 103
IMAGES = (np.arange(N)[:, None, None] * np.ones((1, 28, 28))).astype(np.uint8)  # pixel = index
LABELS = (np.arange(N) % 10).astype(np.uint8)


def ids(x: np.ndarray) -> list[int]:
    """Sample indices of a batch from the untransformed iterator (pixel value = index)."""
    return x[:, 0, 0, 0].astype(int).tolist()


def make(**kwargs: object) -> BatchIterator:
    options = {"batch_size": 8, "seed": 5} | kwargs
    return BatchIterator(IMAGES, LABELS, **options)  # type: ignore[arg-type]


def test_batches_shapes_types_and_len() -> None:
    it = make()
    assert len(it) == N // 8 == 12
    batches = list(it)
    assert len(batches) == 12
    for x, y in batches:
        assert x.shape == (8, 1, 28, 28) and x.dtype == np.float32
        assert y.shape == (8,) and y.dtype == np.int32
        assert (np.array(ids(x)) % 10 == y).all()
    keep = make(drop_remainder=False)
    assert len(keep) == 13 and len(list(keep)[-1][1]) == N - 12 * 8


def test_epoch_order_is_pure_function_of_seed_and_epoch() -> None:
    it = make(drop_remainder=False)
    for epoch in range(3):
        order = np.random.default_rng([5, epoch]).permutation(N)
        seen = list(itertools.chain.from_iterable(ids(x) for x, _ in it))
        assert seen == order.tolist()
    assert it.epoch == 3 and it.position == 0
    assert [ids(x) for x, _ in make(seed=5)] == [ids(x) for x, _ in make(seed=5)]
    assert [ids(x) for x, _ in make(seed=6)] != [ids(x) for x, _ in make(seed=5)]


def test_no_shuffle_and_limit() -> None:
    it = make(shuffle=False, limit=20, drop_remainder=False)
    assert it.num_samples == 20 and len(it) == 3
    assert [ids(x) for x, _ in it] == [list(range(0, 8)), list(range(8, 16)), list(range(16, 20))]


def sequence(it: BatchIterator, count: int) -> list[list[int]]:
    """The next `count` batches, looping over epochs the way a trainer does."""
    out: list[list[int]] = []
    while len(out) < count:
        for x, _ in it:
            out.append(ids(x))
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("k", [0, 5, 12, 17, 30])
def test_resume_equals_uninterrupted(k: int) -> None:
    total = 40  # > 3 epochs of 12 batches
    reference = sequence(make(), total)
    first = make()
    head = sequence(first, k)
    state = first.state_dict()
    fresh = make()
    fresh.load_state_dict(state)
    assert head + sequence(fresh, total - k) == reference


def test_break_keeps_position_and_set_epoch() -> None:
    it = make()
    head = [ids(x) for x, _ in itertools.islice(it, 3)]
    assert (it.epoch, it.position) == (0, 3)
    rest = [ids(x) for x, _ in it]
    assert head + rest == [ids(x) for x, _ in make()]
    assert (it.epoch, it.position) == (1, 0)
    it.set_epoch(4)
    expected = np.random.default_rng([5, 4]).permutation(N)[:8].tolist()
    assert ids(next(iter(it))[0]) == expected


def test_consumed_epoch_without_stop_rolls_over() -> None:
    it = make()
    batches = list(itertools.islice(it, len(it)))  # never sees StopIteration
    assert len(batches) == 12 and it.position == 12
    second = [ids(x) for x, _ in it]
    assert second[0] == np.random.default_rng([5, 1]).permutation(N)[:8].tolist()


def test_state_mismatch_refused() -> None:
    state = make().state_dict()
    assert set(state) >= {"epoch", "position", "seed", "batch_size"}
    with pytest.raises(ValueError, match="seed 5 != 6"):
        make(seed=6).load_state_dict(state)
    with pytest.raises(ValueError, match="bad epoch/position"):
        make().load_state_dict({"epoch": 0, "position": 99})


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="do not match"):
        BatchIterator(IMAGES, LABELS[:-1])
    with pytest.raises(ValueError, match="no batches: 103 samples < batch_size 200"):
        BatchIterator(IMAGES, LABELS, batch_size=200)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        BatchIterator(IMAGES, LABELS, batch_size=0)


def test_make_loader_lenet_from_arrays() -> None:
    it = make_loader((IMAGES, LABELS), batch_size=16, transforms="lenet", limit=50)
    x, y = next(iter(it))
    assert x.shape == (16, 1, 32, 32) and x.dtype == np.float32 and y.dtype == np.int32
    assert it.images.shape == (50, 1, 32, 32)


def test_make_loader_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "SYSTEM_DIR", tmp_path / "none")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", IMAGES[:40])
    write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", LABELS[:40])
    it = datasets.make_loader(
        "fashion-mnist", split="test", root=tmp_path, batch_size=10, shuffle=False,
        transforms=[{"rescale": "1/255"}],
    )
    x, y = next(iter(it))
    np.testing.assert_allclose(x[:, 0, 0, 0], np.arange(10) / 255, rtol=1e-6)
    assert len(it) == 4 and y.tolist() == list(range(10))
