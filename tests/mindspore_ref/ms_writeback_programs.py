"""MindSpore 2.10's write-back of compiled functions' arguments (issue 25) as programs answered
in both modes: a Tensor argument updated in place inside ``@ms.jit`` / a jit ``construct``
(``add_``, ``mul_``, ``div_``, ``copy_``, ``ops.assign``) holds the new value in the caller
afterwards; the same Tensor given twice is one tensor inside; a tuple's or dict's tensors are
written back, a list's are not; and ``Tensor.register_hook`` hooks on an argument apply to
a gradient taken through a compiled function (``ms.grad(jit_fn)``, ``ms.jit(ms.grad(fn))``,
``ms.grad`` in GRAPH_MODE), with the compiled graph traced again when the hooks change.

The programs compile their in-place code (``@ms.jit``) in both modes, because MindSpore
2.10's PyNative CPU kernels return the new value without updating the tensor, and use no
lambdas as hooks (MindSpore's graph mode cannot parse them). Left out because ours differs
(see framework/graph_mode.py): ``sub_`` inside ``@ms.jit`` (MindSpore returns the difference
but leaves the tensor as it was) and views (MindSpore refuses a slice's or a transpose's and
writes a reshape's through to its base).

``ms_writeback_expected.json`` holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_writeback_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = body


_VALUES = '''
def pair():
    return (Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([10.0, 20.0], np.float32)))
'''

_program("writeback_add_mul_div", _VALUES + '''
@ms.jit
def add(x, y):
    x.add_(y)
    return x * 2


@ms.jit
def mul_div(x, y):
    x.mul_(y)
    z = x * 1
    x.div_(4)
    return z


def main():
    x, y = pair()
    r1 = add(x, y)
    after_add = Tensor(x.asnumpy())
    r2 = mul_div(x, y)
    return after_add, r1, x, r2, y
''')

_program("writeback_copy_and_assign", _VALUES + '''
@ms.jit
def copy(x, y):
    x.copy_(y)
    return y + 1


@ms.jit
def assign(x, y):
    ops.assign(x, y * 3)
    x.add_(y)
    return x + 1


def main():
    x, y = pair()
    r1 = copy(x, y)
    a, b = pair()
    r2 = assign(a, b)
    return x, r1, a, r2, b
''')

_program("writeback_repeated_calls_and_none", _VALUES + '''
@ms.jit
def step(x, y):
    x.add_(y)


def main():
    x, y = pair()
    outs = []
    for _ in range(3):
        outs.append(step(x, y) is None)
        outs.append(Tensor(x.asnumpy()))
    return tuple(outs)
''')

_program("writeback_int_tensor_float_operand", '''
@ms.jit
def bump(x):
    x.add_(1.5)
    x.mul_(3)
    return x


def main():
    x = Tensor(np.array([1, 2], np.int32))
    r = bump(x)
    return x, r
''')

_program("writeback_same_tensor_twice", '''
@ms.jit
def both(a, b):
    a.add_(1)
    b.mul_(3)
    return a + b


@ms.jit
def read_other(a, b):
    a.add_(1)
    return b * 1


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    r1 = both(x, x)
    y = Tensor(np.array([1.0, 2.0], np.float32))
    z = Tensor(np.array([5.0, 6.0], np.float32))
    r2 = read_other(y, z)     # compiled for two tensors
    r3 = read_other(y, y)     # the same object twice: not the graph above
    r4 = read_other(y, z)
    return x, r1, y, z, r2, r3, r4
''')

_program("writeback_containers", '''
@ms.jit
def first(xs):
    xs[0].add_(1)
    return xs[1] + 0


@ms.jit
def keyed(d):
    d["a"].add_(1)
    return d["b"] + 0


@ms.jit
def mixed(x, y, xs):
    x.add_(1)
    xs[0].add_(10)
    return y + 0


def one():
    return Tensor(np.array([1.0, 2.0], np.float32))


def main():
    t0, t1 = one(), one()
    r_tuple = first((t0, t1))
    l0, l1 = one(), one()
    r_list = first([l0, l1])
    d0, d1 = one(), one()
    r_dict = keyed({"a": d0, "b": d1})
    a, b = one(), one()
    r_mixed = mixed(a, b, [a, b])
    return t0, r_tuple, l0, r_list, d0, r_dict, a, b, r_mixed
''')

_program("writeback_parameter_argument", '''
@ms.jit
def bump(x):
    x.add_(5)
    return x


def main():
    p = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")
    r = bump(p)
    return p, r, p.value()
''')

_program("writeback_jit_construct_nested_cells", '''
class Inner(nn.Cell):
    def construct(self, x):
        x.mul_(3)
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    @ms.jit
    def construct(self, x, y):
        z = self.inner(x)
        ops.assign(y, y - 1)
        return z + x


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([4.0, 8.0], np.float32))
    r = Outer()(x, y)
    return x, y, r
''')

_program("writeback_under_gradients", '''
def f(x, w):
    x.mul_(w)
    return (x * x).sum()


def pair():
    return Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))


def main():
    a, w = pair()
    g1 = ms.grad(ms.jit(f), grad_position=(0, 1))(a, w)
    b, v = pair()
    g2 = ms.jit(ms.grad(f, grad_position=(0, 1)))(b, v)
    c, u = pair()
    g3 = ms.grad(ms.jit(f), grad_position=1)(c, u)
    return a, g1, b, g2, c, g3
''')

_HOOKS = '''
def times10(grad):
    return grad * 10


def plus1(grad):
    return grad + 1


@ms.jit
def f(x):
    return (x * 3).sum()


def g(x):
    return (x * 3).sum()


def one():
    return Tensor(np.array([1.0, 2.0], np.float32))
'''

_program("hook_grad_of_jit_function", _HOOKS + '''
def main():
    x = one()
    handle = x.register_hook(times10)
    with_hook = ms.grad(f)(x)
    value, grad = ms.value_and_grad(f)(x)
    handle.remove()
    return with_hook, value, grad, ms.grad(f)(x)
''')

_program("hook_added_after_compiling", _HOOKS + '''
def main():
    x = one()
    before = ms.grad(f)(x)
    x.register_hook(times10)
    after = ms.grad(f)(x)
    return before, after
''')

_program("hook_replaced_after_compiling", _HOOKS + '''
def main():
    x = one()
    handle = x.register_hook(times10)
    first = ms.grad(f)(x)
    handle.remove()
    x.register_hook(plus1)
    return first, ms.grad(f)(x)
''')

_program("hook_jit_of_grad", _HOOKS + '''
def main():
    x = one()
    x.register_hook(times10)
    return ms.jit(ms.grad(g))(x), ms.grad(ms.jit(g))(x)
''')

_program("hook_two_hooks_outside", _HOOKS + '''
def main():
    x = one()
    x.register_hook(times10)
    x.register_hook(plus1)
    return ms.grad(f)(x), ms.jit(ms.grad(g))(x)
''')

_program("hook_one_of_two_inputs", '''
def plus100(grad):
    return grad + 100


@ms.jit
def f(x, y):
    return (x * y).sum()


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    y.register_hook(plus100)
    return ms.grad(f, grad_position=(0, 1))(x, y)
''')

_program("hook_grad_of_cell", _HOOKS + '''
class Net(nn.Cell):
    def construct(self, x):
        return (x * 3).sum()


def main():
    x = one()
    x.register_hook(times10)
    return ms.grad(Net())(x), ms.grad(g)(x), Net()(x)
''')


if __name__ == "__main__":  # re-record ms_writeback_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_writeback_expected.json"))
