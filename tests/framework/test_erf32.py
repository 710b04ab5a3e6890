"""The vectorised float32 erf (framework/ops/_erf32.py) against SciPy's float64 erf: within
1.5 ulp of the correctly rounded value on a dense grid, the special values kept, and the
float32 kernels that use it (ops.Erf, exact GeLU) against float64 references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from framework import Tensor, ops
from framework.ops._erf32 import P_NEAR, Q_FAR, erf_float32, erfc_float32, fit_coefficients
from tests.framework import library_primitives as lib


def assert_gelu_close(got: np.ndarray, x: np.ndarray) -> None:
    """``got`` against the float64 exact GeLU of ``x``, relatively. The bound grows with
    ``x^2``: rounding ``x / sqrt 2`` to float32 (1/sqrt 2, then the product: relative 2^-24
    each) moves ``erfc(-x/sqrt 2)`` of a negative ``x`` by ``x^2`` times that, which no
    float32 kernel avoids."""
    x64 = x.astype(np.float64)
    exact = 0.5 * x64 * special.erfc(-x64 / math.sqrt(2.0))
    bound = 2e-6 + 2 * x64 ** 2 * 2.0 ** -24
    normal = np.abs(exact) > np.finfo(np.float32).tiny
    rel = np.abs(got[normal] - exact[normal]) / np.abs(exact[normal])
    assert np.all(rel <= bound[normal]), f"x={x[normal][np.argmax(rel - bound[normal])]!r}"
    assert np.abs(got[~normal] - exact[~normal]).max(initial=0) <= np.finfo(np.float32).tiny


def ulp_error(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in units of the float32 spacing at the correctly rounded value."""
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


def test_the_written_coefficients_are_the_fit() -> None:
    near, far = fit_coefficients()
    np.testing.assert_allclose(near, P_NEAR, rtol=2e-7, atol=0)
    np.testing.assert_allclose(far, Q_FAR, rtol=2e-7, atol=0)


def test_dense_grid_within_one_and_a_half_ulp() -> None:
    x = np.linspace(-6.0, 6.0, 1_200_001).astype(np.float32)
    x = np.concatenate([x, np.geomspace(1e-38, 1.0, 20_001, dtype=np.float32)])
    x = np.concatenate([x, -x, np.nextafter(np.float32([1.0, -1.0, 4.0]), 0, dtype=np.float32)])
    got = erf_float32(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    err = ulp_error(got, special.erf(x.astype(np.float64)))
    assert err.max() <= 1.5, f"max {err.max():.2f} ulp at x={x[err.argmax()]!r}"


def test_special_values() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 4.0, -7.5, 3e38, -3e38, 1e-45],
                 np.float32)
    got = erf_float32(x)
    np.testing.assert_array_equal(got[:4], [0.0, -0.0, 1.0, -1.0])
    assert np.signbit(got[1]) and not np.signbit(got[0])
    assert np.isnan(got[4])
    np.testing.assert_array_equal(got[5:9], [1.0, -1.0, 1.0, -1.0])
    assert got[9] == np.float32(special.erf(np.float64(x[9])))


def test_odd_and_monotone() -> None:
    x = np.linspace(0.0, 5.0, 500_001).astype(np.float32)
    got = erf_float32(x)
    np.testing.assert_array_equal(erf_float32(-x), -got)
    assert np.all(np.diff(got) >= 0)


def test_erfc_relative_accuracy_down_to_underflow() -> None:
    x = np.linspace(-12.0, 12.0, 1_200_001).astype(np.float32)
    got = erfc_float32(x)
    exact = special.erfc(x.astype(np.float64))
    normal = exact > np.finfo(np.float32).tiny
    rel = np.abs(got[normal] - exact[normal]) / exact[normal]
    assert rel.max() <= 8e-7, f"max {rel.max():.2e} at x={x[normal][rel.argmax()]!r}"
    assert np.abs(got[~normal] - exact[~normal]).max() <= np.finfo(np.float32).tiny
    special_x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3e38], np.float32)
    np.testing.assert_array_equal(erfc_float32(special_x), [1.0, 1.0, 0.0, 2.0, np.nan, 0.0])


@pytest.mark.parametrize("shape", [(), (7,), (3, 4, 5)])
def test_float32_kernels_against_float64(shape) -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    x64 = x.astype(np.float64)
    erf = ops.Erf()(Tensor(x)).asnumpy()
    gelu = lib.GeLU("none")(Tensor(x)).asnumpy()
    assert erf.dtype == gelu.dtype == np.float32
    assert erf.shape == gelu.shape == shape
    assert ulp_error(erf, special.erf(x64)).max() <= 1.5
    assert_gelu_close(gelu, x)


def test_exact_gelu_float32_keeps_relative_accuracy_in_the_left_tail() -> None:
    x = -np.linspace(0.0, 13.0, 100_001).astype(np.float32)  # 0.5 x (1 + erf) would cancel
    gelu = lib.GeLU("none")(Tensor(x)).asnumpy()
    assert_gelu_close(gelu, x)
