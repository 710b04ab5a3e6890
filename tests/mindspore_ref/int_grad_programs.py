"""Programs differentiating integer tensors, and what MindSpore 2.10 returns for them.

MindSpore differentiates every numeric tensor: a gradient with respect to an int32 input
is an int32 tensor. The rule, per primitive class (each checked by a program below, both
of MindSpore's modes giving the same answers on CPU):

- arithmetic (``+ - * / **``, ``%``, maximum/minimum, sums, cumsum, matmul, reshapes):
  the usual VJP, then cast to each operand's dtype (MindSpore casts a promoted operand on
  the way in, so its cotangent is cast back, truncating toward zero, once per use);
- ``x / y`` of integers is computed in float32, its gradients cast back (truncated);
- ``x // y``: zero; ``x % y``: ``(dout, -dout * (x // y))``;
- maximum/minimum: the larger/smaller operand takes ``dout``, a tie gives each half
  (integers: halved toward zero);
- comparisons and argmax: no gradient (zeros in the input's dtype);
- ``Cast``: the cotangent cast back to the input's dtype, whatever the dtypes (a
  float -> int -> float round trip passes ``trunc(dout)``; a bool input gets ``dout != 0``);
- mean of integers is the truncated mean, its gradient ``trunc(dout / n)``;
- ``If``/``While`` regions carry integer cotangents like float ones (bools carry none).

``EXPECTED`` holds MindSpore's answers (recorded from MindSpore 2.10 on CPU, and each
following from the formulas above); the tests check ours against them in both modes
without MindSpore, and against MindSpore itself where it is installed.
"""

from __future__ import annotations

from tests.mindspore_ref.reference import tensor

_GRAD_ALL = "ops.GradOperation(get_all=True)"


def _binary(expr: str, x: str, y: str, dx: str = "ms.int32", dy: str = "ms.int32") -> str:
    """A Cell returning ``expr`` of its inputs, differentiated with respect to both."""
    return f'''
class Net(nn.Cell):
    def construct(self, x, y):
        return {expr}


def main():
    return {_GRAD_ALL}(Net())(Tensor(np.array({x}), {dx}), Tensor(np.array({y}), {dy}))
'''


PROGRAMS: dict[str, str] = {}
EXPECTED: dict[str, object] = {}


def _case(name: str, source: str, expected: object) -> None:
    PROGRAMS[name] = source
    EXPECTED[name] = expected


def i32(value: object) -> dict:
    return tensor(value, "int32")


def f32(value: object) -> dict:
    return tensor(value, "float32")


# -- control flow: If and While regions (graph mode) ---------------------------------------
_case("branch_after_increment", f'''
class Net(nn.Cell):
    def construct(self, a, b):
        a += 1
        if a < b:
            b += a
        else:
            b -= a
        b += 5
        return b


def main():
    grad = {_GRAD_ALL}(Net())
    return grad(Tensor(2, ms.int32), Tensor(5, ms.int32)), grad(Tensor(6, ms.int32), Tensor(5, ms.int32))
''', [[i32(1), i32(1)], [i32(-1), i32(1)]])  # b + a + 1 + 5, then b - a - 1 + 5

_case("capped_accumulation", f'''
class Net(nn.Cell):
    def construct(self, a, b):
        k = Tensor(0, ms.int32)
        acc = Tensor(0, ms.int32)
        while k < 8:
            if acc <= 20:
                acc = a * b + acc
            k = k + 1
        return acc


def main():
    return {_GRAD_ALL}(Net())(Tensor(1, ms.int32), Tensor(3, ms.int32))
''', [i32(21), i32(7)])  # 7 updates of acc += a * b: (7 b, 7 a)

_case("carried_counter", f'''
class Net(nn.Cell):
    def construct(self, a, b):
        out = b
        while a < b:
            if out <= 20:
                out = a * b + out
            a = a + 1
        return out


def main():
    return {_GRAD_ALL}(Net())(Tensor(2, ms.int32), Tensor(5, ms.int32))
''', [i32(10), i32(6)])  # out = a0 b + (a0 + 1) b + b: (2 b, 2 a0 + 2)

_case("int_parameter_branch", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array(3), ms.int32), name="w")

    def construct(self, x):
        if x < 5:
            out = x * self.w
        else:
            out = x - self.w
        return out


def main():
    net = Net()
    grad = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    return grad(Tensor(np.array(2), ms.int32)), grad(Tensor(np.array(7), ms.int32))
''', [[[i32(3)], [i32(2)]], [[i32(1)], [i32(-1)]]])

_case("float_loop_int_bound", f'''
class Net(nn.Cell):
    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * 2.0
            i = i + 1
        return x


def main():
    return {_GRAD_ALL}(Net())(Tensor(np.array([1.5, 2.0]), ms.float32), Tensor(3, ms.int32))
''', [f32([8.0, 8.0]), i32(0)])

_case("float_branch_int_scale", f'''
class Net(nn.Cell):
    def construct(self, x, k):
        if k > 2:
            x = x * ops.cast(k, ms.float32)
        else:
            x = x + 1.0
        return x


def main():
    return {_GRAD_ALL}(Net())(Tensor(np.array([1.5, 2.0]), ms.float32), Tensor(3, ms.int32))
''', [f32([3.0, 3.0]), i32(3)])  # dk = trunc(1.5 + 2.0)

# -- arithmetic --------------------------------------------------------------------------
_case("products", _binary("x * x * y", [1, -2, 3], [4, 5, -6]),
      [i32([8, -20, -36]), i32([1, 4, 9])])
_case("broadcast_sum", _binary("x * y - y", [[1, 2, 3], [4, 5, 6]], [2, 3, 4]),
      [i32([[2, 3, 4], [2, 3, 4]]), i32([3, 5, 7])])
_case("promoted_operands", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x * y + x


def main():
    grad = ops.GradOperation(get_all=True)(Net())
    return (grad(Tensor(np.array([2]), ms.int32), Tensor(np.array([5.0]), ms.float32)),
            grad(Tensor(np.array([2.0]), ms.float16), Tensor(np.array([5.0]), ms.float32)))
''', [[i32([6]), f32([2.0])], [tensor([6.0], "float16"), f32([2.0])]])
_case("python_float_operand", _binary("x * 2.5 + x * 2.5 + y", [1, -2, 3], [4, 5, -6]),
      [i32([4, 4, 4]), i32([1, 1, 1])])  # trunc(2.5) per use: 2 + 2
_case("true_division", _binary("x / y", [7, -7, 9], [2, 2, 4]),
      [i32([0, 0, 0]), i32([-1, 1, 0])])  # trunc(1 / y), trunc(-x / y**2)
_case("floor_division", _binary("x // y", [7, -7, 9], [2, 2, 4]),
      [i32([0, 0, 0]), i32([0, 0, 0])])
_case("floor_mod", _binary("x % y", [7, -7, 9], [2, 2, 4]),
      [i32([1, 1, 1]), i32([-3, 4, -2])])  # (1, -(x // y))
_case("power", _binary("ops.pow(x, 2) * y", [1, -2, 3], [1, 2, 3]),
      [i32([2, -8, 18]), i32([1, 4, 9])])  # 2 x y, x**2
_case("cumulative_sum", _binary("ops.cumsum(x, 0) * y", [1, -2, 3], [4, 5, 6]),
      [i32([15, 11, 6]), i32([1, -1, 2])])
_case("min_max_ties", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return ops.maximum(x, y) + ops.minimum(x, y) * 3


def main():
    sens = Tensor(np.array([-1, -3, 3, 5, 2]), ms.int32)
    grad = ops.GradOperation(get_all=True, sens_param=True)(Net())
    x, y = np.array([2, 2, 2, 2, 7]), np.array([2, 2, 2, 2, 1])
    return grad(Tensor(x, ms.int32), Tensor(y, ms.int32), sens)
''', [i32([-1, -5, 5, 9, 2]), i32([-1, -5, 5, 9, 6])])  # tie: trunc(s / 2) + trunc(3 s / 2)
_case("float_min_max_ties",
      _binary("ops.maximum(x, y) - ops.minimum(x, y)", [1.0, 8.0, 3.0], [4.0, 5.0, 3.0],
              "ms.float32", "ms.float32"),
      [f32([-1.0, 1.0, 0.0]), f32([1.0, -1.0, 0.0])])
_case("int_mean", _binary("ops.mean(x) * y", [[1, -2], [4, 3]], [-9]),
      [i32([[-2, -2], [-2, -2]]), i32([1])])  # mean 6 // 4 = 1; trunc(-9 / 4)
_case("int_relu_abs", _binary("ops.relu(x) * y + ops.abs(x)", [1, -2, 0], [4, 5, -6]),
      [i32([5, -1, 0]), i32([1, 0, 0])])

# -- no gradient through comparisons and argmax; casts pass it ------------------------------
_case("comparisons", _binary("ops.cast(x < y, ms.int32) * x + ops.cast(x == y, ms.int32)",
                             [1, 8, 3], [4, 5, 3]),
      [i32([1, 0, 0]), i32([0, 0, 0])])
_case("argmax", _binary("ops.cast(ops.argmax(x), ms.float32) * ops.sum(x) + y",
                        [1.0, 5.0, 2.0], [4.0], "ms.float32", "ms.float32"),
      [f32([1.0, 1.0, 1.0]), f32([1.0])])
_case("float_int_float_cast",
      _binary("ops.cast(ops.cast(x, ms.int32) * 3, ms.float32) * y", [1.5, -2.5, 3.7],
              [4.5, 5.0, -6.9], "ms.float32", "ms.float32"),
      [f32([12.0, 15.0, -18.0]), f32([3.0, -6.0, 9.0])])  # 3 trunc(y); 3 trunc(x)
_case("int_float_cast", _binary("ops.cast(x, ms.float32) * 2.5 + ops.cast(y, ms.float32)",
                                [1, -2, 3], [4, 5, -6]),
      [i32([2, 2, 2]), i32([1, 1, 1])])
_case("bool_input", _binary("ops.cast(x, ms.int32) * y", [True, False], [4, 0], "ms.bool_"),
      [tensor([True, False], "bool"), i32([1, 0])])  # dx = (y != 0)

# -- other integer dtypes, sens, unused inputs, ms.grad -----------------------------------
_case("integer_widths", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x * y


def main():
    grad = ops.GradOperation(get_all=True)(Net())
    return [grad(Tensor(np.array([2, 3]), t), Tensor(np.array([5, 6]), t))
            for t in (ms.int64, ms.int16, ms.uint8)]
''', [[tensor([5, 6], t), tensor([2, 3], t)] for t in ("int64", "int16", "uint8")])
_case("unused_input", _binary("x * 3", [1, -2, 3], [4, 5, -6]), [i32([3, 3, 3]), i32([0, 0, 0])])
_case("int_sens", '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x * y


def main():
    grad = ops.GradOperation(get_all=True, sens_param=True)(Net())
    return grad(Tensor(np.array([1, 2]), ms.int32), Tensor(np.array([3, 4]), ms.int32),
                Tensor(np.array([2, 3]), ms.int32))
''', [i32([6, 12]), i32([2, 6])])
_case("grad_function", '''
def f(x, y):
    return x * y + y


def main():
    return ms.grad(f, grad_position=(0, 1))(Tensor(np.array([1, 2]), ms.int32),
                                            Tensor(np.array([3, 4]), ms.int32))
''', [i32([3, 4]), i32([2, 3])])
