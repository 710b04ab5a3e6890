"""Python scalar operands (converted once per (type, value, dtype) and reused, tensor.py):
each use still gets its own value, type and dtype, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops


def test_values_types_and_dtypes_are_kept_apart() -> None:
    f32 = Tensor(np.array([1.5, -2.0], np.float32))
    i32 = Tensor(np.array([3, 4], np.int32))
    for _ in range(2):  # the second round finds every constant converted already
        np.testing.assert_array_equal((f32 * 2.0).asnumpy(), np.float32([3.0, -4.0]))
        np.testing.assert_array_equal((f32 * 3.0).asnumpy(), np.float32([4.5, -6.0]))
        assert (i32 * 2).asnumpy().dtype == np.int32
        np.testing.assert_array_equal((i32 * 2).asnumpy(), [6, 8])
        assert (i32 * 2.5).asnumpy().dtype == np.float32  # a float scalar makes it float
        np.testing.assert_array_equal((i32 * 2.5).asnumpy(), np.float32([7.5, 10.0]))
        np.testing.assert_array_equal((f32 + True).asnumpy(), np.float32([2.5, -1.0]))
        f64 = Tensor(np.array([0.1]))
        assert (f64 + 0.1).asnumpy()[0] == 0.2  # float64 0.1, not float32's
        assert (f32 + 0.1).asnumpy().dtype == np.float32


def test_signed_zero_and_nan_constants() -> None:
    x = Tensor(np.array([1.0, -1.0], np.float32))
    for _ in range(2):
        assert np.array_equal(np.signbit((x * 0.0).asnumpy()), [False, True])
        assert np.array_equal(np.signbit((x * -0.0).asnumpy()), [True, False])
        assert np.isnan((x + float("nan")).asnumpy()).all()


def test_a_shared_constant_is_never_written() -> None:
    """Gradients through ops with constants, twice: the constant keeps its value."""
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    grad_fn = ms.grad(lambda t: ((t * 3.0) * (t - 3.0)).sum())
    first = grad_fn(x).asnumpy()
    second = grad_fn(x).asnumpy()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, 6 * x.asnumpy() - 9.0)
    np.testing.assert_array_equal((x * 3.0).asnumpy(), np.float32([3.0, 6.0, 9.0]))


@pytest.mark.parametrize("value", [1, 1.0, True])
def test_select_with_scalar_branches(value) -> None:
    cond = Tensor(np.array([True, False]))
    y = Tensor(np.array([5.0, 6.0], np.float32))
    out = ops.select(cond, value, y).asnumpy()
    np.testing.assert_array_equal(out, np.float32([1.0, 6.0]))
