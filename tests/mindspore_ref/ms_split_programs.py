"""``GeneratorDataset(...).split(sizes, randomize)`` as MindSpore 2.10 splits: over a list,
an object with ``__getitem__``/``__len__`` (a source MindSpore indexes: the positions
``0..n-1`` shuffled once with the seed when ``randomize``, each part a subset sampler under
the source's own sampler, so a shuffled source gives each part other rows every epoch), and
a generator function (consecutive rows when not ``randomize``); sizes as fractions and
counts; two epochs of each part. Which rows land in each part is the answer.

Left out: a randomized split of a generator function's rows (MindSpore shuffles them
through its shuffle buffer, whose draws ours do not reproduce).

``EXPECTED`` (``ms_split_expected.json``) holds MindSpore's answers per mode;
``python -m tests.mindspore_ref.ms_split_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

_PRELUDE = '''
import importlib

ds = importlib.import_module(ms.__name__ + ".dataset")
ROWS = [(np.array([i, -i], np.int32), np.array(i % 3, np.int32)) for i in range(11)]


class Indexable:
    def __getitem__(self, i):
        return ROWS[i]

    def __len__(self):
        return len(ROWS)


def stream():
    yield from ROWS


def epochs(part, n=2):
    it = part.create_tuple_iterator(output_numpy=True, num_epochs=n)
    return [[int(row[0][0]) for row in it] for _ in range(n)], part.get_dataset_size()


def splits(make, sizes_list=([0.8, 0.2], [6, 5], [0.5, 0.3, 0.2])):
    out = []
    for randomize in (True, False):
        for sizes in sizes_list:
            ms.set_seed(3)
            out.append([epochs(p) for p in make().split(sizes, randomize=randomize)])
    return out
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + body


_program("split_list_unshuffled", '''
def main():
    return splits(lambda: ds.GeneratorDataset(ROWS, ["x", "y"], shuffle=False))
''')

_program("split_list_shuffled", '''
def main():
    return splits(lambda: ds.GeneratorDataset(ROWS, ["x", "y"]))
''')

_program("split_indexable_object", '''
def main():
    return (splits(lambda: ds.GeneratorDataset(Indexable(), ["x", "y"], shuffle=False)),
            splits(lambda: ds.GeneratorDataset(Indexable(), column_names=["x", "y"], shuffle=True),
                   ([0.7, 0.3],)))
''')

_program("split_then_batch_and_map", '''
def main():
    ms.set_seed(5)
    train, test = ds.GeneratorDataset(ROWS, ["x", "y"], shuffle=False).split([0.8, 0.2])
    train = train.map(lambda x: x * 10, "x").batch(3)
    batches = [[b.tolist() for b in batch] for batch in train.create_tuple_iterator(output_numpy=True)]
    return batches, epochs(test), train.get_dataset_size()
''')

_program("split_generator_function_in_order", '''
def main():
    out = []
    for sizes in ([0.8, 0.2], [6, 5], [0.5, 0.3, 0.2]):
        ms.set_seed(3)
        out.append([epochs(p) for p in ds.GeneratorDataset(stream, ["x", "y"]).split(sizes, randomize=False)])
    return out
''')

_program("split_fraction_counts", '''
def main():
    out = []
    for n in (13, 11, 7):
        for sizes in ([0.8, 0.2], [0.4, 0.3, 0.3], [0.15, 0.85], [0.33, 0.33, 0.34]):
            rows = [np.array([i], np.int32) for i in range(n)]
            parts = ds.GeneratorDataset(rows, ["x"], shuffle=False).split(sizes)
            out.append([p.get_dataset_size() for p in parts])
    return out
''')


if __name__ == "__main__":  # re-record ms_split_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_split_expected.json"))
