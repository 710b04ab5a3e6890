"""MindSpore behaviours that MindSpore's tutorials print and that ran differently here (issue
25, found by :mod:`tests.mindspore_ref.tutorials`): ``repr(Tensor)`` (shown whenever a
tuple of tensors is printed), ``repr(Cell)`` (``print(model)``), the Tensor attributes
``itemsize``/``nbytes``/``strides``, ``Tensor.from_numpy`` sharing memory, and
``mindspore.tensor(...)`` as a function.

Each program returns strings and numbers (the driver encodes them as ``{"py": ...}``), so
they compare exactly. ``EXPECTED`` (``ms_tutorial_gaps_expected.json``) holds MindSpore
2.10's answers on CPU by mode; ``python -m tests.mindspore_ref.ms_tutorial_gaps_programs``
re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = body


_program("tensor_repr_floats", '''
def main():
    cases = [np.array([[0.32618925, 0.0158914644, 0.0421645455]] * 2, np.float32),
             np.array([1.5, -2.0, 3.0], np.float32), np.array(3.5, np.float32),
             np.array([1e-9, 1e9], np.float32), np.array([np.nan, np.inf, -1.0], np.float32),
             np.array([1.0, 2.0], np.float16), np.array([1.0, 2.0], np.float64),
             np.array(-3.25), np.array(1e-7, np.float32), np.arange(30, dtype=np.float32) / 7,
             np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.zeros((2, 0), np.float32)]
    return [repr(Tensor(c)) for c in cases]
''')

_program("tensor_repr_ints_bools", '''
def main():
    cases = [np.array([1, 2, 3], np.int32), np.array([[1, -20], [3, 4]], np.int64),
             np.array([True, False]), np.array(5, np.int32), np.array(True),
             np.array([2 ** 40, 3], np.int64), np.array([1, 2], np.uint8),
             np.arange(100, dtype=np.int32), np.zeros(0, np.int32)]
    return [repr(Tensor(c)) for c in cases]
''')

_program("tensor_repr_summarised", '''
def main():
    cases = [np.arange(7, dtype=np.int32), np.arange(7, dtype=np.int32).reshape(1, 7),
             np.arange(20, dtype=np.int32).reshape(10, 2),
             np.arange(42, dtype=np.int32).reshape(3, 2, 7),
             np.arange(64 * 3, dtype=np.int32).reshape(64, 3), np.arange(1001, dtype=np.int32),
             np.full((3, 20), 1.5, np.float32), np.arange(2000, dtype=np.float32).reshape(2, 1000)]
    return [repr(Tensor(c)) for c in cases]
''')

_program("tensor_repr_in_tuple", '''
def main():
    x = Tensor(np.ones((2, 3), np.float32) / 3)
    return str((x, x[0], x.sum())), str(x)
''')

_program("cell_repr", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.seq = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU(),
                                     nn.SequentialCell(nn.Dense(3, 2, has_bias=False)))


class WithExtra(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.ReLU()

    def extend_repr(self):
        return "a=1, b=2"


class Lines(nn.Cell):
    def extend_repr(self):
        return "one\\ntwo"


def main():
    return [repr(Net()), str(Net()), repr(WithExtra()), repr(Lines()), repr(nn.ReLU()),
            repr(nn.SequentialCell()), repr(nn.CellList([nn.ReLU(), nn.Dense(2, 2)]))]
''')

_program("tensor_byte_attributes", '''
def main():
    out = []
    for dtype, shape in ((np.int32, (2, 2)), (np.float16, (3, 4, 5)), (np.float64, (7,)),
                         (np.bool_, (2, 3)), (np.int64, ())):
        x = Tensor(np.zeros(shape, dtype))
        out.append((x.itemsize, x.nbytes, tuple(x.strides)))
    return out
''')

_program("tensor_from_numpy_shares", '''
def main():
    n = np.ones(5, np.float32)
    t = Tensor.from_numpy(n)
    np.add(n, 1, out=n)
    return t.asnumpy().tolist(), str(t), str(t.dtype)
''')

_program("tensor_function", '''
def main():
    a = ms.tensor(-2)
    b = ms.tensor([1.0, 2.0], ms.float16)
    c = ms.tensor(np.arange(3, dtype=np.int32))
    return [(str(t.dtype), list(t.shape), t.asnumpy().tolist()) for t in (a, b, c)]
''')


if __name__ == "__main__":  # re-record ms_tutorial_gaps_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_tutorial_gaps_expected.json"))
