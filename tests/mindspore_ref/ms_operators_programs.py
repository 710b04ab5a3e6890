"""Tensor's Python operators as MindSpore 2.10 computes them: ``~ & | ^ // % ** @`` with
their reflected and in-place forms, on bool, integer and float tensors and Python scalars
on either side, eagerly and inside a compiled ``construct`` / ``ms.jit`` function.

What MindSpore's answers say (and ours follow): ``~x`` is logical not of any dtype (a bool
tensor); a bool tensor with a Python int computes in int64 (``mask & 3``, ``mask + 1``);
``&``/``|``/``^`` of a float raise; in-place forms bind a new tensor (another name for the
old one keeps its value; MindSpore's graph mode alone updates an argument's alias in place,
which the programs leave out); the reflected ``3 & x`` exists in MindSpore's graph mode only
(its PyNative Tensor has no ``__rand__``), so the programs use it inside ``ms.jit``; masks
and integers sum in int64 (``Tensor.sum``, ``ops.sum``; ``ReduceSum`` keeps the dtype).

``EXPECTED`` (``ms_operators_expected.json``) holds MindSpore's answers per mode;
``python -m tests.mindspore_ref.ms_operators_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
B = Tensor(np.array([True, False, True, False]))
C = Tensor(np.array([True, True, False, False]))
I = Tensor(np.array([5, -3, 12, 7], np.int32))
J = Tensor(np.array([3, 2, 5, 1], np.int32))
L = Tensor(np.array([5, -3, 12, 7], np.int64))
U = Tensor(np.array([5, 3, 12, 7], np.uint8))
F = Tensor(np.array([1.5, -2.0, 0.0, 4.0], np.float32))
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + ERROR_KIND + body


_program("bitwise_eager", '''
def main():
    out = []
    for x in (B, I, L, U):
        for y in (C, J, 3, True):
            out += [x & y, x | y, x ^ y]
    errors = [kind(lambda: F & 1), kind(lambda: I | 2.0), kind(lambda: B ^ F)]
    return out, errors
''')

_program("invert_is_logical_not", '''
def main():
    zero = Tensor(np.array([0, 1, -2], np.int32))
    return ~B, ~I, ~U, ~F, ~zero, ~~B, ~Tensor(5), ~Tensor(np.array([0.0, 0.5], np.float32))
''')

_program("arithmetic_bool_with_int", '''
def main():
    return (B + 3, 3 + B, B * 2, B - 1, B + 2.5, B // 3, B % 3, 3 // C, B ** 2,
            B & 3, B | 3, B ^ 3, B + B, B & True)
''')

_program("floor_mod_pow_scalars", '''
def main():
    return (I // J, I // 3, 7 // J, I % J, I % 3, 3 % I, 2.0 // J, I // 2.0, I % 2.0,
            I ** 3, 2 ** J, 2.0 ** J, I ** 2.0, L // 4, U // 3, U % 3, 300 % U, F // 2, F % 1.5,
            U ** 2)
''')

_program("matmul_forms", '''
def main():
    a = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    b = Tensor(np.arange(6, dtype=np.int32).reshape(3, 2))
    v = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    m = Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    return a @ b, v @ m, m.T @ v, a.__rmatmul__(b)
''')

_program("reflected_in_jit", '''
@ms.jit
def reflected(x, b, j):
    return 3 & x, 3 | x, 3 ^ x, True & b, False | b, True ^ b, 3 & b, 2 ** j, 3 // j, 7 % j


def main():
    return reflected(I, B, J)
''')

_program("inplace_rebinds", '''
def main():
    out = []
    for start, ops_ in ((I, "add"), (B, "and"), (J, "floordiv")):
        a = start
        a0 = a
        if ops_ == "add":
            a += 1
            a -= J
            a *= 2
            a //= 3
            a %= 5
            a **= 2
        elif ops_ == "and":
            a &= C
            a |= Tensor(np.array([False, False, False, True]))
            a ^= True
        else:
            a //= 2
            a = a / 2
            a /= 4
        out += [a0, a]
    return out
''')

_program("operators_in_construct", '''
class Net(nn.Cell):
    def construct(self, tokens, lengths, x):
        positions = ops.arange(tokens.shape[1]).reshape(1, -1)
        pad = tokens == 0
        inside = positions < lengths.reshape(-1, 1)
        keep = ~pad & inside
        either = pad | ~inside
        odd = (tokens & 1) == 1
        flipped = keep ^ odd
        y = x * 1  # a new tensor: MindSpore's graph mode updates an alias of an argument in place
        y += 1
        y *= 2
        z = tokens + 0
        z //= 2
        z %= 3
        w = (tokens + 1) ** 2 // 3
        return keep, either, flipped, odd, y, z, w, ~tokens, -x @ x.T, 2 ** tokens


def main():
    tokens = Tensor(np.array([[4, 7, 0, 0], [3, 0, 5, 6]], np.int32))
    lengths = Tensor(np.array([2, 4], np.int32))
    x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 4)
    return Net()(tokens, lengths, x)
''')

_program("round_pos_contains", '''
def main():
    f = Tensor(np.array([1.5, -2.5, 3.2, 0.5], np.float32))
    return round(f), +I, +B, 12 in I, 4 in I, [x for x in J]
''')

_program("mask_counts", '''
def main():
    small = Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int8))
    return ((I == J).sum(), (I > 0).sum(0), I.sum(), L.sum(), U.sum(), small.sum(1), small.sum(),
            ops.sum(I), ops.sum(B), ops.sum(I, dtype=ms.float32), ops.sum(small, 1, True),
            ops.operations.ReduceSum()(I), (B & C).astype(ms.int32).sum(), F.sum())
''')


if __name__ == "__main__":  # re-record ms_operators_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_operators_expected.json"))
