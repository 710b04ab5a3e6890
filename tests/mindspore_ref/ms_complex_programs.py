"""MindSpore 2.10's complex tensors on CPU (issue 25): the dtypes ``ms.complex64`` /
``ms.complex128``, tensors from complex data, ``repr``, promotion with real operands, the
complex ops (``ops.Complex``, ``real``, ``imag``, ``conj``, ``angle``, ``abs``,
``ComplexAbs``, ``polar``), arithmetic, matmul, reductions and casts, the errors MindSpore
gives (kinds), and gradients of real losses of complex values (the conjugate convention),
each through a Cell or ``@ms.jit`` so that graph mode compiles (here: runs interpreted).

A complex result is returned as ``parts(t)``: dtype name, real part and imaginary part (the
JSON encoding has no complex numbers). ``ms_complex_expected.json`` holds MindSpore 2.10's
answers on CPU by mode; ``python -m tests.mindspore_ref.ms_complex_programs`` re-records
them (needs ``MINDSPORE_PYTHON``).

Left out on purpose (MindSpore 2.10 differs from the mathematics, see
``framework/ops/complex_ops.py``): gradients through ``Mul``/``Pow``/``ReduceMean`` of complex
tensors (MindSpore raises TypeError) and ``Div`` with a complex cotangent (MindSpore's sign
is wrong); tests/framework/test_complex.py checks ours against finite differences.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

PROGRAMS: dict[str, str] = {}

PARTS = '''
def parts(t):
    """A complex tensor as (dtype name, real part, imaginary part), which encode as JSON."""
    a = t.asnumpy()
    return str(t.dtype), np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag)
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = PARTS + ERROR_KIND + body


_program("complex_dtypes", '''
def main():
    mstype = ms.common.dtype
    made = [Tensor(1 + 2j), Tensor([1, 2j]), Tensor(np.array([1j], np.complex64)),
            Tensor([1, 2], ms.complex64), Tensor(1 + 2j, ms.complex64), Tensor(np.complex64(3 - 1j)),
            ms.tensor([0.5j])]
    return ([str(ms.complex64), str(ms.complex128), str(mstype.complex64), str(mstype.complex128),
             str(mstype.complex_type[0]), ms.complex64 == mstype.complex64],
            [parts(t) for t in made])
''')

_program("complex_repr", '''
def main():
    cases = [np.array([1 + 2j, 3 - 4j], np.complex64),
             np.array([[1 + 2j, 3 - 4j], [0.5j, -1.25]], np.complex64),
             np.array(1 + 2j), np.arange(30).reshape(2, 15) * (1 + 0.5j), np.arange(30) * (1 + 1j),
             np.array([1 / 3 + 2j / 3, 1e-8 + 1e8j], np.complex64),
             np.array([complex(np.nan, np.inf), complex(-np.inf, -0.0)], np.complex64),
             np.complex64(1 / 3 + 1j), np.zeros((0,), np.complex64), np.arange(8).reshape(2, 2, 2) * (1 - 1j),
             np.zeros((7, 2), np.complex128)]
    return [repr(Tensor(c)) for c in cases] + [repr(Tensor([True, True])), repr(Tensor(np.array([[False]])))]
''')

_program("complex_parts_ops", '''
class Parts(nn.Cell):
    def __init__(self):
        super().__init__()
        self.complex = ops.Complex()
        self.cabs = ops.ComplexAbs()

    def construct(self, x, y):
        z = self.complex(x, y)
        return (z, ops.real(z), ops.imag(z), ops.conj(z), ops.angle(z), ops.abs(z), self.cabs(z),
                ops.Polar()(x, y), ops.polar(x, y))


def main():
    x = Tensor(np.array([1.0, -2.0, 0.0, 0.5], np.float32))
    y = Tensor(np.array([3.0, 4.0, 0.0, -0.25], np.float32))
    out = Parts()(x, y)
    x64 = Tensor(np.array([1.5, -2.0]))
    out64 = Parts()(x64, x64)
    return ([parts(t) if t.dtype in (ms.complex64, ms.complex128) else t for t in out],
            [parts(t) if t.dtype in (ms.complex64, ms.complex128) else t for t in out64])
''')

_program("complex_of_real_tensors", '''
def main():
    x = Tensor(np.array([1.5, -2.0], np.float32))
    i = Tensor(np.array([3, -4], np.int32))
    return [ops.real(x), ops.imag(x), ops.conj(x), ops.real(i), ops.imag(i), ops.conj(i),
            ops.is_complex(x), ops.is_complex(ops.Complex()(x, x)), ops.isreal(x),
            ops.isreal(Tensor(np.array([1 + 0j, 1j, -2 + 0j], np.complex64)))]
''')

_program("complex_tensor_methods", '''
def main():
    z = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64))
    return [parts(z.conj()), z.real(), z.imag(), z.angle(), z.is_complex(), z.isreal(), parts(z.abs()),
            parts(abs(z)), parts(-z), str(z.astype(ms.complex128).dtype), z.asnumpy().dtype.name]
''')

_program("complex_arithmetic", '''
class Arith(nn.Cell):
    def construct(self, z, w, x):
        return (z + w, z - w, z * w, z / w, z + x, x - z, z * 2, z * 2.5, 3 - z, z / 2, -z,
                ops.add(z, True), ops.div(z, w), 2 / z, z - 1.5, ops.square(z), z ** 2,
                ops.exp(z), ops.sqrt(z), ops.log(z))


def main():
    z = Tensor(np.array([1 + 3j, 2 - 4j, -0.5 + 0.25j], np.complex64))
    w = Tensor(np.array([0.5 - 1j, 2 + 0.25j, 1j], np.complex64))
    x = Tensor(np.array([1.0, -2.0, 4.0], np.float32))
    return [parts(t) for t in Arith()(z, w, x)]
''')

_program("complex_promotion", '''
def main():
    z = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64))
    z128 = Tensor(np.array([1j, -1j]))
    others = [Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([1.0, 2.0])),
              Tensor(np.array([1, 2], np.int32)), Tensor(np.array([1, 2], np.int64)),
              Tensor(np.array([True, False])), Tensor(np.array([1.0, 2.0], np.float16)), z128]
    return ([parts(z + o) for o in others] + [parts(o - z) for o in others]
            + [parts(z128 + o) for o in others[:5]])
''')

_program("complex_matmul_reduce", '''
class MatRed(nn.Cell):
    def construct(self, m, a, b):
        return (ops.matmul(m, a), m @ a, ops.MatMul()(m, a), ops.matmul(b, a), m.sum(), m.sum(0),
                ops.ReduceSum(keep_dims=True)(m, 1), m.mean(), m.mean(1), ops.ReduceMean()(b, (0, 2)),
                ops.sum(m, 1))


def main():
    m = Tensor(np.array([[1 + 1j, 2], [3, 4 - 1j]], np.complex64))
    a = Tensor(np.array([[0.5j, 1], [-1, 2 + 2j]], np.complex64))
    b = Tensor((np.arange(12).reshape(3, 2, 2) * (1 - 0.5j)).astype(np.complex64))
    return [parts(t) for t in MatRed()(m, a, b)]
''')

_program("complex_casts", '''
class Casts(nn.Cell):
    def construct(self, x, z, i, b):
        return (ops.cast(x, ms.complex64), x.astype(ms.complex128), ops.cast(i, ms.complex128),
                ops.cast(b, ms.complex64), ops.cast(z, ms.complex128), ops.cast(z, ms.float32),
                ops.cast(z, ms.int32), ops.cast(z, ms.float16), ops.cast(z, ms.float64))


def main():
    x = Tensor(np.array([1.5, -2.0], np.float32))
    z = Tensor(np.array([1.75 + 3j, -2.5 - 4j], np.complex64))
    i = Tensor(np.array([3, -4], np.int32))
    b = Tensor(np.array([True, False]))
    return [parts(t) if t.dtype in (ms.complex64, ms.complex128) else t for t in Casts()(x, z, i, b)]
''')

_program("complex_errors", '''
def main():
    z = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64))
    x = Tensor(np.array([1.0, 2.0], np.float32))
    z128 = Tensor(np.array([1j, 2j]))
    m = Tensor(np.ones((2, 2), np.complex64))
    return [kind(lambda: z * x), kind(lambda: x * z), kind(lambda: z / x), kind(lambda: z * z128),
            kind(lambda: z / z128), kind(lambda: z * 1j), kind(lambda: x + 1j),
            kind(lambda: ops.matmul(m, Tensor(np.ones((2, 2), np.float32)))),
            kind(lambda: ops.Complex()(x, Tensor(np.array([1.0, 2.0])))),
            kind(lambda: ops.Complex()(Tensor([1, 2]), Tensor([1, 2]))), kind(lambda: ops.angle(x)),
            kind(lambda: ops.ComplexAbs()(x)), kind(lambda: ops.polar(Tensor([1, 2]), Tensor([1, 2]))),
            kind(lambda: z < z), kind(lambda: ops.greater_equal(z, z)), kind(lambda: float(Tensor(1 + 2j))),
            kind(lambda: z + x), kind(lambda: z == z)]
''')

_program("complex_grads_of_real_parts", '''
class AbsNet(nn.Cell):
    def construct(self, x, y):
        z = ops.Complex()(x, y)
        return ops.ComplexAbs()(z).sum() + ops.angle(z).sum() + ops.real(ops.abs(z)).sum()


class DivNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Tensor(np.array([0.5 - 1j, 2 + 0.25j], np.complex64))

    def construct(self, x, y):
        return ops.real(ops.Complex()(x, y) / self.w).sum() + ops.imag(ops.Complex()(x, y).sum())


class MatNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = Tensor(np.array([[1 + 1j, 2], [3, 4 - 1j]], np.complex64))

    def construct(self, x, y):
        return ops.real(ops.matmul(ops.Complex()(x, y).reshape(1, 2), self.m)).sum()


class PolarNet(nn.Cell):
    def construct(self, x, y):
        p = ops.polar(x, y)
        return ops.real(p).sum() + ops.imag(p).sum() * 2


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, -4.0], np.float32))
    return [ops.grad(net, grad_position=(0, 1))(x, y) for net in (AbsNet(), DivNet(), MatNet(), PolarNet())]
''')

_program("complex_grads_of_complex_inputs", '''
W = np.array([0.5 - 1j, 2 + 0.25j], np.complex64)
M = np.array([[1 + 1j, 2], [3, 4 - 1j]], np.complex64)


class Losses(nn.Cell):
    def __init__(self, which):
        super().__init__()
        self.which = which
        self.w = Tensor(W)
        self.m = Tensor(M)

    def construct(self, z):
        if self.which == 0:
            return ops.real(z).sum() + ops.imag(z).sum() * 2 + ops.imag(ops.conj(z)).sum()
        if self.which == 1:
            return ops.ComplexAbs()(z).sum() + ops.angle(z).sum() + ops.real(ops.abs(z)).sum()
        if self.which == 2:
            return ops.real(z / self.w).sum() + ops.imag(z + self.w).sum() - ops.real(-z).sum()
        if self.which == 3:
            return ops.real(ops.exp(z)).sum() + ops.imag(ops.sqrt(z)).sum() + ops.real(ops.log(z)).sum()
        if self.which == 4:
            return (ops.real(z) * ops.imag(z)).sum() + (ops.ComplexAbs()(z) ** 2).sum()
        if self.which == 7:  # at 0 (angle has no gradient there: MindSpore gives nan, we 0)
            return ops.ComplexAbs()(z).sum() + ops.real(ops.abs(z)).sum()
        if self.which == 5:
            return ops.real(ops.cast(z, ms.complex128)).sum() + ops.cast(z, ms.float32).sum()
        product = ops.real(ops.matmul(self.m, z.reshape(2, 1))).sum()
        return product + ops.imag(ops.ReduceSum()(z + self.m, 0)).sum()


def main():
    z = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64))
    zero = Tensor(np.array([0j, 1j], np.complex64))
    grads = [ops.grad(Losses(k))(z) for k in range(7)]
    return [parts(g) for g in grads] + [parts(ops.grad(Losses(7))(zero))]
''')

_program("complex_jit_functions", '''
@ms.jit
def from_parts(x, y):
    z = ops.Complex()(x, y)
    return ops.ComplexAbs()(z) + ops.real(z * z), z.conj()


@ms.jit
def on_complex(z, w):
    return z * w + z.conj(), ops.angle(z), (z @ w.reshape(2, 1)).sum()


@ms.jit
def cast_in(x, shift):
    c = ops.cast(x, ms.complex64)
    return ops.imag(c * c + shift)


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, -4.0], np.float32))
    z = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64))
    w = Tensor(np.array([0.5 - 1j, 2 + 0.25j], np.complex64))
    a, b = from_parts(x, y)
    c, d, e = on_complex(z, w)
    shift = Tensor(np.array([1j, -1j], np.complex64))
    return [a, parts(b), parts(c), d, parts(e), cast_in(x, shift), cast_in(y, shift)]
''')


if __name__ == "__main__":  # re-record ms_complex_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_complex_expected.json"))
