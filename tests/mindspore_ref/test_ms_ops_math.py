"""MindSpore's math names added from the spec (:mod:`tests.mindspore_ref.ms_ops_math_programs`)
in both modes: against MindSpore's recorded answers (``ms_ops_math_expected.json``, CI), our
two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv.
Checks MindSpore cannot answer (random draws, values it gets wrong) follow, against NumPy
and finite differences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, ops
from tests.finite_differences import numeric_grad
from tests.mindspore_ref.ms_ops_math_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

# MindSpore's special-function kernels are single-precision approximations (~1e-5 relative
# from the correctly rounded values ours give); float16 results differ by an ulp of float16
TOL = {"rtol": 1e-4, "atol": 1e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_ops_math_expected.json", per_mode=True,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- where MindSpore 2.10 gives no answer (or a wrong one) on CPU: NumPy -------------------------
def test_nextafter_float32_steps_one_float32_ulp():
    """MindSpore 2.10's float32 kernel steps a float64 ulp and rounds back (x unchanged)."""
    x = np.array([1.0, 0.0, -2.0, 3.0, 1e-30], np.float32)
    y = np.array([2.0, -1.0, -3.0, 3.0, 0.0], np.float32)
    for got in both_modes(ops.nextafter, x, y):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, np.nextafter(x, y))


def test_value_dependent_lengths_need_pynative():
    c = np.array([2, 0, 5], np.int32)
    with pytest.raises(RuntimeError, match="bincount: its output shape depends on the input values"):
        both_modes(ops.bincount, c)
    with pytest.raises(RuntimeError, match="bartlett_window: .*PyNative"):
        both_modes(ops.bartlett_window, np.array(5, np.int32))


def test_bad_integer_math_inputs_say_what():
    f = Tensor(np.array([1.0], np.float32))
    with pytest.raises(TypeError, match="gcd: needs int16, int32 or int64"):
        ops.gcd(f, f)
    with pytest.raises(TypeError, match="one dtype"):
        ops.bitwise_left_shift(Tensor(np.array([1], np.int32)), Tensor(np.array([1], np.int64)))
    with pytest.raises(ValueError, match="histc: min must be <= max"):
        ops.histc(f, 3, 3.0, 2.0)
    with pytest.raises(ValueError, match="mvlgamma: every element"):
        ops.mvlgamma(Tensor(np.array([0.2], np.float32)), 3)




@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_hermitian_fft_gradients_are_the_adjoints(norm):
    """MindSpore 2.10 drops hfft's imaginary gradient and flips ihfft's: finite differences
    (conjugate convention, dL/dre + i dL/dim) say what they are."""
    x = (np.arange(10, dtype=np.float64).reshape(2, 5) ** 1.3) - 2.0
    c = x[:, :4] + 0.7j * x[:, 1:]
    wr = np.linspace(-1.0, 2.0, 18).reshape(2, 9)

    def hfft_loss(a):
        return (np.fft.hfft(a, 7, -1, norm or "backward") ** 2 * wr[:, :7]).sum()

    def ihfft_loss(a):
        y = np.fft.ihfft(a, 5, -1, norm or "backward")
        return (y.real * wr[:, :3]).sum() + (y.imag ** 2 * wr[:, 3:6]).sum()

    w = Tensor(wr.astype(np.float32))
    got = ops.grad(lambda t: (ops.hfft(t, 7, -1, norm) ** 2 * w[:, :7]).sum())(
        Tensor(c.astype(np.complex64))).asnumpy()
    np.testing.assert_allclose(got, numeric_grad(hfft_loss, c), rtol=1e-4, atol=1e-3)

    def ihfft_ours(t):
        y = ops.ihfft(t, 5, -1, norm)
        return (ops.real(y) * w[:, :3]).sum() + (ops.imag(y) ** 2 * w[:, 3:6]).sum()

    got = ops.grad(ihfft_ours)(Tensor(x.astype(np.float32))).asnumpy()
    np.testing.assert_allclose(got, numeric_grad(ihfft_loss, x), rtol=1e-4, atol=1e-5)


SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]], np.float64)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradients_match_finite_differences(upper):
    """MindSpore 2.10 has no cholesky gradient on CPU and a wrong cholesky_inverse one for
    upper=False (its upper=True one agrees with ours)."""
    low = np.linalg.cholesky(SPD)
    factor = low.T if upper else low
    w = np.arange(9, dtype=np.float64).reshape(3, 3) / 4.0 - 1.0

    def chol(a):
        f = np.linalg.cholesky(a)  # reads the lower triangle
        return f.T if upper else f

    g = ops.grad(lambda t: (ops.cholesky(t, upper) * Tensor(w)).sum())(Tensor(SPD)).asnumpy()
    np.testing.assert_allclose(g, numeric_grad(lambda a: (chol(a) * w).sum(), SPD), atol=1e-6)

    def inv(f):
        return np.linalg.inv(f.T @ f if upper else f @ f.T)

    for mode_fn in both_modes_grad(lambda t: (ops.cholesky_inverse(t, upper) * Tensor(w)).sum(), factor):
        np.testing.assert_allclose(mode_fn, numeric_grad(lambda f: (inv(f) * w).sum(), factor), atol=1e-6)


def both_modes_grad(loss, x):
    """``ops.grad(loss)`` at ``x`` in PyNative and compiled (graph mode)."""
    import framework as ms

    class Loss(ms.nn.Cell):
        def construct(self, t):
            return loss(t)

    out = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            out.append(ops.grad(Loss())(Tensor(x)).asnumpy())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return out


# -- random draws: distributions (ours; MindSpore's generator is its own) -----------------------
def _draws(fn, n=20000):
    import framework as ms

    ms.set_seed(123)
    return fn(n).asnumpy().astype(np.float64)


def test_random_draws_follow_their_distributions():
    def near(value, want, sigma, n=20000):
        assert abs(value - want) < 5 * sigma / np.sqrt(n), (value, want)

    z = _draws(lambda n: ops.standard_normal((n,)))
    near(z.mean(), 0.0, 1.0)
    near(z.var(), 1.0, np.sqrt(2.0))
    z = _draws(lambda n: ops.normal((n,), Tensor(3.0), Tensor(2.0)))
    near(z.mean(), 3.0, 2.0)
    near(z.std(), 2.0, np.sqrt(2.0))
    z = _draws(lambda n: ops.uniform((n,), Tensor(1.0), Tensor(3.0)))
    assert z.min() >= 1.0 and z.max() < 3.0
    near(z.mean(), 2.0, np.sqrt(1 / 3))
    k = _draws(lambda n: ops.uniform((n,), Tensor(2, ms_int32()), Tensor(6, ms_int32()), dtype=ms_int32()))
    np.testing.assert_allclose(np.bincount(k.astype(int), minlength=6)[2:] / k.size, 0.25, atol=0.02)
    z = _draws(lambda n: ops.standard_laplace((n,)))
    near(z.mean(), 0.0, np.sqrt(2.0))
    near(np.abs(z).mean(), 1.0, 1.0)  # |Laplace(0, 1)| is Exp(1)
    z = _draws(lambda n: ops.laplace((n,), Tensor(1.0), Tensor(2.0)))
    near(np.median(z), 1.0, 2.0)
    near(np.abs(z - 1.0).mean(), 2.0, 2.0)
    b = _draws(lambda n: ops.bernoulli(Tensor(np.zeros(n, np.float32)), 0.3))
    near(b.mean(), 0.3, np.sqrt(0.21))
    probs = np.array([0.2, 0.3, 0.5])
    logits = Tensor(np.log(probs)[None].astype(np.float32))
    c = _draws(lambda n: ops.random_categorical(logits, n))
    np.testing.assert_allclose(np.bincount(c.astype(int).ravel(), minlength=3) / c.size, probs, atol=0.02)
    weights = Tensor(probs[None].astype(np.float32) * 4)
    m = _draws(lambda n: ops.multinomial_with_replacement(weights, 0, 0, n, True))
    np.testing.assert_allclose(np.bincount(m.astype(int).ravel(), minlength=3) / m.size, probs, atol=0.02)
    g = _draws(lambda n: ops.gumbel_softmax(ops.tile(logits, (n, 1)), 1.0, True))
    np.testing.assert_allclose(g.mean(0), probs, atol=0.02)  # argmax of logits + Gumbel noise
    s = _draws(lambda n: ops.rrelu(Tensor(-np.ones(n, np.float32)), 0.1, 0.3))
    assert -0.3 <= s.min() and s.max() <= -0.1
    near(-s.mean(), 0.2, 0.2 / np.sqrt(3))
    for perm in (_draws(lambda n: ops.randperm(n)), _draws(lambda n: ops.shuffle(Tensor(np.arange(n)))),
                 _draws(lambda n: ops.randperm(n, dtype=ms_int32()))):
        np.testing.assert_array_equal(np.sort(perm), np.arange(perm.size))
        assert (perm != np.arange(perm.size)).mean() > 0.99


def ms_int32():
    import framework as ms

    return ms.int32


@pytest.mark.slow
def test_seeded_draws_repeat_in_both_modes_and_differ_between_calls():
    import framework as ms

    x = np.array([[0.5, -1.0, 2.0], [1.0, -3.0, 0.1]], np.float32)

    class Draws(ms.nn.Cell):
        def construct(self, a):
            return (ops.standard_normal((3,)), ops.rrelu(a), ops.gumbel_softmax(a), ops.shuffle(a),
                    ops.randperm(4), ops.random_categorical(a, 3), ops.bernoulli(a, 0.5),
                    ops.uniform((2,), Tensor(0.0), Tensor(1.0)), ops.laplace((2,), Tensor(0.0), Tensor(1.0)),
                    ops.rand(2), ops.randn_like(a), ops.normal((2,), Tensor(1.0), Tensor(3.0)))

    runs = {}
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(7)
            net = Draws()
            runs[mode] = [[o.asnumpy() for o in net(Tensor(x))] for _ in range(2)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for graph, pynative in zip(runs[ms.GRAPH_MODE], runs[ms.PYNATIVE_MODE]):
        for g, p in zip(graph, pynative):
            assert g.dtype == p.dtype and g.shape == p.shape
            np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-7)
    first, second = runs[ms.GRAPH_MODE]
    assert not np.array_equal(first[0], second[0])  # a compiled function draws anew per call


def test_det_gradient_of_a_singular_matrix_is_the_cofactor_matrix():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])  # rank 2: det 0
    for got in both_modes_grad(lambda t: ops.det(t) * 3.0, a):
        np.testing.assert_allclose(got, numeric_grad(lambda m: 3.0 * np.linalg.det(m), a), atol=1e-6)
        assert np.abs(got).max() > 1.0
