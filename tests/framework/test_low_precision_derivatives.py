"""The derivatives of the smooth activations (exact and tanh GeLU, FastGeLU, SiLU) of a
bfloat16/float16 input are computed in float32 and rounded once, as their forward kernels
are: against the float64 derivative rounded to the dtype (at most one step of the dtype
apart, where the derivative written in the narrow dtype rounded after each of its ten-odd
steps and drifted several), in PyNative and graph mode alike, and still differentiable."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import framework as ms
from framework import Tensor, ops
from framework.dtype import to_np

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _sigmoid(v):
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def _exact_derivative(name: str, x: np.ndarray) -> np.ndarray:
    """float64 d/dx of the activation, from its published formula."""
    if name == "gelu":
        return 0.5 * special.erfc(-x / math.sqrt(2.0)) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    if name == "gelu_tanh":
        u = SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
        du = SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * x * x)
        return 0.5 * (1.0 + np.tanh(u)) + 0.5 * x * (1.0 - np.tanh(u) ** 2) * du
    k = 1.702 if name == "fast_gelu" else 1.0  # x sigmoid(k x)
    s = _sigmoid(k * x)
    return s + k * x * s * (1.0 - s)


FUNCTIONS = {"gelu": lambda x: ops.gelu(x, approximate="none"),
             "gelu_tanh": lambda x: ops.gelu(x, approximate="tanh"),
             "fast_gelu": ops.fast_gelu, "silu": ops.silu}


def _steps_apart(got: np.ndarray, exact: np.ndarray, dtype) -> np.ndarray:
    """|got - exact| in steps of ``dtype`` at the exact value (8 bits of mantissa for bf16)."""
    bits = 8 if dtype == ms.bfloat16 else 11
    scale = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(exact), 1e-30))) - (bits - 1))
    return np.abs(got.astype(np.float64) - exact) / scale


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("dtype", [ms.bfloat16, ms.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_derivative_is_rounded_once(name, dtype, mode):
    if name == "gelu" and dtype == ms.float16:
        pytest.skip("float16 exact gelu is MindSpore's per-step composite (ops/activations.py)")
    ms.set_context(mode=mode)
    rng = np.random.default_rng(0)
    narrow = to_np(dtype)
    x = rng.uniform(-5, 5, 4096).astype(np.float32).astype(narrow)
    dout = rng.uniform(0.5, 2, 4096).astype(np.float32).astype(narrow)
    f = FUNCTIONS[name]
    dx = ms.jit(ops.grad(lambda v, d: (f(v) * d).sum()))(Tensor(x), Tensor(dout))
    assert dx.dtype == dtype
    exact = dout.astype(np.float64) * _exact_derivative(name, x.astype(np.float64))
    apart = _steps_apart(dx.asnumpy().astype(np.float32), exact, dtype)
    big = np.abs(exact) > 1e-3  # where the product is not a cancellation's residue
    assert apart[big].max() <= 1.0, (name, x[big][np.argmax(apart[big])])


@pytest.mark.parametrize("name", ["gelu", "silu"])
def test_the_bfloat16_derivative_is_differentiable_again(name):
    """Second derivative of the bf16 activation: the float32 one rounded, within 2 steps."""
    f = FUNCTIONS[name]
    x = np.linspace(-3, 3, 257).astype(np.float32).astype(to_np(ms.bfloat16))
    d2 = ops.grad(ops.grad(lambda v: f(v).sum()))(Tensor(x))
    wide = ops.grad(ops.grad(lambda v: f(v).sum()))(Tensor(x.astype(np.float32))).asnumpy()
    assert d2.dtype == ms.bfloat16
    apart = _steps_apart(d2.asnumpy().astype(np.float32), wide.astype(np.float64), ms.bfloat16)
    assert apart[np.abs(wide) > 1e-2].max() <= 2.0
