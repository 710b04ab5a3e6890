"""Complex tensors (framework/ops/complex_ops.py, framework/dtype.py): values against NumPy,
gradients of real losses against central finite differences (the conjugate convention
``dL/dx + i dL/dy``), graph mode (interpreted) against PyNative, and the errors.
MindSpore's own answers: tests/mindspore_ref/test_ms_complex.py."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.frontend import fallback

RNG = np.random.default_rng(7)
Z = (RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2)))
W = (RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2)))


def c128(a):
    return Tensor(np.asarray(a, np.complex128))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# -- dtypes and tensors ----------------------------------------------------------------------
def test_dtypes_and_tensor_defaults():
    assert (str(ms.complex64), str(ms.complex128)) == ("Complex64", "Complex128")
    assert ms.common.dtype.complex_type == (ms.complex64, ms.complex128)
    assert ms.dtype.to_dtype(np.complex64) is ms.complex64
    assert ms.dtype.to_dtype("complex128") is ms.complex128
    assert Tensor(1 + 2j).dtype is ms.complex128 and Tensor([1, 2j]).dtype is ms.complex128
    assert Tensor(np.ones(2, np.complex64)).dtype is ms.complex64
    t = Tensor([1, 2], ms.complex64)
    np.testing.assert_array_equal(t.asnumpy(), np.array([1, 2], np.complex64))
    assert t.dtype.is_complex and not t.dtype.is_floating and Tensor(1 + 2j).item() == 1 + 2j


@pytest.mark.parametrize("other,expected", [
    (np.float32, np.complex64), (np.float64, np.complex128), (np.int64, np.complex64),
    (np.int32, np.complex64), (np.bool_, np.complex64), (np.float16, np.complex64),
    (np.complex128, np.complex128)])
def test_promotion_with_real_operands(other, expected):
    """Complex wins; only float64 or complex128 widen complex64 (NumPy would widen for int64)."""
    z = Tensor(np.array([1 + 2j, -3j], np.complex64))
    o = Tensor(np.array([1, 0]).astype(other))
    for out in (z + o, o - z, ops.add(o, z)):
        assert out.dtype.np == np.dtype(expected)
    np.testing.assert_allclose((z + o).asnumpy(), z.asnumpy() + o.asnumpy().astype(expected))


def test_repr_reads_back():
    """Each element shows as ``%g%+gj``: the values to 6 significant digits."""
    values = (RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))).astype(np.complex64)
    text = repr(Tensor(values)).split("value=\n", 1)[1].rstrip(")")
    rows = [r.strip(" [],") for r in text.splitlines()]
    shown = np.array([[complex(v) for v in r.split(", ")] for r in rows])
    np.testing.assert_allclose(shown, values, rtol=1e-5)
    assert repr(Tensor(np.complex64(1 - 0.5j))) == "Tensor(shape=[], dtype=Complex64, value= 1-0.5j)"


# -- ops against NumPy -----------------------------------------------------------------------
def test_parts_against_numpy():
    x, y = RNG.normal(size=5).astype(np.float32), RNG.normal(size=5).astype(np.float32)
    z = ops.Complex()(Tensor(x), Tensor(y))
    ref = x + 1j * y
    assert z.dtype is ms.complex64
    np.testing.assert_array_equal(z.asnumpy(), ref.astype(np.complex64))
    for ours, theirs in [(ops.real(z), x), (ops.imag(z), y), (z.real(), x), (z.imag(), y),
                         (ops.angle(z), np.angle(ref)), (ops.ComplexAbs()(z), np.abs(ref))]:
        assert ours.dtype is ms.float32
        np.testing.assert_allclose(ours.asnumpy(), theirs, rtol=1e-6)
    np.testing.assert_array_equal(ops.conj(z).asnumpy(), np.conj(ref).astype(np.complex64))
    magnitude = ops.abs(z)  # MindSpore's Abs keeps the complex dtype
    assert magnitude.dtype is ms.complex64
    np.testing.assert_allclose(magnitude.asnumpy(), np.abs(ref) + 0j, rtol=1e-6)
    np.testing.assert_allclose(ops.polar(Tensor(x), Tensor(y)).asnumpy(), x * np.exp(1j * y), rtol=1e-6)


def test_real_inputs_of_part_ops():
    i = Tensor(np.array([3, -4], np.int32))
    assert ops.real(i).dtype is ms.int32 and ops.conj(i).dtype is ms.int32
    np.testing.assert_array_equal(ops.imag(i).asnumpy(), [0, 0])
    np.testing.assert_array_equal(ops.isreal(Tensor(np.array([1 + 0j, 1j]))).asnumpy(), [True, False])
    assert ops.is_complex(Tensor(1j)) and not ops.is_complex(i)


def test_arithmetic_matmul_reductions_against_numpy():
    z, w = c128(Z), c128(W)
    checks = [(z + w, Z + W), (z - w, Z - W), (z * w, Z * W), (z / w, Z / W), (-z, -Z),
              (z * 2.5, Z * 2.5), (3 - z, 3 - Z), (ops.exp(z), np.exp(Z)), (ops.sqrt(z), np.sqrt(Z)),
              (ops.log(z), np.log(Z)), (ops.matmul(z, w.T), Z @ W.T), (z.sum(), Z.sum()),
              (z.sum(0), Z.sum(0)), (z.mean(), Z.mean()),
              (ops.ReduceMean(keep_dims=True)(z, 1), Z.mean(1, keepdims=True)),
              (ops.matmul(Tensor(np.stack([Z, W])), w.T), np.stack([Z, W]) @ W.T)]
    for k, (ours, ref) in enumerate(checks):
        assert ours.dtype is ms.complex128, k
        np.testing.assert_allclose(ours.asnumpy(), ref, rtol=1e-12, err_msg=str(k))


def test_casts_take_the_real_part():
    z = Tensor(np.array([1.75 + 3j, -2.5 - 4j], np.complex64))
    np.testing.assert_array_equal(ops.cast(z, ms.float32).asnumpy(), [1.75, -2.5])
    np.testing.assert_array_equal(ops.cast(z, ms.int32).asnumpy(), [1, -2])
    np.testing.assert_array_equal(ops.cast(Tensor([0j, 1j]), ms.bool_).asnumpy(), [False, False])
    np.testing.assert_array_equal(Tensor([1.5, 2.0]).astype(ms.complex64).asnumpy(), [1.5 + 0j, 2 + 0j])


@pytest.mark.parametrize("fn", [
    lambda z, x: z * x, lambda z, x: x / z, lambda z, x: z * c128([1j, 1j]), lambda z, x: z * 1j,
    lambda z, x: ops.Complex()(x, Tensor([1.0, 2.0], ms.float64)), lambda z, x: ops.angle(x),
    lambda z, x: ops.ComplexAbs()(x), lambda z, x: z < z,
    lambda z, x: ops.Complex()(Tensor([1, 2]), Tensor([1, 2])),
    lambda z, x: ops.matmul(z.reshape(1, 2), x.reshape(2, 1))])
def test_mindspores_type_errors(fn):
    z, x = Tensor(np.array([1 + 3j, 2 - 4j], np.complex64)), Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(TypeError):
        fn(z, x)


# -- gradients against finite differences ----------------------------------------------------
def numeric_grad(loss, z: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """``dL/dx + i dL/dy`` by central differences (complex128)."""
    grad = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        for step in (1, 1j):
            up, down = z.copy(), z.copy()
            up[idx] += eps * step
            down[idx] -= eps * step
            slope = (loss(c128(up)).asnumpy() - loss(c128(down)).asnumpy()) / (2 * eps)
            grad[idx] += slope * step
    return grad


WT = c128(W)
LOSSES = {
    "abs": lambda z: ops.ComplexAbs()(z).sum(),
    "abs_op": lambda z: ops.real(ops.abs(z)).sum(),
    "norm_sq": lambda z: ops.real(z * ops.conj(z)).sum(),
    "angle": lambda z: ops.angle(z).sum(),
    "imag_div": lambda z: ops.imag(z / WT).sum(),
    "div_by": lambda z: ops.real(WT / z).sum(),
    "mul": lambda z: ops.imag(z * WT * z).sum(),
    "exp_sqrt_log": lambda z: (ops.real(ops.exp(z)) + ops.imag(ops.sqrt(z)) + ops.real(ops.log(z))).sum(),
    "matmul": lambda z: ops.imag(ops.matmul(z, WT.T)).sum() + ops.real(ops.matmul(WT.T, z)).sum(),
    "mean": lambda z: ops.real(ops.mean(z * WT)) * 3,
    "cast": lambda z: (ops.cast(z * WT, ms.float64).sum()
                       + ops.real(ops.cast(ops.imag(z), ms.complex128)).sum()),
    "parts": lambda z: (ops.real(z) * ops.imag(z)).sum() + ops.imag(ops.conj(z) - WT).sum(),
    "polar": lambda z: ops.imag(ops.polar(ops.real(z), ops.imag(z))).sum(),
    "broadcast": lambda z: ops.real((z + c128([[1j, 2]])) * WT).sum(),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_match_finite_differences(name):
    loss = LOSSES[name]
    ours = ops.grad(loss)(c128(Z)).asnumpy()
    np.testing.assert_allclose(ours, numeric_grad(loss, Z), rtol=1e-6, atol=1e-7)


def test_gradient_through_complex_of_real_parts():
    x, y = RNG.normal(size=2), RNG.normal(size=2)

    def loss(x, y):
        z = ops.Complex()(x, y)
        return ops.real(z * z * WT[0]).sum() + ops.ComplexAbs()(z).sum()

    dx, dy = ops.grad(loss, grad_position=(0, 1))(Tensor(x), Tensor(y))
    num = numeric_grad(lambda z: loss(ops.real(z), ops.imag(z)), x + 1j * y)
    np.testing.assert_allclose(dx.asnumpy(), num.real, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), num.imag, rtol=1e-6)


def test_magnitude_gradient_is_zero_at_zero():
    g = ops.grad(lambda z: ops.ComplexAbs()(z).sum() + ops.angle(z).sum())(c128([0j, 2j]))
    np.testing.assert_allclose(g.asnumpy(), [0, 1j - 0.5], atol=1e-12)  # |z|: z/|z|, angle: iz/|z|^2


# -- graph mode: interpreted ------------------------------------------------------------------
class Net(nn.Cell):
    def construct(self, x, y):
        z = ops.Complex()(x, y)
        return ops.ComplexAbs()(z * z) + ops.angle(z), ops.conj(z) @ ops.cast(x, ms.complex64).reshape(-1, 1)


def test_graph_mode_runs_complex_interpreted(graph_mode):
    x, y = Tensor(RNG.normal(size=3).astype(np.float32)), Tensor(RNG.normal(size=3).astype(np.float32))
    graph = Net()(x, y)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = Net()(x, y)
    for g, e in zip(graph, eager):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6)


def test_jit_with_complex_arguments_and_its_gradient():
    @ms.jit
    def f(z, w):
        return ops.real(z * ops.conj(w)).sum() + ops.ComplexAbs()(z).sum()

    z, w = c128(Z), c128(W)
    np.testing.assert_allclose(f(z, w).asnumpy(), np.real(Z * np.conj(W)).sum() + np.abs(Z).sum())
    entries = [e for cached in f._cache.values() for e in cached]
    assert entries and all(isinstance(e, fallback.Interpreted) for e in entries)
    g = ms.jit(ops.grad(f))(z, w)
    np.testing.assert_allclose(g.asnumpy(), numeric_grad(lambda t: f(t, w), Z), rtol=1e-6)


def test_strict_syntax_refuses_complex_with_one_line():
    @ms.jit(jit_config=ms.JitConfig(jit_syntax_level="STRICT"))
    def f(x):
        return ops.real(ops.Complex()(x, x))

    with pytest.raises(fallback.ComplexValueError, match="Complex.*complex64"):
        f(Tensor(np.ones(2, np.float32)))


def test_real_functions_still_compile(graph_mode):
    @ms.jit
    def f(x):
        return ops.real(x) * 2 + ops.conj(x)

    x = Tensor(np.array([1.0, -2.0], np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), [3.0, -6.0])
    assert f.last_report is not None  # compiled, not interpreted
