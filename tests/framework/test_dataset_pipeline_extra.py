"""``filter``, ``concat``/``+``, ``zip``, ``batch(per_batch_map=...)``, ``padded_batch``, dict and
string columns, ``transforms.Fill`` and ``dataset.text`` against NumPy/Python references
(the MindSpore-recorded answers are in ``tests/mindspore_ref/test_ms_dataset.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import framework.dataset as ds
from framework import Tensor
from framework.dataset import text, transforms


def col(d, i=0):
    return [np.asarray(r[i]).tolist() for r in d.create_tuple_iterator(output_numpy=True)]


def src(values, name="x"):
    return ds.NumpySlicesDataset({name: np.asarray(values)}, shuffle=False)


def test_filter_matches_a_python_filter():
    values = np.random.default_rng(0).integers(0, 100, 200)
    d = src(values).filter(lambda x: x % 3 == 0, input_columns=["x"])
    assert col(d) == [int(v) for v in values if v % 3 == 0]
    assert d.get_dataset_size() == int((values % 3 == 0).sum())
    two = ds.NumpySlicesDataset({"a": np.arange(6), "b": np.arange(6) * 10}, shuffle=False)
    assert col(two.filter(lambda a, b: b > 25), 0) == [3, 4, 5]
    with pytest.raises(TypeError, match="must return a bool"):
        col(src([1, 2]).filter(lambda x: 1))
    with pytest.raises(ValueError, match="not among the columns"):
        src([1]).filter(lambda x: True, input_columns="y")


def test_filter_then_batch_resumes_mid_epoch():
    d = src(np.arange(40)).filter(lambda x: x % 2 == 1).batch(3)
    it = d.create_tuple_iterator(output_numpy=True)
    head = [next(it)[0].tolist() for _ in range(2)]
    state = d.state_dict()
    rest = [r[0].tolist() for r in it]
    again = src(np.arange(40)).filter(lambda x: x % 2 == 1).batch(3)
    again.load_state_dict(state)
    assert [r[0].tolist() for r in again.create_tuple_iterator(output_numpy=True)] == rest
    assert sum(head + rest, []) == list(range(1, 40, 2))


def test_concat_and_zip():
    a, b = src([1, 2, 3]), src([4, 5])
    assert col(a + b) == [1, 2, 3, 4, 5] and (src([1]) + src([2])).get_dataset_size() == 2
    assert col(src([1]).concat([src([2]), src([3])])) == [1, 2, 3]
    assert col(src([1, 2]).concat(src([3])).batch(2)) == [[1, 2], [3]]
    streamed = ds.GeneratorDataset(lambda: iter([7, 8]), ["x"]).concat(src([9]))
    assert col(streamed) == [7, 8, 9]
    with pytest.raises(ValueError, match="same columns"):
        src([1]).concat(src([1], "y"))
    z = src([1, 2, 3]).zip(src([10, 20], "y"))
    assert z.get_col_names() == ["x", "y"] and col(z, 1) == [10, 20] and z.get_dataset_size() == 2
    assert col(ds.zip((src([1]), src([2], "y"))), 1) == [2]
    with pytest.raises(ValueError, match="share the column names"):
        src([1]).zip(src([2]))
    d = src(np.arange(10)) + src(np.arange(10, 20))
    it = d.create_tuple_iterator(output_numpy=True)
    [next(it) for _ in range(13)]
    state = d.state_dict()
    again = src(np.arange(10)) + src(np.arange(10, 20))
    again.load_state_dict(state)
    assert col(again) == list(range(13, 20))


def test_per_batch_map_against_numpy():
    a = np.arange(7)
    d = ds.NumpySlicesDataset({"a": a, "b": a * a}, shuffle=False)
    def add(x, y, info):
        return np.array(x) + np.array(y), [info.get_batch_num()] * len(x)

    d = d.batch(3, per_batch_map=add,
                input_columns=["a", "b"], output_columns=["s", "n"])
    assert d.get_col_names() == ["s", "n"]
    assert col(d, 0) == [(a + a * a)[i:i + 3].tolist() for i in range(0, 7, 3)]
    assert col(d, 1) == [[0] * 3, [1] * 3, [2]]
    with pytest.raises(TypeError, match="tuple"):
        col(src([1, 2]).batch(2, per_batch_map=lambda x, info: [x], input_columns=["x"]))
    with pytest.raises(ValueError, match="need a per_batch_map"):
        src([1]).batch(1, input_columns=["x"])


def test_callable_batch_size_and_padded_batch():
    sizes = lambda info: info.get_batch_num() + 1  # noqa: E731
    assert col(src(np.arange(6)).batch(sizes)) == [[0], [1, 2], [3, 4, 5]]
    rows = [np.arange(n) for n in (1, 3, 2)]
    d = ds.GeneratorDataset(lambda: iter(rows), ["v"]).padded_batch(3, pad_info={"v": (None, -1)})
    assert col(d) == [[[0, -1, -1], [0, 1, 2], [0, 1, -1]]]
    d = ds.GeneratorDataset(lambda: iter(rows), ["v"]).padded_batch(3, pad_info={"v": ([4], 0)})
    assert np.asarray(col(d)[0]).shape == (3, 4)
    with pytest.raises(ValueError, match="different shapes"):
        col(ds.GeneratorDataset(lambda: iter(rows), ["v"]).batch(3))


def test_dict_and_string_columns():
    def gen():
        for i in range(4):
            yield {"p": np.array([i, 2 * i]), "k": i}, str(i) * (i + 1)

    rows = list(ds.GeneratorDataset(gen, ["d", "s"]).create_tuple_iterator(output_numpy=True))
    assert rows[2][0]["p"].tolist() == [2, 4] and rows[3][1].tolist() == "3333" and rows[0][1].dtype == "<U1"
    batched = list(ds.GeneratorDataset(gen, ["d", "s"]).batch(4).create_tuple_iterator(output_numpy=True))[0]
    np.testing.assert_array_equal(batched[0]["p"], np.array([[i, 2 * i] for i in range(4)]))
    assert batched[1].tolist() == ["0", "11", "222", "3333"]
    tensors = next(iter(ds.GeneratorDataset(gen, ["d", "s"])))
    assert isinstance(tensors[0]["k"], Tensor) and isinstance(tensors[1], np.ndarray)
    nested = ds.GeneratorDataset(lambda: iter([({"a": {"b": 1}},)] * 2), ["d"]).batch(2)
    with pytest.raises(ValueError, match="per_batch_map"):
        col(nested)
    assert repr(next(src([5]).create_tuple_iterator(output_numpy=True))[0]) == "array(5, dtype=int64)"


def test_map_output_columns_follow_mindspores_rule():
    d = ds.NumpySlicesDataset({"a": [1], "b": [2], "c": [3]}, shuffle=False)
    assert d.map(lambda b: b, "b", "x").get_col_names() == ["a", "x", "c"]  # one for one: in place
    d = ds.NumpySlicesDataset({"a": [1], "b": [2], "c": [3]}, shuffle=False)
    two = d.map(lambda b: (b, b + 1), "b", ["x", "y"])  # otherwise: the outputs first
    assert two.get_col_names() == ["x", "y", "a", "c"] and col(two, 1) == [3]


def test_fill_and_text_ops():
    assert transforms.Fill(7)(np.zeros((2, 2), np.int8)).tolist() == [[7, 7], [7, 7]]
    assert transforms.Fill(2.5)(np.array([1, 2])).tolist() == [2, 2]
    assert transforms.OneHot(4)(np.array(1)).tolist() == [0, 1, 0, 0]
    s = "Größe, 東京!"
    assert text.UnicodeCharTokenizer()(s).tolist() == list(s)
    tokens, start, limit = text.UnicodeCharTokenizer(with_offsets=True)(s)
    assert [s.encode()[a:b].decode() for a, b in zip(start, limit)] == list(s)
    assert text.WhitespaceTokenizer()(" a\tbc  d ").tolist() == "a bc d".split()
    assert text.BasicTokenizer()("Hi, 東京!").tolist() == ["Hi", ",", "東", "京", "!"]
    assert text.ToNumber(np.int16)(np.array([["1", "-2"]])).tolist() == [[1, -2]]
    with pytest.raises(ValueError, match="out of range"):
        text.ToNumber(np.int8)(["300"])
    vocab = text.Vocab.from_list(["x", "y"], ["<unk>"], special_first=False)
    assert vocab.vocab() == {"x": 0, "y": 1, "<unk>": 2}
    assert text.Lookup(vocab, "<unk>")(["y", "q"]).tolist() == [1, 2]
    with pytest.raises(ValueError, match="not in the vocab"):
        text.Lookup(vocab)(["q"])
    d = ds.NumpySlicesDataset(["a b", "c"], ["t"], shuffle=False).map(text.WhitespaceTokenizer(), "t")
    assert col(d) == [["a", "b"], ["c"]]
