"""Degenerate integer and empty-tensor input (issue 35): integer ``//`` and ``%`` at the
edges where C's division traps (the minimum divided by -1, division by zero), integer
powers with negative exponents, reductions over a 0-length axis and a convolution of an
empty batch. Left out, as MindSpore's answers there are not defined values: ``prod`` over
an empty axis, ``argmax``/``amax``/``mean`` of nothing, int64 beyond 2**53 (its ``//``
divides through float64). Each Cell is compiled in graph mode, where a lowering that traps
ends the process (tests/reliability/test_division_by_zero.py runs that in a subprocess).

``EXPECTED`` (``ms_degenerate_expected.json``) holds MindSpore 2.10's answers on CPU by mode
(``{"graph": ..., "pynative": ...}``); ``python -m tests.mindspore_ref.ms_degenerate_programs``
re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

_PRELUDE = '''
INTS = (np.int8, np.int16, np.uint8, np.int32, np.int64)


def edges(dtype):
    """Dividends and divisors: the minimum by -1 and 1, ordinary pairs, division by zero
    (MindSpore divides int64 through float64: no values it would round)."""
    low = np.iinfo(dtype).min
    minus = -1 if low else 1
    x = np.array([low, low, 7, 100, low, 5, 0, 100, 3], dtype)
    y = np.array([minus, 1, minus, minus, 0, 0, 0, 0, 7], dtype)
    return Tensor(x), Tensor(y)
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + body


_program("int_floor_division_edges", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x // y, x % y, ops.floor_div(x, y), ops.floor_mod(x, y)


def main():
    return [Net()(*edges(dtype)) for dtype in INTS]
''')

_program("int_floor_division_by_scalars", '''
class Net(nn.Cell):
    def construct(self, x):
        return x // -1, x % -1, ops.floor_div(x, -1), ops.floor_mod(x, -1), x // 0, x % 0


def main():
    return [Net()(edges(dtype)[0]) for dtype in (np.int32, np.int64)]
''')

_program("int_negative_powers", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x ** y, x ** -1, ops.pow(x, -2), ops.pow(x, y)


def main():
    out = []
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        x = Tensor(np.array([0, 2, -2, 1, -1, -1, 0, 3, 2], dtype))
        y = Tensor(np.array([-1, -1, -1, -5, -2, -3, 0, -2, 3], dtype))
        out.append(Net()(x, y))
    return out
''')

_program("reductions_over_an_empty_axis", '''
class Net(nn.Cell):
    def construct(self, x):
        return x.sum(axis=1), ops.reduce_sum(x, 1), ops.mean(x, 1)


def main():
    return Net()(Tensor(np.zeros((3, 0), np.float32)))
''')

_program("conv2d_of_an_empty_batch", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, weight_init="ones")
        self.valid = nn.Conv2d(3, 2, 3, pad_mode="valid", has_bias=True, weight_init="ones")

    def construct(self, x):
        return self.conv(x), self.valid(x), self.conv(x).sum()


def main():
    return Net()(Tensor(np.zeros((0, 3, 8, 8), np.float32)))
''')


if __name__ == "__main__":  # re-record ms_degenerate_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_degenerate_expected.json"))
