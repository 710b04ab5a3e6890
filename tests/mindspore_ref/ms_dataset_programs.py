"""MindSpore's dataset pipeline features that its tutorials use (dataset/sampler, dataset/eager,
dataset/python_objects; issue 25): samplers and their seeded orders, ``filter``, ``concat``,
``zip``, ``batch(per_batch_map=...)``, dict and string columns, the iterator's output types,
eager transforms and ``dataset.text``.

Each program imports the engine's ``dataset`` package as ``ds`` and returns plain Python
values (lists of ints, strings, dtype names), so answers compare exactly. Random orders are
recorded only where they are seeded with ``ds.config.set_seed`` (MindSpore's generator is
reproduced in :mod:`framework.dataset.ms_random`). ``ms_dataset_expected.json`` holds
MindSpore 2.10's answers on CPU by mode; ``python -m tests.mindspore_ref.ms_dataset_programs``
re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}

PRELUDE = '''
import importlib
ds = importlib.import_module(ms.__name__ + ".dataset")


def ints(d, col=0, epochs=1):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    return [[int(r[col]) for r in it] for _ in range(epochs)]
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = PRELUDE + body


_program("deterministic_samplers", '''
def main():
    data = list(range(10))
    def run(sampler):
        d = ds.NumpySlicesDataset(data, ["x"], sampler=sampler)
        return ints(d)[0], d.get_dataset_size()
    out = [run(ds.SequentialSampler()), run(ds.SequentialSampler(3, 4)), run(ds.SequentialSampler(8, 5)),
           run(ds.SubsetSampler([5, 1, 1, 9])), run(ds.SubsetSampler([5, 1, 9], num_samples=2)),
           run([3, 2, 1])]
    out += [run(ds.DistributedSampler(4, s, shuffle=False)) for s in range(4)]
    out += [run(ds.DistributedSampler(4, s, shuffle=False, offset=2)) for s in range(4)]
    out.append(run(ds.DistributedSampler(3, 1, shuffle=False, num_samples=2)))
    d = ds.NumpySlicesDataset([0, 1], ["x"], sampler=ds.DistributedSampler(4, 3, shuffle=False))
    out.append(ints(d))
    return out
''')

_program("child_samplers_and_user_samplers", '''
class Every2(ds.Sampler):
    def __iter__(self):
        seen.append(self.dataset_size)
        for i in range(0, 10, 2):
            yield i


class Fixed:
    def __getitem__(self, i):
        return [3, 4, 3, 2, 0, 11][i]

    def __len__(self):
        return 6


seen = []


def main():
    letters = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
    def run(sampler):
        d = ds.NumpySlicesDataset(letters, ["s"], sampler=sampler)
        return [str(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    a = ds.DistributedSampler(2, 0, shuffle=False)
    a.add_child(ds.SubsetSampler([9, 8, 7, 6, 5]))
    b = ds.SubsetSampler([0, 2, 3])
    b.add_child(ds.SequentialSampler(5))
    c = ds.SequentialSampler(1, 2)
    c.add_child(ds.SubsetSampler([9, 8, 7, 6, 5]))
    return [run(Every2()), run(Every2(num_samples=2)), run(Fixed()), run(a), run(b), run(c),
            sorted(set(seen))]
''')

_program("seeded_random_orders", '''
def main():
    ds.config.set_seed(321)
    n = list(range(20))
    out = [ints(ds.NumpySlicesDataset(n, ["x"]), epochs=3),
           ints(ds.NumpySlicesDataset(n, ["x"], sampler=ds.RandomSampler()), epochs=2),
           ints(ds.NumpySlicesDataset(n, ["x"], sampler=ds.RandomSampler(num_samples=5))),
           ints(ds.NumpySlicesDataset(n, ["x"], sampler=ds.RandomSampler(True, 8)), epochs=2),
           ints(ds.NumpySlicesDataset(n, ["x"], num_samples=8), epochs=2),
           ints(ds.NumpySlicesDataset(n, ["x"], sampler=ds.DistributedSampler(3, 1)), epochs=2),
           ints(ds.NumpySlicesDataset(n, ["x"], num_shards=3, shard_id=2), epochs=2),
           ints(ds.NumpySlicesDataset(n, ["x"], sampler=ds.SubsetRandomSampler([3, 5, 7, 9, 1, 11])),
                epochs=3)]
    parts = ds.NumpySlicesDataset(list(range(10)), ["x"], shuffle=False).split([0.34, 0.33, 0.33])
    out.append([ints(p, epochs=2) for p in parts])
    ds.config.set_seed(1234)
    out.append(ints(ds.NumpySlicesDataset([1, 2, 3], ["x"]).concat(ds.NumpySlicesDataset([4, 5, 6], ["x"]))))
    ds.config.set_seed(99)
    big = ints(ds.NumpySlicesDataset(list(range(70000)), ["x"]))[0]
    out.append([big[:20], big[-5:], sum(big)])
    return out
''')

_program("filter_concat_zip", '''
class Six:
    def __getitem__(self, i):
        return [1, 2, 3, 4, 5, 6][i]

    def __len__(self):
        return 6


def main():
    def two():
        return ds.NumpySlicesDataset({"a": np.arange(5), "b": np.arange(5) * 10}, shuffle=False)
    e = lambda: ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False)
    f = lambda: ds.NumpySlicesDataset({"a": np.arange(3) + 10}, shuffle=False)
    g = lambda: ds.NumpySlicesDataset({"b": np.arange(2) + 10}, shuffle=False)
    src = ds.GeneratorDataset(Six(), ["data"], shuffle=False).filter(lambda x: x < 4, input_columns=["data"])
    out = [ints(src), ints(two().filter(lambda a: a % 2 == 0, input_columns="a"), 1),
           ints(two().filter(lambda a, b: b > 15), 1), two().filter(lambda a, b: b > 15).get_dataset_size()]
    out += [ints(e().concat(f())), ints(e() + f()), ints(e().concat([f(), e()])),
            (e() + f()).get_dataset_size()]
    z = e().zip(g())
    out += [ints(z, 0), ints(z, 1), z.get_col_names(), z.get_dataset_size(), ints(ds.zip((e(), g())), 1)]
    batches = [r[0].tolist() for r in e().concat(f()).batch(2).create_tuple_iterator(output_numpy=True)]
    out += [batches, ints(e().repeat(2).concat(f()))]
    both = e().batch(2).concat(f().batch(2))
    out.append([r[0].tolist() for r in both.create_tuple_iterator(output_numpy=True)])
    return out
''')

_program("per_batch_map_columns", '''
def main():
    def base():
        return ds.NumpySlicesDataset({"a": np.arange(5), "b": np.arange(5) * 10}, shuffle=False)
    def rows(d):
        it = d.create_tuple_iterator(output_numpy=True)
        return d.get_col_names(), [[v.tolist() for v in r] for r in it]
    def plus(a, info):
        return (np.array(a) + 1,)
    def three(a, b, info):
        return a, b, [x + y for x, y in zip(a, b)]
    def swap(a, b, info):
        return (b, a)
    infos = []
    def record(b, info):
        infos.append((info.get_batch_num(), info.get_epoch_num()))
        return (b,)
    out = [rows(base().batch(2, per_batch_map=plus, input_columns=["a"])),
           rows(base().batch(2, per_batch_map=three, input_columns=["a", "b"],
                             output_columns=["a", "b", "c"])),
           rows(base().batch(2, per_batch_map=swap, input_columns=["b", "a"])),
           rows(base().batch(2, per_batch_map=lambda b, info: (b, b), input_columns=["b"],
                             output_columns=["x", "y"])),
           rows(base().batch(2, drop_remainder=True)),
           rows(base().batch(lambda info: info.get_batch_num() + 1))]
    d = base().batch(2, per_batch_map=record, input_columns=["b"])
    list(d.create_tuple_iterator(output_numpy=True))
    out.append(sorted(infos))
    cols = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4), "c": np.arange(4)}, shuffle=False)
    out.append(cols.map(lambda b: (b, b), input_columns=["b"], output_columns=["x", "y"]).get_col_names())
    cols = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4), "c": np.arange(4)}, shuffle=False)
    out.append(cols.map(lambda c, a: (c, a), input_columns=["c", "a"],
                        output_columns=["x", "y"]).get_col_names())
    return out
''')

_program("python_object_columns", '''
def gen():
    for i in range(4):
        yield {"p": np.array([i, i * 2]), "k": i}, i


def gen_nested():
    for i in range(2):
        yield ({"a": [1, 2], "b": (np.float32(1), "x")},)


def describe(v):
    if isinstance(v, dict):
        return ["dict"] + [[k, describe(x)] for k, x in v.items()]
    if isinstance(v, list | tuple):
        return [type(v).__name__] + [describe(x) for x in v]
    if isinstance(v, np.ndarray):
        return ["ndarray", str(v.dtype), v.tolist(), repr(v)]
    return [type(v).__name__, str(v.dtype), list(v.shape), v.asnumpy().tolist()]


def main():
    out = []
    for r in ds.GeneratorDataset(gen, ["c1", "c2"]).create_tuple_iterator(output_numpy=True):
        out.append(describe(list(r)))
    for r in ds.GeneratorDataset(gen, ["c1", "c2"]).batch(2).create_tuple_iterator(output_numpy=True):
        out.append(describe(list(r)))
    for r in ds.GeneratorDataset(gen, ["c1", "c2"]).create_tuple_iterator():
        out.append(describe(list(r)))
    got = []
    def pbm(c1, c2, info):
        got.append([sorted(c1[0]), [str(type(v).__name__) for v in c2]])
        return c1, c2
    d = ds.GeneratorDataset(gen, ["c1", "c2"]).batch(2, per_batch_map=pbm, input_columns=["c1", "c2"])
    for r in d.create_tuple_iterator(output_numpy=True):
        out.append(describe(list(r)))
    out.append(sorted({str(g) for g in got}))  # what per_batch_map saw (once per batch)
    for r in ds.GeneratorDataset(gen_nested, ["s"]).create_tuple_iterator():
        out.append(describe(list(r)))
    for r in ds.GeneratorDataset(gen_nested, ["s"]).create_tuple_iterator(output_numpy=True):
        out.append(describe(list(r)))
    strings = ds.NumpySlicesDataset({"a": ["x", "yy", "z"]}, shuffle=False)
    out += [describe(list(r)) for r in strings.create_tuple_iterator()]
    out += [describe(list(r)) for r in strings.batch(2).create_tuple_iterator(output_numpy=True)]
    def mapped(col1):
        return {"original_col1": col1, "square": col1 ** 2}
    d = ds.GeneratorDataset(lambda: iter(range(3)), ["col1"]).map(operations=mapped, input_columns=["col1"])
    out += [describe(list(r)) for r in d.create_tuple_iterator(output_numpy=True)]
    def flat(v):
        return tuple(v.values())
    d = ds.GeneratorDataset(gen, ["c1", "c2"]).map(flat, input_columns=["c1"], output_columns=["p", "k"])
    out += [d.get_col_names()] + [describe(list(r)) for r in d.create_tuple_iterator(output_numpy=True)]
    return out
''')

_program("eager_transforms_and_text", '''
def main():
    tr = importlib.import_module(ms.__name__ + ".dataset.transforms")
    text = importlib.import_module(ms.__name__ + ".dataset.text.transforms")
    txt = importlib.import_module(ms.__name__ + ".dataset.text")
    def show(v):
        if isinstance(v, tuple):
            return [show(x) for x in v]
        return [str(v.dtype), v.tolist(), repr(v)]
    out = [show(tr.Fill(0)(np.array([1, 2, 3]))), show(tr.Fill(2.5)(np.array([1, 2, 3]))),
           show(tr.Fill(2)(np.array([1.0, 2.0], np.float32))), show(tr.Fill("x")(np.array(["a", "b"]))),
           show(tr.Fill(3)(np.array(5))), show(tr.Fill(True)(np.array([1, 2]))),
           show(tr.OneHot(num_classes=5)(np.array(2))), show(tr.OneHot(3)(np.array([0, 2], np.int32))),
           show(tr.TypeCast(ms.int32)(np.array([1.7, 2.2]))), show(tr.TypeCast(ms.float16)([1, 2]))]
    out += [show(text.UnicodeCharTokenizer()("Welcome to Beijing !")),
            show(text.UnicodeCharTokenizer(with_offsets=True)("h\\u00e9llo")),
            show(text.WhitespaceTokenizer()("a  b\\tc\\n d")), show(text.WhitespaceTokenizer(True)("ab  c")),
            show(text.ToNumber(ms.int32)(["123456"])),
            show(text.ToNumber(ms.float32)(np.array(["1.5", "2"]))),
            show(text.ToNumber(ms.int32)("12")),
            show(text.BasicTokenizer()("Hello, World! \\u00dcn\\u00ef")),
            show(text.BasicTokenizer(lower_case=True)("Hello, World! \\u00dcn\\u00ef"))]
    vocab = txt.Vocab.from_list(["a", "b", "c"], special_tokens=["<pad>", "<unk>"], special_first=True)
    out += [sorted(vocab.vocab().items()), show(txt.Lookup(vocab, "<unk>")(np.array(["b", "zz", "a"]))),
            show(txt.Lookup(vocab, "<unk>")("c")), show(txt.Lookup(vocab, "<unk>", ms.int64)(["a"])),
            vocab.tokens_to_ids(["a", "q"]), vocab.ids_to_tokens([0, 2]),
            sorted(txt.Vocab.from_list(["a", "b"]).vocab().items())]
    d = ds.NumpySlicesDataset(["a b", "c d e"], ["t"], shuffle=False).map(txt.WhitespaceTokenizer(), "t")
    out.append([r[0].tolist() for r in d.create_tuple_iterator(output_numpy=True)])
    return out
''')

_program("mnist_samplers", '''
def write_idx(folder, images, labels):
    import os
    os.makedirs(folder, exist_ok=True)
    n = len(labels)
    header = (2051).to_bytes(4, "big") + n.to_bytes(4, "big") + (28).to_bytes(4, "big") * 2
    with open(os.path.join(folder, "train-images-idx3-ubyte"), "wb") as f:
        f.write(header + images.astype(np.uint8).tobytes())
    with open(os.path.join(folder, "train-labels-idx1-ubyte"), "wb") as f:
        f.write((2049).to_bytes(4, "big") + n.to_bytes(4, "big") + labels.astype(np.uint8).tobytes())


def main():
    import tempfile
    labels = np.array([2, 0, 1, 0, 2, 2, 1, 0, 0, 3, 1, 2], np.uint8)
    images = np.zeros((12, 28, 28), np.uint8)
    images[:, 0, 0] = np.arange(12)
    folder = tempfile.mkdtemp()
    write_idx(folder, images, labels)
    def run(**kw):
        d = ds.MnistDataset(folder, usage="train", **kw)
        return [[int(r[0][0, 0, 0]), int(r[1])] for r in d.create_tuple_iterator(output_numpy=True)]
    out = [run(shuffle=False), run(sampler=ds.SequentialSampler(2, 5)),
           run(sampler=ds.DistributedSampler(5, 4, shuffle=False)), run(sampler=ds.SubsetSampler([11, 0, 5]))]
    pk = run(sampler=ds.PKSampler(2))
    out.append([[lab for _, lab in pk], all(labels[i] == lab for i, lab in pk)])
    pk = run(sampler=ds.PKSampler(2, num_samples=5))
    out.append([lab for _, lab in pk])
    ds.config.set_seed(5)
    out += [run(), run(sampler=ds.RandomSampler(num_samples=4)), run(num_shards=2, shard_id=1)]
    return out
''')


if __name__ == "__main__":  # re-record ms_dataset_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_dataset_expected.json"))
