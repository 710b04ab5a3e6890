"""What ``print`` in compiled code (an ``@ms.jit`` function, a GRAPH_MODE ``construct``) and
``ops.Print`` print (issue 25): tensors of each dtype and rank, 0-d tensors, special floats,
shortened and wrapped tensors, Python values and containers, prints in branches and loops.

Each program returns the text its calls printed, read at the file-descriptor level
(MindSpore's compiled print writes from C++, and may do so after the call returns: every
printing call ends with an ``END`` line, and :func:`printed` waits for it). ``EXPECTED``
(``ms_print_expected.json``) holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_print_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

CAPTURE = '''
import os
import sys
import tempfile
import time


def printed(fn, *args):
    """What ``fn(*args)`` writes to stdout, up to its closing ``END`` line."""
    sys.stdout.flush()
    saved, saved_stdout = os.dup(1), sys.stdout
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        sys.stdout = open(1, "w", closefd=False)  # Python's writes to fd 1 too (pytest replaces it)
        try:
            fn(*args)
            sys.stdout.flush()
            deadline = time.time() + 30
            while time.time() < deadline:
                tmp.seek(0)
                if tmp.read().endswith(b"END\\n"):
                    break
                time.sleep(0.02)
        finally:
            sys.stdout.flush()
            sys.stdout = saved_stdout
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode("utf-8", "replace").removesuffix("END\\n")
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = CAPTURE + body


_program("dtypes_1d", '''
@ms.jit
def show(a, b, c, d, e, f, g, h, i, j, k):
    print(a); print(b); print(c); print(d); print(e); print(f)
    print(g); print(h); print(i); print(j); print(k)
    print("END")
    return a


def main():
    values = [np.array([0.1, -2.5, 3], np.float32), np.array([0.1, -2.5, 3], np.float16),
              np.array([1e-9, 1e9, -7], np.float64), np.array([True, False]),
              np.array([-128, 0, 127], np.int8), np.array([0, 255], np.uint8),
              np.array([-5, 300], np.int16), np.array([65535], np.uint16),
              np.array([4294967295, 7], np.uint32), np.array([-2 ** 63, 5], np.int64),
              np.array([2 ** 64 - 1], np.uint64)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("scalars_0d", '''
@ms.jit
def show(*xs):
    for x in xs:
        print(x)
    print("END")
    return xs[0]


def main():
    values = [np.float32(0.1), np.float32(2.5), np.float32(3.0), np.float32(123456789.0),
              np.float32(1.5e-7), np.float64(0.123456789), np.float16(0.1), np.int32(-7),
              np.int64(12345678901), np.int16(-300), np.uint64(2 ** 64 - 1), np.bool_(True),
              np.bool_(False), np.uint8(65), np.int8(66), np.float32(1e6)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("special_floats", '''
@ms.jit
def show(a, b, c, d, e, f, g):
    print(a); print(b); print(c); print(d); print(e); print(f); print(g)
    print(a.sum())
    print("END")
    return a


def main():
    values = [np.array([-0.0, 0.0, 1.0], np.float32), np.array([np.nan, np.inf, -np.inf, 1.0], np.float32),
              np.array([1e-100, 1.0, -1e200]), np.array([1e-45, -1e-45, 3.4e38], np.float32),
              np.float32(-0.0), np.float32(np.nan), np.float32(-np.inf)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("wrapped_1d", '''
@ms.jit
def show(a, b, c, d, e, f, g):
    print(a); print(b); print(c); print(d); print(e); print(f); print(g)
    print("END")
    return a


def main():
    values = [np.arange(30, dtype=np.int32), np.arange(49, dtype=np.int32) - 20,
              np.arange(24, dtype=np.int32), np.arange(12, dtype=np.float32),
              np.arange(13, dtype=np.float32) - 3, np.arange(30) % 3 == 0,
              np.arange(1000, dtype=np.int32)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("shortened", '''
@ms.jit
def show(a, b, c, d, e, f, g, h):
    print(a); print(b); print(c); print(d); print(e); print(f); print(g); print(h)
    print("END")
    return a


def main():
    big = np.arange(2000, dtype=np.int32)
    big[1000] = 100000
    values = [big, np.arange(1001, dtype=np.float32) / 7,
              np.arange(10000, dtype=np.int32).reshape(100, 100),
              np.arange(8000, dtype=np.int32).reshape(20, 20, 20),
              np.arange(50, dtype=np.int32).reshape(10, 5),
              np.arange(60, dtype=np.int32).reshape(2, 30), (np.arange(26) % 2 == 0).reshape(2, 13),
              np.arange(26, dtype=np.float16).reshape(2, 13)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("nested", '''
@ms.jit
def show(a, b, c, d):
    print(a); print(b); print(c); print(d)
    print("END")
    return a


def main():
    values = [np.arange(24, dtype=np.int32).reshape(2, 3, 4),
              (np.arange(8, dtype=np.float32) / 3).reshape(2, 2, 2),
              np.arange(16, dtype=np.int32).reshape(2, 2, 2, 2), np.array([[1, -200], [3, 4]], np.int64)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("arguments", '''
@ms.jit
def show(x, y):
    print("x is", x, "and y", y)
    print(3, 1.5, True, False, None, -0.0, 1e-9, 100000000.0, "s")
    print((x, y), [x, 1], ("a", 2), ((1, 2), 3))
    print((1, 2), [4], (1.5, 2.5))
    print({"a": x, "b": 2})
    print(x.shape, x.dtype)
    print("multi\\nline", "{braces}", -x, y * 2)
    print("END")
    return x


def main():
    return printed(show, Tensor(np.array([1, 2, 3], np.int32)), Tensor(np.float32(2.5)))
''')

_program("control_flow", '''
@ms.jit
def show(x, y):
    if y > 1:
        print("big", y)
    else:
        print("small", y)
    for i in range(3):
        print("i", i, x * i)
    while y < 5:
        y = y + 1
        print("y", y)
    print("END")
    return y


def main():
    x = Tensor(np.array([1, 2, 3], np.int32))
    return [printed(show, x, Tensor(np.float32(2.5))), printed(show, x, Tensor(np.float32(0.5)))]
''')

_program("ops_print_compiled", '''
@ms.jit
def show(x, y):
    ops.Print()("P", x, y, 3)
    ops.Print()("END")
    return x


def main():
    return printed(show, Tensor(np.array([[0.5, -1.0]], np.float32)), Tensor(np.int32(7)))
''')

_program("ops_print_pynative", '''
def show(*xs):
    ops.Print()("hi", *xs, 3, 1.5, (1, 2), True, None)
    ops.Print()("END")


def main():
    values = [np.array([0.1, -2.5, 3], np.float32), np.int32(7), np.float32(2.5),
              np.arange(12, dtype=np.int32).reshape(3, 4), np.array([True, False]),
              np.arange(30, dtype=np.int32), np.array([1.0, 2.0], np.float16), np.float64(0.123456789)]
    return printed(show, *[Tensor(v) for v in values])
''')

_program("cell_construct", '''
class Net(nn.Cell):
    def construct(self, x, y):
        print("cell", x, y + 1)
        print("END")
        return x


def main():
    return printed(Net(), Tensor(np.array([1, 2, 3], np.int32)), Tensor(np.float32(2.5)))
''')

_program("parameter", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        print(self.w)
        print(self.w * x)
        print("END")
        return x


def main():
    return printed(ms.jit(Net()), Tensor(np.float32(3.0)))
''')

_program("keyword_arguments", ERROR_KIND + '''
@ms.jit
def with_sep(x):
    print(x, x, sep="|")
    return x


@ms.jit
def with_end(x):
    print(x, end="")
    return x


def main():
    x = Tensor(np.array([1, 2], np.int32))
    return [kind(lambda: with_sep(x)), kind(lambda: with_end(x))]
''')


if __name__ == "__main__":  # re-record ms_print_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_print_expected.json"))
