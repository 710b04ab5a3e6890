"""Samplers (``framework.dataset.samplers``) by their properties, and the reproduced MindSpore
generator (``framework.dataset.ms_random``) against independent references. Exact orders
against MindSpore itself are in ``tests/mindspore_ref/test_ms_dataset.py``."""

from __future__ import annotations

import numpy as np
import pytest

import framework.dataset as ds
from framework.dataset import config, ms_random


@pytest.fixture(autouse=True)
def _unseeded():
    config._seed = None
    yield
    config._seed = None


def ids(sampler, n=10, epochs=1):
    d = ds.NumpySlicesDataset(np.arange(n), ["x"], sampler=sampler)
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    return [[int(r[0]) for r in it] for _ in range(epochs)]


def test_mt19937_stream_is_the_reference_generator():
    """The first output of mt19937 seeded with 5489 (the C++ standard's default seed) is
    3499211612, and the 10000th output of a default-constructed mt19937 is 4123659995: both
    values are fixed by the C++ standard ([rand.predef])."""
    g = ms_random.MT19937Stream(5489)
    first = g.next()
    for _ in range(9998):
        g.next()
    assert (first, g.next()) == (3499211612, 4123659995)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 257, 70000])
def test_shuffle_is_a_permutation(n):
    out = ms_random.shuffle(np.arange(n), 7)
    assert sorted(out.tolist()) == list(range(n))
    if n > 5:
        assert not np.array_equal(out, np.arange(n))


def test_uniform_draws_are_uniform_in_range():
    draws = ms_random.uniform_draws(7, 70000, 3)
    assert draws.min() == 0 and draws.max() == 6
    counts = np.bincount(draws, minlength=7)
    assert np.all(np.abs(counts - 10000) < 5 * np.sqrt(10000))  # 5 sigma
    assert np.array_equal(draws[:100], ms_random.uniform_draws(7, 100, 3))  # chunking changes nothing


def test_random_sampler_properties_and_seeded_reproducibility():
    ds.config.set_seed(11)
    a = ids(ds.RandomSampler(), 50, epochs=3)
    assert all(sorted(e) == list(range(50)) for e in a) and a[0] != a[1]
    ds.config.set_seed(11)
    assert ids(ds.RandomSampler(), 50, epochs=3) == a
    ds.config.set_seed(12)
    assert ids(ds.RandomSampler(), 50)[0] != a[0]
    with_rep = ids(ds.RandomSampler(replacement=True, num_samples=40), 50)[0]
    assert len(with_rep) == 40 and all(0 <= i < 50 for i in with_rep)
    assert len(ids(ds.RandomSampler(num_samples=80), 50)[0]) == 50  # capped at the dataset's size


def test_subset_random_sampler_keeps_to_its_subset():
    subset = [3, 9, 4, 17, 0]
    got = ids(ds.SubsetRandomSampler(subset), 20, epochs=2)
    assert all(sorted(e) == sorted(subset) for e in got)
    assert sorted(ids(ds.SubsetRandomSampler(subset, num_samples=3), 20)[0])[0] in subset


def test_weighted_random_sampler_honours_the_weights():
    weights = [0.0, 1.0, 3.0, 0.0]
    got = np.array(ids(ds.WeightedRandomSampler(weights, num_samples=8000), 4)[0])
    counts = np.bincount(got, minlength=4)
    assert counts[0] == counts[3] == 0
    assert abs(counts[2] / 8000 - 0.75) < 0.03
    no_rep = ids(ds.WeightedRandomSampler([0, 1, 0, 1, 1], num_samples=5, replacement=False), 5)[0]
    assert sorted(no_rep) == [0, 1, 2, 3, 4] and set(no_rep[:3]) == {1, 3, 4}  # zero weights last
    assert len(ids(ds.WeightedRandomSampler([1, 1, 1]), 3)[0]) == 3  # num_samples: the dataset's size


def test_distributed_sampler_shards_cover_the_rows_once():
    ds.config.set_seed(3)
    shards = [ids(ds.DistributedSampler(4, s), 12)[0] for s in range(4)]
    assert sorted(sum(shards, [])) == list(range(12))  # one shuffled order for every shard
    padded = [ids(ds.DistributedSampler(4, s, shuffle=False), 10)[0] for s in range(4)]
    assert [len(p) for p in padded] == [3] * 4 and sorted(sum(padded, []))[:2] == [0, 0]


def test_pk_sampler_takes_k_rows_of_each_class(tmp_path):
    labels = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0, 3], np.uint32)
    d = ds.NumpySlicesDataset({"x": np.arange(10), "label": labels}, sampler=ds.PKSampler(2))
    rows = [(int(r[0]), int(r[1])) for r in d.create_tuple_iterator(output_numpy=True)]
    assert [lab for _, lab in rows] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert all(labels[i] == lab for i, lab in rows)
    assert len({i for i, lab in rows if lab != 3}) == 6  # distinct rows where a class has enough
    shuffled = ds.NumpySlicesDataset({"x": np.arange(10), "label": labels},
                                     sampler=ds.PKSampler(2, shuffle=True))
    got = sorted(int(r[1]) for r in shuffled.create_tuple_iterator(output_numpy=True))
    assert got == [0, 0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError, match="class column 'kind'"):
        list(ds.NumpySlicesDataset({"x": np.arange(3)}, sampler=ds.PKSampler(1, class_column="kind")))


def test_user_samplers_and_bad_samplers():
    class Odd(ds.Sampler):
        def __iter__(self):
            return iter(range(1, self.dataset_size, 2))

    assert ids(Odd(), 7)[0] == [1, 3, 5]
    with pytest.raises(IndexError, match="out of bound"):
        ids(ds.SubsetSampler([1, 12]))
    with pytest.raises(TypeError, match="sampler must be"):
        ds.NumpySlicesDataset([1, 2], sampler=5)
    with pytest.raises(ValueError, match="Conflicting arguments"):
        ds.NumpySlicesDataset([1, 2], sampler=ds.SequentialSampler(), shuffle=False)
    with pytest.raises(ValueError, match="__getitem__"):
        ds.GeneratorDataset(lambda: iter(range(3)), ["x"], sampler=ds.SequentialSampler())
    with pytest.raises(ValueError, match="shard_id"):
        ds.DistributedSampler(2, 2)


def test_sampler_pipeline_resumes_mid_epoch():
    ds.config.set_seed(8)
    d = ds.NumpySlicesDataset(np.arange(30), ["x"], sampler=ds.RandomSampler()).batch(4)
    it = d.create_tuple_iterator(output_numpy=True)
    first = [next(it)[0].tolist() for _ in range(3)]
    state = d.state_dict()
    rest = [r[0].tolist() for r in it]
    ds.config.set_seed(8)
    again = ds.NumpySlicesDataset(np.arange(30), ["x"], sampler=ds.RandomSampler()).batch(4)
    again.load_state_dict(state)
    assert [r[0].tolist() for r in again.create_tuple_iterator(output_numpy=True)] == rest
    assert sorted(sum(first + rest, [])) == list(range(30))


def test_mnist_sampler(tmp_path):
    import gzip

    n = 12
    labels = np.arange(n, dtype=np.uint8) % 3
    images = np.zeros((n, 28, 28), np.uint8)
    images[:, 0, 0] = np.arange(n)
    header = (2051).to_bytes(4, "big") + n.to_bytes(4, "big") + (28).to_bytes(4, "big") * 2
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(header + images.tobytes()))
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(
        gzip.compress((2049).to_bytes(4, "big") + n.to_bytes(4, "big") + labels.tobytes()))
    d = ds.MnistDataset(tmp_path, usage="train", sampler=ds.PKSampler(2))
    got = [(int(r[0][0, 0, 0]), int(r[1])) for r in d.create_tuple_iterator(output_numpy=True)]
    assert [lab for _, lab in got] == [0, 0, 1, 1, 2, 2] and all(i % 3 == lab for i, lab in got)
    d = ds.MnistDataset(tmp_path, usage="train", sampler=ds.SubsetSampler([11, 0]))
    assert [int(r[0][0, 0, 0]) for r in d.create_tuple_iterator(output_numpy=True)] == [11, 0]
