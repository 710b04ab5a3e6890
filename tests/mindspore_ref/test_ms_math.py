"""Issue 25's names (:mod:`tests.mindspore_ref.ms_math_programs`: elementwise math,
logical/bitwise, reductions, array ops, activations, their ``P.*`` classes, Tensor methods,
nn cells) in both modes, values, dtypes and gradients: against MindSpore's recorded answers
(``ms_math_expected.json``, CI), our two modes against each other, and MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv. Then what MindSpore 2.10 cannot answer on CPU
(``Roll``'s kernel is unregistered, ``Elu`` takes alpha 1 only, ``diff`` n 1 only, and
its ``SeLU`` gradient disagrees with the derivative), checked against NumPy and finite
differences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, nn, ops
from framework.ops import operations as P
from tests.mindspore_ref.ms_math_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

# float32 rounding: MindSpore's own two modes differ in the last bits (log2, logaddexp ...)
TOL = {"rtol": 2e-5, "atol": 2e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_math_expected.json", per_mode=False,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- where MindSpore 2.10 gives no answer on CPU: NumPy and finite differences ------------
X = np.array([[-2.5, -1.2, -0.3, 0.0], [0.4, 1.7, 3.1, -4.0], [0.9, -0.7, 2.2, 5.0]], np.float32)




def _numeric_grad(f, x, eps=1e-3):
    x = x.astype(np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (f(up).sum() - f(down).sum()) / (2 * eps)
    return grad


@pytest.mark.parametrize("shifts, dims", [(1, None), (-2, None), ((1, -1), (0, 1)), (2, 1), (5, 0)])
def test_roll_matches_numpy(shifts, dims):
    want = np.roll(X, shifts, dims)
    for got in both_modes(lambda x: ops.roll(x, shifts, dims), X):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(P.Roll(1, 0)(Tensor(X)).asnumpy(), np.roll(X, 1, 0))
    np.testing.assert_array_equal(Tensor(X).roll(2, 1).asnumpy(), np.roll(X, 2, 1))
    np.testing.assert_array_equal(nn.Roll(1, 1)(Tensor(X)).asnumpy(), np.roll(X, 1, 1))


def test_roll_gradient_rolls_back():
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = ops.grad(lambda x: (ops.roll(x, 1, 1) * Tensor(w)).sum())(Tensor(X)).asnumpy()
    np.testing.assert_array_equal(g, np.roll(w, -1, 1))


def test_selu_gradient_is_the_derivative():
    """MindSpore 2.10's SeLU gradient on CPU disagrees with the derivative for x < 0."""
    alpha, scale = 1.6732632423543772, 1.0507009873554805

    def selu64(v):
        return scale * np.where(v > 0, v, alpha * np.expm1(v))

    x = X + 0.05  # off the kink at 0
    g = ops.grad(lambda t: ops.selu(t).sum())(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, _numeric_grad(selu64, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_elu_with_any_alpha(alpha):
    want = np.where(X > 0, X, alpha * np.expm1(X.astype(np.float64)))
    for got in both_modes(lambda x: ops.elu(x, alpha), X):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    g = ops.grad(lambda t: ops.elu(t, alpha).sum())(Tensor(X)).asnumpy()
    np.testing.assert_allclose(g, np.where(X > 0, 1.0, alpha * np.exp(X)), rtol=1e-6)


def test_diff_of_order_two():
    for got in both_modes(lambda x: ops.diff(x, 2, 0), X):
        np.testing.assert_allclose(got, np.diff(X, 2, 0), rtol=1e-6)


def test_prod_gradient_with_zeros():
    """Product of the other entries: exact with one zero, two zeros or none in a row."""
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.5, -2.0, 0.5]], np.float32)
    for axis in (0, 1):
        g = ops.grad(lambda t, a=axis: ops.prod(t, a).sum())(Tensor(x)).asnumpy()
        np.testing.assert_allclose(g, _numeric_grad(lambda v, a=axis: np.prod(v, a), x), atol=1e-6)


def test_small_arguments_keep_their_precision_inboth_modes():
    """expm1/log1p/sinh near 0 (the compiled forms avoid the cancellation of exp(x) - 1)."""
    x = np.array([1e-7, -3e-6, 2e-4, -0.01, 0.5, -3.0], np.float32)
    for name, ref in (("expm1", np.expm1), ("log1p", np.log1p), ("sinh", np.sinh),
                      ("cosh", np.cosh), ("tan", np.tan), ("atanh", np.arctanh),
                      ("asinh", np.arcsinh), ("asin", np.arcsin), ("atan", np.arctan)):
        arg = np.clip(x, -0.9, 0.9) if name in ("log1p", "atanh", "asin") else x
        want = ref(arg.astype(np.float64))
        for got in both_modes(getattr(ops, name), arg):
            np.testing.assert_allclose(got, want, rtol=2e-6, err_msg=name)


def test_float16_inputs_keep_their_dtype():
    x = np.array([0.1, -0.5, 0.75], np.float16)
    refs = {"acos": np.arccos, "asinh": np.arcsinh, "cosh": np.cosh, "expm1": np.expm1,
            "atan": np.arctan, "round": np.rint}
    for name, ref in refs.items():
        for got in both_modes(getattr(ops, name), x):
            assert got.dtype == np.float16, name
            np.testing.assert_allclose(got, ref(x.astype(np.float32)), rtol=2e-3, err_msg=name)


def test_bad_inputs_say_what_and_where():
    with pytest.raises(TypeError, match="floating-point"):
        ops.acos(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="bool input"):
        P.LogicalNot()(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="integer"):
        ops.invert(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(ValueError, match="int axis"):
        ops.max(Tensor(X))
    with pytest.raises(ValueError, match="not supported"):
        ops.norm(Tensor(X), "nuc")
    with pytest.raises(ValueError, match="min and max"):
        ops.clamp(Tensor(X))
    with pytest.raises(ValueError, match="shifts"):
        ops.roll(Tensor(X), (1, 2), 0)
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.divide(Tensor(X), 2.0, rounding_mode="up")
