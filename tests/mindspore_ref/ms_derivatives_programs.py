"""Programs for derivatives that compose: ``ops.grad`` of ``ops.grad`` (second and third
order, several inputs, a softmax cross-entropy), ``ops.jvp``, ``ops.vjp``, ``ops.jacfwd``,
``ops.jacrev`` (positions, several outputs, ``has_aux``), a Hessian
(``ops.jacfwd(ops.jacrev(f))``), ``ops.linearize`` and ``ops.derivative`` (nth order forward
mode), on Cells, in both modes.
``ms_derivatives_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_derivatives_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
X = np.array([[0.3, -1.2], [2.0, 0.7]], np.float32)
Y = np.array([[1.5, 0.5], [-0.4, 1.1]], np.float32)
V = np.array([[1.0, -2.0], [0.5, 0.25]], np.float32)
L = np.array([[0.2, -0.4, 1.1], [0.5, 0.3, -0.8]], np.float32)
LB = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)


class Cube(nn.Cell):
    def construct(self, x):
        return (x ** 3).sum()


class Sin(nn.Cell):
    def construct(self, x):
        return ops.sin(x).sum()


class Exp(nn.Cell):
    def construct(self, x):
        return ops.exp(x).sum()


class Tanh(nn.Cell):
    def construct(self, x):
        return ops.tanh(x).sum()


class Mixed(nn.Cell):
    def construct(self, x, y):
        return (ops.sin(x) * y * y).sum()


class Vector(nn.Cell):
    def construct(self, x, y):
        return ops.sin(x) * y + x ** 3


class Pair(nn.Cell):
    def construct(self, x):
        return x ** 3, ops.exp(x) * 0.5


class Scalar(nn.Cell):
    def construct(self, x):
        return (ops.sin(x) * x).sum() + (x[0] * x[1] ** 2).sum()


class SoftmaxCE(nn.Cell):
    # written out with exp and log: in MindSpore the fused SoftmaxCrossEntropyWithLogits'
    # second derivative is zero and LogSoftmaxGrad has no bprop
    def construct(self, logits, labels):
        log_p = logits - ops.log(ops.exp(logits).sum(-1, keepdims=True))
        return -(labels * log_p).sum(-1).mean()
'''

PROGRAMS: dict[str, str] = {
    "grad_of_grad": _PRELUDE + '''
def main():
    x = Tensor(X)
    return tuple(ops.grad(ops.grad(net))(x) for net in (Cube(), Sin(), Exp(), Tanh()))
''',
    "third_order": _PRELUDE + '''
def main():
    x = Tensor(X)
    return ops.grad(ops.grad(ops.grad(Sin())))(x), ops.grad(ops.grad(ops.grad(Cube())))(x)
''',
    "grad_of_grad_two_inputs": _PRELUDE + '''
def main():
    inner = ops.grad(Mixed(), grad_position=(0, 1))

    class Norm(nn.Cell):
        def construct(self, x, y):
            gx, gy = inner(x, y)
            return (gx * gx).sum() + (gy * gx).sum()

    return ops.grad(Norm(), grad_position=(0, 1))(Tensor(X), Tensor(Y))
''',
    "grad_of_grad_softmax_ce": _PRELUDE + '''
def main():
    inner = ops.grad(SoftmaxCE())

    class Penalty(nn.Cell):
        def construct(self, logits, labels):
            g = inner(logits, labels)
            return (g * g).sum()

    return ops.grad(Penalty())(Tensor(L), Tensor(LB))
''',
    "jvp": _PRELUDE + '''
def main():
    x, y, v = Tensor(X), Tensor(Y), Tensor(V)
    return (ops.jvp(Vector(), (x, y), (v, v)), ops.jvp(Pair(), x, v),
            ops.jvp(Pair(), x, v, has_aux=True), ops.jvp(Sin(), x, v))
''',
    "vjp": _PRELUDE + '''
def main():
    x, y, v = Tensor(X), Tensor(Y), Tensor(V)
    out, fn = ops.vjp(Vector(), x, y)
    first = (out, fn(v))
    out2, fn2 = ops.vjp(Pair(), x)
    second = (out2, fn2((v, v)))
    out3, fn3, aux = ops.vjp(Pair(), x, has_aux=True)
    return first, second, (out3, fn3(v), aux)
''',
    "jacrev": _PRELUDE + '''
def main():
    x, y = Tensor(X), Tensor(Y)
    return (ops.jacrev(Vector())(x, y), ops.jacrev(Vector(), grad_position=(0, 1))(x, y),
            ops.jacrev(Pair())(x), ops.jacrev(Pair(), has_aux=True)(x), ops.jacrev(Scalar())(x))
''',
    "jacfwd": _PRELUDE + '''
def main():
    x, y = Tensor(X), Tensor(Y)
    return (ops.jacfwd(Vector())(x, y), ops.jacfwd(Vector(), grad_position=(0, 1))(x, y),
            ops.jacfwd(Pair())(x), ops.jacfwd(Pair(), has_aux=True)(x), ops.jacfwd(Scalar())(x))
''',
    "hessian": _PRELUDE + '''
def main():
    x = Tensor(X[0])
    return ops.jacfwd(ops.jacrev(Scalar()))(x), ops.jacrev(ops.jacrev(Scalar()))(x)
''',
    "linearize": _PRELUDE + '''
def main():
    x, y, v = Tensor(X), Tensor(Y), Tensor(V)
    out, jvp_fn = ops.linearize(Vector(), (x, y))
    out2, jvp_fn2 = ops.linearize(Sin(), x)
    return out, jvp_fn((v, v)), jvp_fn((v, y)), out2, jvp_fn2(v)
''',
    "derivative": _PRELUDE + '''
class SinExp(nn.Cell):
    def construct(self, x):
        return ops.exp(ops.sin(x))


class Product(nn.Cell):  # MindSpore's Taylor mode has no rule for Pow
    def construct(self, x, y):
        return ops.sin(x) * y * x


def main():
    x = Tensor(X)
    return (ops.derivative(SinExp(), x, 1), ops.derivative(SinExp(), x, 3),
            ops.derivative(Product(), (x, Tensor(Y)), 2))
''',
}


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_derivatives_expected.json"))
