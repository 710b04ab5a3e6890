"""Smooth activations of sequence models: erf, GeLU (exact and tanh), FastGeLU, SiLU, Softplus.

Formulas as MindSpore documents them:
- ``GeLU``: ``x * P(X <= x) = 0.5 x (1 + erf(x / sqrt 2))`` ('none') or
  ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` ('tanh'; the ``ops.GeLU()`` primitive),
  computed as ``x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3))`` (no cancellation for x << 0);
  the exact form of a float32 input as ``0.5 x erfc(-x / sqrt 2)`` in float32 (_erf32.py);
  ``gelu(x, 'none')`` of float16 as MindSpore 2.10 composes it, ``x * (erf(x / sqrt 2) + 1)
  * 0.5`` with a float16 result per step (its answer bit for bit, gradient included).
- ``FastGeLU``: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``, which is
  ``x * sigmoid(1.702 x)`` written without overflow.
- ``SiLU``: ``x * sigmoid(x)``; ``Softplus``: ``log(1 + exp(x))``, computed as
  ``max(x, 0) + log1p(exp(-|x|))``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .. import dtype as mstype
from ..dtype import to_np
from ..primitive import Primitive, Spec
from ._erf32 import erf_float32, erfc_float32
from ._utils import float32_accumulation, float_dtype
from .elementwise import add, cast, div, exp, greater, mul, select, sigmoid, stable_sigmoid, sub

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_CUBIC = 0.044715
FAST_GELU_K = 1.702


def erf_numpy(x: np.ndarray) -> np.ndarray:
    """erf in ``x``'s float dtype: float32 by the vectorised ``erf_float32`` (within 1.5 ulp),
    anything else to float64 rounding by SciPy's (Cephes) ``special.erf`` in float64."""
    if x.dtype == np.float32:
        return erf_float32(x)
    return special.erf(np.asarray(x, np.float64))


class _Activation(Primitive, abstract=True):
    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), float_dtype(x.dtype))


def _derivative_in_float32(x, dout, derivative):
    """``dout * derivative(x)``, for a float16/bfloat16 ``x`` computed in float32 from the
    widened inputs and rounded once, as the forward kernel is (and MindSpore's ``*Grad``
    kernels are): a derivative written in the narrow dtype rounds after every one of its
    ten-odd steps (less accurate, and in graph mode a rounding per step in the fused kernel).
    Made of primitives with bprops, so it is differentiable again."""
    if not mstype.is_low_float(to_np(x.dtype)):  # the forward's rule (float32_accumulation)
        return mul(dout, derivative(x))
    wide = mul(cast(dout, mstype.float32), derivative(cast(x, mstype.float32)))
    return cast(wide, x.dtype)


class Erf(_Activation):
    """``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""

    @float32_accumulation
    def kernel(self, x):
        return erf_numpy(x).astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(exp(mul(mul(x, x), -1.0)), 2.0 / math.sqrt(math.pi))),)


class GeLU(_Activation):
    """``GeLU()``: MindSpore's primitive is the tanh form; ``GeLU('none')`` the exact one."""

    def __init__(self, approximate: str = "tanh") -> None:
        if approximate not in ("tanh", "none"):
            raise ValueError(f"GeLU: approximate must be 'tanh' or 'none', got {approximate!r}")
        super().__init__(approximate=approximate)

    @float32_accumulation
    def kernel(self, x):
        if self.approximate == "tanh":
            # 0.5 (1 + tanh(u)) as sigmoid(2u): no cancellation where x is very negative
            y = x * stable_sigmoid(2.0 * SQRT_2_OVER_PI * (x + GELU_CUBIC * x ** 3))
        elif x.dtype == np.float32:  # 0.5 x erfc(-x/sqrt 2): no cancellation for x << 0
            y = erfc_float32(x * np.float32(-1.0 / math.sqrt(2.0)))
            y *= np.float32(0.5)
            y *= x
        else:
            y = 0.5 * x * (1.0 + erf_numpy(x / math.sqrt(2.0)))
        return y.astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        return (_derivative_in_float32(x, dout, self._derivative),)

    def _derivative(self, x):
        if self.approximate == "tanh":
            x2 = mul(x, x)
            s = sigmoid(mul(mul(x, add(mul(x2, GELU_CUBIC), 1.0)), 2.0 * SQRT_2_OVER_PI))
            dv = mul(add(mul(x2, 3.0 * GELU_CUBIC), 1.0), 2.0 * SQRT_2_OVER_PI)
            # d/dx x s(v) = s + x s (1 - s) v'
            return add(s, mul(mul(x, mul(s, sub(1.0, s))), dv))
        cdf = mul(add(erf(mul(x, 1.0 / math.sqrt(2.0))), 1.0), 0.5)
        pdf = mul(exp(mul(mul(x, x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
        return add(cdf, mul(x, pdf))


class FastGeLU(_Activation):
    def kernel(self, x):
        a = np.abs(x)
        y = x / (1.0 + np.exp(-FAST_GELU_K * a)) * np.exp(0.5 * FAST_GELU_K * (x - a))
        return y.astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        def derivative(x):  # d/dx x s(kx) = s + k x s (1 - s)
            s = sigmoid(mul(x, FAST_GELU_K))
            return add(s, mul(mul(x, FAST_GELU_K), mul(s, sub(1.0, s))))
        return (_derivative_in_float32(x, dout, derivative),)


class SiLU(_Activation):
    def kernel(self, x):
        return (x * stable_sigmoid(x)).astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        def derivative(x):  # s + x s (1 - s)
            s = sigmoid(x)
            return mul(s, add(mul(x, sub(1.0, s)), 1.0))
        return (_derivative_in_float32(x, dout, derivative),)


class Softplus(_Activation):
    def kernel(self, x):
        return (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, sigmoid(x)),)


# -- functional forms -----------------------------------------------------------------
_ERF, _FAST_GELU, _SILU, _SOFTPLUS = Erf(), FastGeLU(), SiLU(), Softplus()
_GELU = {"tanh": GeLU("tanh"), "none": GeLU("none")}


def erf(input):  # noqa: A002  (MindSpore's name)
    return _ERF(input)


def gelu(input, approximate="none"):  # noqa: A002
    """MindSpore 2.x ``ops.gelu(input, approximate='none')``: 'none' (erf) or 'tanh'."""
    if approximate not in _GELU:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if approximate == "none" and getattr(input, "dtype", None) is not None \
            and to_np(input.dtype) == np.float16:
        return _float16_gelu(input)
    return _GELU[approximate](input)


def _float16_gelu(x):
    """MindSpore 2.10's float16 ``gelu(x, 'none')``: its composite ``x * (erf(x / sqrt 2) + 1)
    * 0.5``, each step a float16 result; the gradient is the composite's too (MindSpore's on
    the CPU bit for bit but for 0.02% of entries a step apart, where the single GeLU kernel,
    rounded once, differed on ~45% of the forward's entries)."""
    from ..common.tensor import Tensor

    def half(value):
        return Tensor(np.array(value, np.float16))

    inner = add(erf(div(x, half(math.sqrt(2.0)))), half(1.0))
    return mul(mul(x, inner), half(0.5))


def fast_gelu(x):
    return _FAST_GELU(x)


def silu(input):  # noqa: A002
    return _SILU(input)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``."""
    if beta == 1 and threshold is None:
        return _SOFTPLUS(input)
    scaled = input if beta == 1 else mul(input, float(beta))
    soft = _SOFTPLUS(scaled) if beta == 1 else mul(_SOFTPLUS(scaled), 1.0 / float(beta))
    return select(greater(scaled, float(threshold)), input, soft)
