"""The dataset pipeline against NumPy references: order, batching, shuffling, sharding, resume."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import framework as ms
from datasets import write_idx
from framework import Tensor
from framework.dataset import (
    Cifar10Dataset,
    GeneratorDataset,
    MnistDataset,
    NumpySlicesDataset,
    transforms,
    vision,
)

N = 50


def _data(n=N):
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (n, 6, 6)).astype(np.uint8), (np.arange(n) % 10).astype(np.uint8)


@pytest.fixture()
def mnist_dir(tmp_path):
    images, labels = _data()
    write_idx(tmp_path / "train-images-idx3-ubyte", images)  # raw, as MindSpore reads them
    write_idx(tmp_path / "train-labels-idx1-ubyte", labels)
    write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", images[:10])  # gzip works too
    write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels[:10])
    return tmp_path


def _rows(ds, numpy=True):
    return [[np.asarray(v) for v in row] for row in ds.create_tuple_iterator(output_numpy=numpy)]


def _pipeline(folder, **kwargs):
    ds = MnistDataset(folder, usage="train", **kwargs)
    ds = ds.map([vision.Rescale(1 / 255, 0), vision.Normalize([0.5], [0.25]), vision.HWC2CHW()], "image")
    return ds.map(transforms.TypeCast(ms.int32), "label")


def test_mnist_dataset_reads_the_idx_files(mnist_dir):
    images, labels = _data()
    ds = MnistDataset(mnist_dir, usage="train", shuffle=False)
    assert ds.get_col_names() == ["image", "label"] and ds.get_dataset_size() == N
    assert ds.output_shapes() == [[6, 6, 1], []] and ds.output_types() == [np.uint8, np.uint32]
    rows = _rows(ds)
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), images[..., None])
    np.testing.assert_array_equal([int(r[1]) for r in rows], labels)
    assert MnistDataset(mnist_dir, usage="test").get_dataset_size() == 10
    assert MnistDataset(mnist_dir).get_dataset_size() == N + 10  # usage None: train + test
    assert MnistDataset(mnist_dir, num_samples=7).get_dataset_size() == 7
    with pytest.raises(ValueError, match="usage"):
        MnistDataset(mnist_dir, usage="valid")
    with pytest.raises(Exception, match="lacks"):
        MnistDataset(mnist_dir / "..", usage="train")


def test_map_and_batch_match_numpy(mnist_dir):
    images, labels = _data()
    ds = _pipeline(mnist_dir, shuffle=False).batch(16)
    assert ds.get_dataset_size() == 4 and ds.get_batch_size() == 16
    batches = _rows(ds)
    assert [len(b[1]) for b in batches] == [16, 16, 16, 2]
    x = ((images.astype(np.float64) / 255 - 0.5) / 0.25)[:, None]
    np.testing.assert_allclose(np.concatenate([b[0] for b in batches]), x, rtol=1e-5, atol=1e-5)
    assert batches[0][0].dtype == np.float32 and batches[0][1].dtype == np.int32
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), labels)
    dropped = _pipeline(mnist_dir, shuffle=False).batch(16, drop_remainder=True)
    assert dropped.get_dataset_size() == 3 and len(_rows(dropped)) == 3
    # A Python function (called per row) gives what the vectorized operations give.
    by_hand = MnistDataset(mnist_dir, usage="train", shuffle=False).map(
        lambda im: ((im.astype(np.float32) / 255 - 0.5) / 0.25).transpose(2, 0, 1), "image").batch(16)
    np.testing.assert_allclose(_rows(by_hand)[1][0], batches[1][0], rtol=1e-5, atol=1e-5)


def test_shuffle_is_a_seeded_permutation_per_epoch(mnist_dir):
    def epochs(seed, count=2):
        ms.dataset.config.set_seed(seed)
        ds = MnistDataset(mnist_dir, usage="train").shuffle(10)
        it = ds.create_tuple_iterator(output_numpy=True, num_epochs=count)
        return [[int(r[1]) * 1000 + int(r[0].sum()) for r in it] for _ in range(count)]

    try:
        a, b, c = epochs(5), epochs(5), epochs(6)
    finally:
        ms.dataset.config._seed = None
    reference = sorted(int(y) * 1000 + int(x.sum()) for x, y in zip(*_data(), strict=True))
    assert sorted(a[0]) == reference and sorted(a[1]) == reference  # each epoch: every row once
    assert a == b  # same seed, same orders
    assert a[0] != a[1] and a != c  # a new order each epoch and for another seed


def test_sharding_covers_every_row(mnist_dir):
    for shards in (2, 3, 7):
        seen = []
        for shard in range(shards):
            ds = MnistDataset(mnist_dir, usage="train", num_shards=shards, shard_id=shard)
            rows = _rows(ds)
            assert len(rows) == ds.get_dataset_size() == -(-N // shards)
            seen += [int(r[0].sum()) * 100 + int(r[1]) for r in rows]
        reference = [int(x.sum()) * 100 + int(y) for x, y in zip(*_data(), strict=True)]
        assert set(seen) == set(reference)
        assert len(seen) - len(reference) == (-N) % shards  # only the padding repeats
    with pytest.raises(ValueError, match="shard_id"):
        MnistDataset(mnist_dir, num_shards=2, shard_id=2)


@pytest.mark.parametrize("augment", [False, True])
def test_resume_mid_epoch_gives_the_remaining_batches(mnist_dir, augment):
    def build():
        ds = MnistDataset(mnist_dir, usage="train")
        if augment:
            ds = ds.map([vision.RandomCrop(6, padding=2), vision.RandomHorizontalFlip()], "image")
        return ds.map(vision.Rescale(1 / 255, 0), "image").shuffle(20).batch(8)

    full = build()
    first_epoch = _rows(full)
    second_epoch = _rows(full)
    interrupted = build()
    it = interrupted.create_tuple_iterator(output_numpy=True)
    done = [next(it) for _ in range(3)]
    state = interrupted.state_dict()
    assert state["epoch"] == 0 and state["position"] == 3
    resumed = build()
    resumed.load_state_dict(state)
    rest = _rows(resumed)
    for got, want in zip(done + rest, first_epoch, strict=True):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
    for got, want in zip(_rows(resumed), second_epoch, strict=True):
        np.testing.assert_array_equal(got[0], want[0])
    with pytest.raises(ValueError, match="other settings"):
        MnistDataset(mnist_dir, usage="train").batch(4).load_state_dict(state)


def test_repeat_take_skip_project_rename_split():
    x = np.arange(20)
    base = NumpySlicesDataset({"x": x, "y": x * 10}, shuffle=False)
    assert [int(r[0]) for r in _rows(base.skip(3).take(4))] == [3, 4, 5, 6]
    assert [int(r[0]) for r in _rows(base.take(3).repeat(2))] == [0, 1, 2, 0, 1, 2]
    assert base.repeat(3).get_dataset_size() == 60 and base.repeat(3).get_repeat_count() == 3
    endless = base.repeat().batch(7)
    assert [int(b[0][0]) for b in itertools.islice(endless.create_tuple_iterator(output_numpy=True), 4)] == \
        [0, 7, 14, 1]
    with pytest.raises(ValueError, match="endless"):
        endless.get_dataset_size()
    across = [b[0].tolist() for b in _rows(base.take(5).repeat(2).batch(4))]
    assert across == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4]]
    assert base.project("y").get_col_names() == ["y"] and int(_rows(base.project(["y"]))[2][0]) == 20
    renamed = base.rename(["x"], ["data"])
    assert renamed.get_col_names() == ["data", "y"]
    assert next(renamed.create_dict_iterator(output_numpy=True))["data"] == 0
    parts = base.split([0.8, 0.2], randomize=True)
    sizes = [p.get_dataset_size() for p in parts]
    values = [sorted(int(r[0]) for r in _rows(p)) for p in parts]
    assert sizes == [16, 4] and sorted(values[0] + values[1]) == list(range(20))
    assert [len(p.get_col_names()) for p in base.split([5, 15], randomize=False)] == [2, 2]
    with pytest.raises(ValueError, match="sum"):
        base.split([5, 5])
    with pytest.raises(ValueError, match="not among"):
        base.project("z")


def test_iterators_give_tensors_dicts_and_epochs():
    ds = NumpySlicesDataset((np.ones((6, 2), np.float32), np.arange(6, dtype=np.int32)),
                            column_names=["data", "label"], shuffle=False).batch(4)
    data, label = next(iter(ds))
    assert isinstance(data, Tensor) and data.shape == (4, 2) and label.dtype == ms.int32
    row = next(ds.create_dict_iterator())
    assert set(row) == {"data", "label"} and isinstance(row["label"], Tensor)
    it = ds.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [len(list(it)) for _ in range(3)] == [2, 2, 0]  # two epochs, then done
    assert [c.tolist() for c in next(ds.create_tuple_iterator(columns=["label"], output_numpy=True))] == \
        [[0, 1, 2, 3]]


def test_generator_dataset_random_access_and_iterable():
    class Source:
        def __getitem__(self, i):
            return np.full((2,), i, np.float32), np.int32(i % 3)

        def __len__(self):
            return 10

    ds = GeneratorDataset(Source(), ["data", "label"], shuffle=False)
    batches = _rows(ds.batch(4))
    np.testing.assert_array_equal(batches[0][0], np.repeat(np.arange(4), 2).reshape(4, 2))
    shuffled = GeneratorDataset(Source(), ["data", "label"])
    assert sorted(int(r[0][0]) for r in _rows(shuffled)) == list(range(10))

    def gen():
        for i in range(7):
            yield np.array([i, i]), i

    stream = GeneratorDataset(gen, ["a", "b"]).map(lambda a: a * 2, "a").batch(3)
    assert [b[0][:, 0].tolist() for b in _rows(stream)] == [[0, 2, 4], [6, 8, 10], [12]]
    assert stream.get_dataset_size() == 3
    with pytest.raises(ValueError, match="random-access"):
        GeneratorDataset(gen, ["a", "b"], shuffle=True)
    ragged = GeneratorDataset(lambda: iter([np.zeros(2), np.zeros(3)]), ["v"]).batch(2)
    with pytest.raises(ValueError, match="different shapes"):
        _rows(ragged)


def test_cifar10_binary_files(tmp_path):
    rng = np.random.default_rng(0)
    chw = rng.integers(0, 256, (5, 3, 32, 32)).astype(np.uint8)
    labels = np.array([0, 9, 3, 3, 1], np.uint8)
    records = np.concatenate([labels[:, None], chw.reshape(5, -1)], axis=1)
    records[:3].tofile(tmp_path / "data_batch_1.bin")
    records[3:].tofile(tmp_path / "test_batch.bin")
    train = Cifar10Dataset(tmp_path, usage="all", shuffle=False)
    rows = _rows(train)
    assert train.output_shapes() == [[32, 32, 3], []] and len(rows) == 5
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), chw.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal([int(r[1]) for r in rows], labels)
    with pytest.raises(Exception, match="data_batch_2.bin"):
        Cifar10Dataset(tmp_path, usage="train")
    (tmp_path / "test_batch.bin").write_bytes(b"\x01" * 100)
    with pytest.raises(Exception, match="not a whole number"):
        Cifar10Dataset(tmp_path, usage="test")


def test_map_column_order_and_unsupported_options():
    base = NumpySlicesDataset({"x": np.arange(4), "y": np.arange(4)}, shuffle=False)
    both = base.map(lambda v: (v, v * 2), "x", ["a", "b"], column_order=["b", "y"])
    assert both.get_col_names() == ["b", "y"] and [int(r[0]) for r in _rows(both)] == [0, 2, 4, 6]
    with pytest.raises(TypeError, match="no_such_option"):  # per_batch_map is supported now
        base.batch(2, no_such_option=1)
