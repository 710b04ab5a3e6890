"""MindSpore 2.10's JIT Fallback and JIT syntax support (issue 25, the tutorial pages
compile/python_builtin_functions, compile/statements, compile/static_graph_expert_programming):
Python values of tensors while compiling (``int(x)``, ``float(x)``, ``x.asnumpy()``,
``len``, ``isinstance``, ``type``), builtins over constants (``map``, ``zip``, ``filter``,
``enumerate``, ``range``, ``max``/``min`` of a constant tensor, conversions), what a
compiled function returns for Python objects (containers for iterators, Python numbers for
NumPy scalars, classes) and a global read before the function assigns it.
(``lazy_inline`` is checked in tests/framework/test_jit_fallback.py: MindSpore 2.10 on CPU
cannot run a lazy-inline cell in graph mode, it is an Ascend feature.)

Each program returns one string, ``describe(result)``: the result's types (tuple or list,
``int`` or ``int64``, tensor dtype/shape) and values, so MindSpore's conversions compare
exactly. ``ms_fallback_expected.json`` holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_fallback_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}

# Program source: the result as text, with each value's type (tensor classes by name).
DESCRIBE = '''
import json


def _form(v):
    if isinstance(v, tuple | list):
        return [type(v).__name__, [_form(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[k, _form(x)] for k, x in v.items()]]
    if isinstance(v, Tensor):
        return ["Tensor", str(v.dtype), list(v.shape), v.asnumpy().tolist()]
    if isinstance(v, np.ndarray):
        return ["ndarray", str(v.dtype), v.tolist()]
    if isinstance(v, type):
        return ["class", v.__name__]
    if isinstance(v, np.generic):
        return [type(v).__name__, v.item()]
    if isinstance(v, bool | int | float | str | type(None)):
        return [type(v).__name__, v]
    return [type(v).__name__, "?"]


def describe(value):
    return json.dumps(_form(value))
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = DESCRIBE + body


_program("int_float_of_call_tensors", '''
@ms.jit
def func(x, y):
    return int(3.6), int('12', 16), int('0xa', 16), int(x), float(y.asnumpy()), float(112)


def main():
    a = func(Tensor(np.array([-1.0], np.float32)), Tensor(np.array([-1], np.int32)))
    b = func(Tensor(np.array([7.5], np.float32)), Tensor(np.array([4], np.int32)))
    return describe([a, b])
''')

_program("values_computed_from_inputs", '''
@ms.jit
def scale(x):
    return x * float(ops.reduce_sum(x))


@ms.jit
def first(x):
    y = x * 2
    n = int(y[0])
    return n, n + 1


@ms.jit
def branch(x):
    if float(x[1]) > 1.5:
        return x + 1
    return x - 1


class Net(nn.Cell):
    def construct(self, x):
        return x * int(x[2])


def main():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    low = Tensor(np.array([1.0, 1.0, 2.0], np.float32))
    return describe([scale(x), first(x), branch(x), branch(low), Net()(x)])
''')

_program("shape_and_type_through_asnumpy", '''
@ms.jit
def func(w):
    n = w.asnumpy()
    return len(n), n.shape, isinstance(n, np.ndarray), getattr(n, "shape", (0,)), \\
        isinstance(w, ms.Tensor)


def main():
    return describe(func(Tensor(np.array([[-1, 2, 4], [0, 1, 2]], np.int32))))
''')

_program("conversions_of_constants", '''
@ms.jit
def func():
    a = tuple(np.array([1, 2, 3]))
    b = list(np.array([1.5, 2.5]))
    c = tuple({'a': 1, 'b': 2})
    d = list(ms.tensor([1, 2, 3]))
    e = dict(zip(['one', 'two'], [1, 2]))
    return a, b, c, d, e


def main():
    return describe(func())
''')

_program("iterators_returned", '''
def add(x, y):
    return x + y


def is_odd(x):
    if x % 2:
        return True
    return False


@ms.jit
def func():
    m1 = map(add, (1, 2, 3), (4, 5, 6))
    m2 = map(add, [0, 1, 2], [6, 7, 8])
    z = zip((1, 2, 3), (4, 5, 6))
    r = range(0, 6, 2)
    e = enumerate((100, 200), 3)
    f1 = filter(is_odd, (1, 2, 3, 4, 5))
    f2 = filter(is_odd, [6, 7, 8, 9])
    g = (x * x for x in range(1, 11) if x % 2 == 0)
    return m1, m2, z, r, e, f1, f2, g


def main():
    return describe(func())
''')

_program("enumerate_constant_tensor", '''
y = Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.int32))


@ms.jit
def func():
    return enumerate(y), tuple(y)


def main():
    return describe(func())
''')

_program("max_min_of_constants", '''
@ms.jit
def func():
    return (max([0, 1, 2, 3]), max({1: 10, 2: 20, 3: 3}), max((1, 2, 3), (1, 4)),
            min(ms.tensor([4, 2, 3])), max(ms.tensor([1, 5, 3])), ms.tensor(max(np.array([1, 4]))),
            max(np.array([1, 4])), sum([1, 2], 10))


def main():
    return describe(func())
''')

_program("type_objects_returned", '''
@ms.jit
def func(x):
    return type(1), type([1]), type({'a': 1}), type(np.array([1])), type(x), np.int64(3), \\
        np.float32(2.5), np.array([1, 2])


def main():
    return describe(func(Tensor(np.ones(2, np.float32))))
''')

_program("global_read_before_assignment", '''
z = Tensor(np.ones((2, 3), np.float32))


@ms.jit
def func():
    x = (1, 2, 3)
    for i in x:
        z += i
    return z


def main():
    return describe(func())
''')

_program("objects_returned", '''
@ms.jit_class
class Holder:
    def __init__(self):
        self.value = 3


holder = Holder()


@ms.jit
def func():
    return slice(1, 2), Ellipsis, holder, reversed([1, 2])


def main():
    s, e, h, r = func()
    return describe([type(s).__name__, s.start, s.stop, type(e).__name__, h is holder, h.value,
                      list(r)])
''')

_program("function_returned_fails", '''
def helper(a):
    return a


@ms.jit
def func():
    return helper


def main():
    return describe(func())
''')

_program("int_of_many_elements_fails", '''
@ms.jit
def func(x):
    return int(x) + 1


def main():
    return describe(func(Tensor(np.array([1.0, 2.0, 3.0], np.float32))))
''')


if __name__ == "__main__":  # re-record ms_fallback_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_fallback_expected.json"))
