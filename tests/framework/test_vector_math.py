"""The vector float32 exp/erf that replace libm's in LLVM builds
(framework/backend/tvm/schedule/vector_math.py): errors in ulps against float64 NumPy/SciPy on dense
grids, special values as libm, vectorized loops and their scalar tails, float64 untouched."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import tvm
from tvm import te, tirx
from tvm.s_tir import Schedule

from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.schedule import vector_math

erf64 = np.vectorize(math.erf, otypes=[np.float64])


def _build(fn, n: int, dtype: str = "float32", vector: int = 16):
    """``B[i] = fn(A[i])`` with the loop split by ``vector``, its inner part vectorized (n not
    a multiple of it: a scalar tail too)."""
    vector_math.install()
    a = te.placeholder((n,), dtype, "A")
    b = te.compute((n,), lambda i: fn(a[i]), "B")
    sch = Schedule(te.create_prim_func([a, b]))
    (loop,) = sch.get_loops(sch.get_sblock("B"))
    _, inner = sch.split(loop, [None, vector])
    sch.vectorize(inner)
    lib = tvm.compile(sch.mod, target=make_target("CPU"))

    def run(x: np.ndarray) -> np.ndarray:
        out = tvm.runtime.tensor(np.empty_like(x))
        lib(tvm.runtime.tensor(x), out)
        return out.numpy()
    return run


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the float32 spacing at ``want`` (normal range)."""
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def _grid(low: float, high: float, n: int = 400_003) -> np.ndarray:
    return np.linspace(low, high, n).astype(np.float32)


def test_exp_error_within_two_ulps() -> None:
    x = _grid(-87.0, 88.7)
    got = _build(tirx.exp, x.size)(x)
    assert _ulps(got, np.exp(x.astype(np.float64))).max() <= 2.0


def test_exp_small_and_large_arguments() -> None:
    x = np.array([0.0, -0.0, 1e-30, -1e-30, 1e-7, -1e-7, 88.72, 88.73, 89.0, 1e4, -87.3,
                  -95.0, -103.0, -103.99, -104.0, -1e4, np.inf, -np.inf, np.nan, 1.0, -1.0],
                 np.float32)
    got = _build(tirx.exp, x.size)(x)
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    tiny = np.abs(want) < np.finfo(np.float32).tiny  # subnormal results: absolute error
    np.testing.assert_allclose(got[~tiny], want[~tiny], rtol=3e-7)
    assert np.all(np.abs(got[tiny] - want[tiny]) <= 4 * np.finfo(np.float32).smallest_subnormal)
    assert np.isnan(got[-3]) and got[-4] == 0.0 and got[-5] == np.inf


def test_erf_error_within_three_ulps() -> None:
    x = _grid(-4.5, 4.5)
    got = _build(tirx.erf, x.size)(x)
    want = erf64(x.astype(np.float64))
    assert _ulps(got, want).max() <= 3.0
    assert np.array_equal(got, -_build(tirx.erf, x.size)(-x))  # odd


def test_erf_special_values() -> None:
    x = np.array([0.0, -0.0, 1e-38, -1e-38, 1e-45, 0.9, -0.9, 3.93, 3.94, -3.94, 10.0,
                  np.inf, -np.inf, np.nan], np.float32)
    got = _build(tirx.erf, x.size)(x)
    want = erf64(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(got[:-1], want[:-1], rtol=3e-7, atol=0)
    assert np.isnan(got[-1]) and np.signbit(got[1]) and got[-2] == -1.0


@pytest.mark.parametrize("vector", [1, 4, 16])
def test_widths_agree(vector: int) -> None:
    """Scalar code and every vector width give the same bits."""
    x = np.random.default_rng(0).standard_normal(1001).astype(np.float32) * 5
    ref_exp = _build(tirx.exp, x.size, vector=16)(x)
    ref_erf = _build(tirx.erf, x.size, vector=16)(x)
    assert np.array_equal(_build(tirx.exp, x.size, vector=vector)(x), ref_exp)
    assert np.array_equal(_build(tirx.erf, x.size, vector=vector)(x), ref_erf)


def test_float64_keeps_libm() -> None:
    x = np.linspace(-30, 30, 1001)
    np.testing.assert_allclose(_build(tirx.exp, x.size, "float64")(x), np.exp(x), rtol=1e-15)
    np.testing.assert_allclose(_build(tirx.erf, x.size, "float64")(x), erf64(x), rtol=1e-15,
                               atol=1e-300)


# exp's clamp of its argument, as TVMScript prints it: (low, what lanes below low compute on)
_CLAMP = re.compile(r"Select\(exp_x >= T\.float32\(([-\d.e]+)\), T\.Select\(exp_x <= "
                    r"T\.float32\([-\d.e]+\), exp_x, T\.float32\([-\d.e]+\)\), T\.float32\(([-\d.e]+)\)\)")


def test_exp_far_below_range_is_zero_without_subnormal_arithmetic() -> None:
    """A causal mask's -inf (and -1e9) give exactly 0, and the lanes below the range compute
    on 0, not on the clamp: clamped to EXP_LOW they would build a subnormal (2^-75 * 2^-75),
    an x86 microcode assist per vector that made a masked softmax 10x slower."""
    clamps = _CLAMP.findall(str(vector_math.exp_f32(tirx.Var("x", "float32"))))
    assert clamps and all(float(low) < -100 and float(below) == 0.0 for low, below in clamps)
    n = 1 << 12
    vector_math.install()
    a = te.placeholder((n,), "float32", "A")
    sch = Schedule(te.create_prim_func([a, te.compute((n,), lambda i: tirx.exp(a[i]), "B")]))
    (loop,) = sch.get_loops(sch.get_sblock("B"))
    sch.vectorize(sch.split(loop, [None, 16])[1])
    kernel = tvm.compile(sch.mod, target=make_target("CPU"))
    masked = np.full(n, -np.inf, np.float32)
    masked[1::2] = -1e9
    masked[2::4] = -104.5
    y, out = tvm.runtime.tensor(masked), tvm.runtime.tensor(np.empty_like(masked))
    kernel(y, out)
    assert np.all(out.numpy() == 0.0)
