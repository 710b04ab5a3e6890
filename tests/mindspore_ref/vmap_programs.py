"""``ops.vmap`` programs, and what MindSpore 2.10 returns for them (CPU, both modes alike).

Each program defines ``main()`` (see :mod:`tests.mindspore_ref.driver`); functions
given to ``vmap`` are named ``def``s at module level, as MindSpore's graph compiler needs.
``EXPECTED`` holds MindSpore's answers: results as recorded from MindSpore 2.10, errors by
kind (``{"error": "RuntimeError"}``; the messages are ours).
"""

from __future__ import annotations

from tests.mindspore_ref.reference import tensor

_DATA = '''
X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.array([1.0, -2.0, 0.5], np.float32)


def mul(a, b):
    return a * b


def add(a, b):
    return a + b


def total(a):
    return a.sum()


def double(a):
    return a * 2


def double_and_keep(a, b):
    return a * 2, b * 3
'''

PROGRAMS: dict[str, str] = {}
EXPECTED: dict[str, object] = {}


def _case(name: str, body: str, expected: object) -> None:
    PROGRAMS[name] = _DATA + body
    EXPECTED[name] = expected


def f32(value: object) -> dict:
    return tensor(value, "float32")


_RUNTIME = {"error": "RuntimeError", "message": ""}

_case("unbatched_argument", '''
def main():
    return ops.vmap(mul, in_axes=(0, None))(Tensor(X), Tensor(Y))
''', f32([[0, -2, 1], [3, -8, 2.5]]))

_case("reduce_along_axis_1", '''
def main():
    return ops.vmap(total, in_axes=1)(Tensor(X))
''', f32([3, 5, 7]))

_case("in_and_out_axis_1", '''
def main():
    return ops.vmap(double, in_axes=1, out_axes=1)(Tensor(X))
''', f32([[0, 2, 4], [6, 8, 10]]))

_case("negative_axes", '''
def main():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    return ops.vmap(double, in_axes=-1, out_axes=-1)(x)[1]
''', f32([[24, 26, 28, 30], [32, 34, 36, 38], [40, 42, 44, 46]]))

_case("out_axes_none_for_an_unbatched_result", '''
def main():
    return ops.vmap(double_and_keep, in_axes=(0, None), out_axes=(0, None))(Tensor(X), Tensor(Y))
''', [f32([[0, 2, 4], [6, 8, 10]]), f32([3, -6, 1.5])])

_case("unbatched_result_broadcast", '''
def second(a, b):
    return b * 2


def main():
    return ops.vmap(second, in_axes=(0, None))(Tensor(X), Tensor(Y))
''', f32([[2, -4, 1], [2, -4, 1]]))

_case("nested_axes", '''
def pair_sum(t):
    return t[0] + t[1]


def main():
    x = Tensor(X)
    return ops.vmap(pair_sum, in_axes=((0, 1),))((x, x.T))
''', f32([[0, 2, 4], [6, 8, 10]]))

_case("one_axis_for_a_tuple_argument", '''
def pair_product(t):
    return t[0] * t[1]


def main():
    x = Tensor(X)
    return ops.vmap(pair_product)((x, x + 1))
''', f32([[0, 2, 6], [12, 20, 30]]))

_case("tuple_of_results_with_axes", '''
def main():
    x = Tensor(X)
    return ops.vmap(double_and_keep, in_axes=0, out_axes=(1, 0))(x, x)
''', [f32([[0, 6], [2, 8], [4, 10]]), f32([[0, 3, 6], [9, 12, 15]])])

_case("python_number_result", '''
def three(a):
    return 3


def main():
    return ops.vmap(three)(Tensor(X))
''', tensor([3, 3], "int64"))

_case("integer_inputs", '''
def main():
    return ops.vmap(mul, in_axes=(0, None))(Tensor(np.arange(6).reshape(2, 3), ms.int32),
                                            Tensor(np.array([2, 3, 4]), ms.int32))
''', tensor([[0, 3, 8], [6, 12, 20]], "int32"))

_case("matrix_vector_rows", '''
def dot(a, b):
    return ops.matmul(a, b)


def main():
    m = Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))
    return ops.vmap(dot, in_axes=(0, None))(m, Tensor(Y))
''', f32([[-1, -2.5], [-4, -5.5]]))

_case("vmap_of_vmap", '''
def main():
    return ops.vmap(ops.vmap(mul, in_axes=(0, None)), in_axes=(0, None))(
        Tensor(X), Tensor(Y))
''', f32([[[0, 0, 0], [1, -2, 0.5], [2, -4, 1]], [[3, -6, 1.5], [4, -8, 2], [5, -10, 2.5]]]))

_case("gradient_through_vmap", '''
def loss(a, w):
    return ops.vmap(mul, in_axes=(0, None))(a, w).sum()


def main():
    return ops.grad(loss, grad_position=(0, 1))(Tensor(X), Tensor(Y))
''', [f32([[1, -2, 0.5], [1, -2, 0.5]]), f32([3, 5, 7])])

_case("vmap_of_gradient", '''
def cube_sum(a):
    return (a * a * a).sum()


def main():
    return ops.vmap(ops.grad(cube_sum))(Tensor(X))
''', f32([[0, 3, 12], [27, 48, 75]]))

_case("functional_and_top_level_names", '''
def main():
    return ms.ops.functional.vmap(double)(Tensor(Y)), ms.vmap(double)(Tensor(Y))
''', [f32([2, -4, 1]), f32([2, -4, 1])])

_case("inside_construct", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(Y), name="w")

    def construct(self, a, b):
        rows = ops.vmap(mul, in_axes=(0, None))(a, self.w)
        return ops.vmap(add, in_axes=(1, None), out_axes=1)(rows, b)


def main():
    net = Net()
    x, b = Tensor(X), Tensor(np.array([10.0, 20.0], np.float32))
    return net(x, b), ops.grad(net, grad_position=(0, 1))(x, b)
''', [f32([[10, 8, 11], [23, 12, 22.5]]),
      [f32([[1, -2, 0.5], [1, -2, 0.5]]), f32([3, 3])]])

_case("a_vmapped_method_of_a_cell", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(Y), name="w")
        self.rows = ops.vmap(self.row, in_axes=(0, None))

    def row(self, r, w):
        return (r * w).sum()

    def construct(self, a):
        return self.rows(a, self.w)


def main():
    return Net()(Tensor(X))
''', f32([-1, -2.5]))

_case("cell_list_ensemble", '''
class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.full(3, k, np.float32)), name="w")

    def construct(self, a):
        return a * self.w


def main():
    cells = nn.CellList([Scale(1.0), Scale(2.0)])
    return ops.vmap(cells, in_axes=None)(Tensor(Y)), ops.vmap(cells, in_axes=0)(Tensor(X))
''', [f32([[1, -2, 0.5], [2, -4, 1]]), f32([[0, 1, 2], [6, 8, 10]])])

for _name, _call in {
    "error_batch_sizes_differ": "ops.vmap(add, in_axes=(0, 0))(Tensor(X), Tensor(Y))",
    "error_in_axes_all_none": "ops.vmap(add, in_axes=(None, None))(Tensor(X), Tensor(Y))",
    "error_out_axes_none": "ops.vmap(double, out_axes=None)(Tensor(X))",
    "error_in_axis_out_of_range": "ops.vmap(double, in_axes=2)(Tensor(X))",
    "error_out_axis_out_of_range": "ops.vmap(double, out_axes=3)(Tensor(X))",
    "error_in_axes_length": "ops.vmap(add, in_axes=(0,))(Tensor(X), Tensor(Y))",
    "error_float_axis": "ops.vmap(double, in_axes=0.5)(Tensor(X))",
    "error_batched_number": "ops.vmap(mul, in_axes=(0, 0))(Tensor(X), 3)",
    "error_batched_result_with_out_axes_none":
        "ops.vmap(double_and_keep, out_axes=(0, None))(Tensor(X), Tensor(X))",
}.items():
    _case(_name, f'''
def main():
    return {_call}
''', _RUNTIME)
