"""Fast float32 ``erf`` and ``erfc`` for the PyNative kernels (exact GeLU, ``ops.Erf``).

SciPy's ``special.erf`` is a scalar Cephes loop (about 12 ns an element here, float32 input
too); the exact GeLU of a small GPT calls it on ~400k elements 8 times a step, which was a
third of the step. These are a few dozen vectorised float32 NumPy passes:

- ``|x| < 1``: ``erf(x) = x + x p(x^2)``, ``p`` a degree-6 polynomial for ``erf(x)/x - 1``
  (adding ``x`` last keeps the rounding of the correction small);
- ``|x| >= 1``: ``erfc(|x|) = exp(-x^2) t q(t)`` with ``t = 1/(1 + |x|)``, ``q`` a degree-8
  polynomial for ``erfcx(z)/t`` on ``z`` in ``[1, inf)``; ``exp(-x^2)`` is
  ``exp(-h^2) exp(-(|x| - h)(|x| + h))`` with ``h`` the leading 12 bits of ``|x|``, so that
  the rounding of ``x^2`` does not cost relative accuracy in the far tail. ``|x|`` is clipped
  to 11 (``erfc(11)`` is below float32's smallest subnormal).
- ``erf = sign(x) (1 - erfc(|x|))`` there, and ``erfc(x) = 1 - erf(x)`` for ``|x| < 1``,
  ``2 - erfc(|x|)`` for ``x <= -1``: ``erfc`` keeps its relative accuracy where it is tiny
  (GeLU's ``0.5 x erfc(-x/sqrt 2)`` of a very negative ``x``, where ``1 + erf`` cancels).
  The far form is computed on the elements with ``|x| >= 1`` only (gathered, then
  scattered back): a GeLU's inputs are mostly inside.

The coefficients are not copied from anywhere: ``fit_coefficients`` fits them by weighted
least squares on 4000 Chebyshev nodes against SciPy's float64 ``erf``/``erfcx``, and its
float32 results are written out below (``P_NEAR``, ``Q_FAR``). ``erf`` is
within 1.5 ulp of the correctly rounded float32 value, ``erfc`` within 8e-7 relative
(tests/framework/test_erf32.py); +-0, +-inf and nan keep their meaning. Only float32 arrays
take this path; float64 keeps SciPy.
"""

from __future__ import annotations

import numpy as np
from scipy import special

SPLIT, CLIP = 1.0, 11.0  # |x| where the two forms meet; |x| beyond which erfc(|x|) is 0
_DEG_NEAR, _DEG_FAR, _NODES = 6, 8, 4000
_HIGH_BITS = np.uint32(0xFFFFF000)  # sign, exponent and 11 explicit mantissa bits


def _power_fit(f, lo: float, hi: float, deg: int) -> np.ndarray:
    """Power-basis coefficients (lowest first, float32) of the relative-error weighted
    least-squares Chebyshev fit of ``f`` on ``[lo, hi]``."""
    k = np.arange(_NODES)
    xs = (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / _NODES)
    ys = f(xs)
    series = np.polynomial.Chebyshev.fit(xs, ys, deg, domain=[lo, hi], w=1.0 / np.abs(ys))
    return series.convert(kind=np.polynomial.Polynomial).coef.astype(np.float32)


def fit_coefficients() -> tuple[np.ndarray, np.ndarray]:
    """The fit that gave ``P_NEAR`` and ``Q_FAR`` (tests/framework/test_erf32.py reruns it)."""
    def near(s):  # erf(x)/x - 1 as a function of s = x^2 (its limit at 0: 2/sqrt(pi) - 1)
        x = np.sqrt(s)
        ratio = special.erf(x) / np.where(x > 0, x, 1.0)
        return np.where(x > 0, ratio, 2.0 / np.sqrt(np.pi)) - 1.0

    def far(t):  # erfcx(z)/t as a function of t = 1/(1 + z)
        return special.erfcx((1.0 - t) / t) / t

    return (_power_fit(near, 0.0, SPLIT * SPLIT, _DEG_NEAR),
            _power_fit(far, 1e-9, 1.0 / (1.0 + SPLIT), _DEG_FAR))


# fit_coefficients()'s results, written out so that every machine uses the same float32
# values (a least-squares solve may differ in its last bits between BLAS/LAPACK builds)
P_NEAR = np.array([0.12837916612625122, -0.376126229763031, 0.11283580213785172,
                   -0.026854336261749268, 0.0051903813146054745, -0.0008035623468458652,
                   7.957699563121423e-05], np.float32)
Q_FAR = np.array([0.564189612865448, 0.5641878247261047, 0.28226420283317566,
                  -0.28766143321990967, -0.6190494894981384, -0.8609442114830017,
                  4.999006271362305, -6.255712985992432, 2.722226619720459], np.float32)


def _horner(coef: np.ndarray, v: np.ndarray) -> np.ndarray:
    acc = np.full_like(v, coef[-1])
    for c in coef[-2::-1]:
        np.multiply(acc, v, out=acc)
        np.add(acc, c, out=acc)
    return acc


def _near(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(xs, erf(xs))`` for a flat float32 ``x``, ``xs`` being ``x`` clipped to [-1, 1]
    (exactly +-1 wherever |x| >= 1, nan where x is)."""
    xs = np.clip(x, -SPLIT, SPLIT)
    near = _horner(P_NEAR, xs * xs)
    np.multiply(near, xs, out=near)
    np.add(near, xs, out=near)
    return xs, near


def _far(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(where, sign, erfc(|x|))`` at the elements of a flat float32 ``x`` with
    ``|x| >= 1`` or nan (``where``: their indices; ``sign``: +-1, nan for nan). Computed on
    those elements only: the inputs of a GeLU are mostly inside (-1, 1)."""
    where = np.flatnonzero(~(np.abs(x) < SPLIT))
    picked = x[where]
    sign = np.clip(picked, -SPLIT, SPLIT)  # +-1 (and nan) here
    a = np.abs(picked, out=picked)
    np.clip(a, SPLIT, CLIP, out=a)
    t = np.add(a, np.float32(1.0))
    np.reciprocal(t, out=t)
    far = _horner(Q_FAR, t)
    np.multiply(far, t, out=far)
    high = (a.view(np.uint32) & _HIGH_BITS).view(np.float32)  # high * high is exact
    low = np.subtract(a, high)  # exact
    np.add(a, high, out=a)
    np.multiply(low, a, out=low)  # x^2 - high^2
    np.multiply(high, high, out=high)
    for part in (high, low):
        np.negative(part, out=part)
        np.exp(part, out=part)
        np.multiply(far, part, out=far)
    return where, sign, far


def _float32_flat(x) -> tuple[np.ndarray, tuple[int, ...]]:
    x = np.asarray(x, np.float32)
    return x.reshape(-1), x.shape


def erf_float32(x: np.ndarray) -> np.ndarray:
    """``erf`` of a float32 array, as a new float32 array (see the module docstring)."""
    x, shape = _float32_flat(x)
    _, out = _near(x)
    where, sign, far = _far(x)
    np.subtract(np.float32(1.0), far, out=far)
    out[where] = np.multiply(far, sign, out=far)  # sign(x) (1 - erfc(|x|))
    return out.reshape(shape)


def erfc_float32(x: np.ndarray) -> np.ndarray:
    """``erfc = 1 - erf`` of a float32 array, relatively accurate where it is tiny."""
    x, shape = _float32_flat(x)
    _, out = _near(x)
    np.subtract(np.float32(1.0), out, out=out)
    where, sign, far = _far(x)
    np.multiply(far, sign, out=far)
    np.subtract(np.float32(1.0), sign, out=sign)  # exactly 0 or 2
    out[where] = np.add(far, sign, out=far)  # erfc(|x|) for x >= 1, 2 - erfc(|x|) for x <= -1
    return out.reshape(shape)
