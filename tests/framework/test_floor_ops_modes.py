"""Float floor division and modulo at rounding edges: both modes give MindSpore 2.10's answers.

MindSpore's CPU kernels (checked in both of its modes, float16/32/64) compute
``floor(x / y)`` and ``x - floor(x / y) * y`` with the operands in float64, each operation
rounded. The references here are that definition in plain Python floats (IEEE doubles,
``math.floor``, no NumPy), a few answers recorded from MindSpore 2.10, and the other mode.
"""

import math

import numpy as np
import pytest

import framework as ms
from framework import Tensor, mint, ops

# (x, y, dtype, x // y, x % y) as MindSpore 2.10 printed them (CPU, PyNative and @jit alike for
# ops.floor_div/floor_mod, //, %, mint.floor_divide; MindSpore's PyNative mint.remainder on
# float32 computes x - (x // y) * y in float32 instead, its graph mode as floor_mod: ours
# follows floor_mod in both modes)
MINDSPORE = [
    (1.5, 0.3, np.float32, 4.0, 0.2999999523162842),
    (1.5, 0.3, np.float64, 5.0, 0.0),
    (-1.5, 0.3, np.float32, -5.0, 5.960464477539063e-08),
    (1.0, 0.1, np.float32, 9.0, 0.09999998658895493),
    (1.0, 0.1, np.float64, 10.0, 0.0),
    (0.3, 0.1, np.float64, 2.0, 0.09999999999999998),
    (7.0, -0.7, np.float32, -11.0, -0.6999998688697815),
    (7.0, -0.7, np.float64, -10.0, 0.0),
    (3.0, -1.0, np.float32, -3.0, 0.0),
    (1.0, 0.0, np.float32, math.inf, math.nan),
    (1.0, -0.0, np.float64, math.inf, math.nan),
    (-1.0, 0.0, np.float32, -math.inf, math.nan),
    (0.0, 0.0, np.float32, math.nan, math.nan),
    (math.nan, 0.0, np.float32, -math.inf, math.nan),
    (1.0, -math.inf, np.float32, -0.0, math.nan),
]


def _floor_ops(x, y):
    return (ops.floor_div(x, y), ops.floor_mod(x, y), x // y, x % y,
            mint.floor_divide(x, y), mint.remainder(x, y))


_COMPILED = ms.jit(_floor_ops)


def _run(x, y, mode):
    fn = _COMPILED if mode == "graph" else _floor_ops
    outs = [o.asnumpy() for o in fn(Tensor(x), Tensor(y))]
    for div in outs[2::2]:  # every spelling of // gives ops.floor_div's bits, of % floor_mod's
        np.testing.assert_array_equal(div, outs[0])
    for mod in outs[3::2]:
        np.testing.assert_array_equal(mod, outs[1])
    return outs[0], outs[1]


def _python_reference(x, y, dtype):
    """MindSpore's definition in Python floats (float64), element by element."""
    div, mod = [], []
    for a, b in zip(x.astype(np.float64).tolist(), y.astype(np.float64).tolist(), strict=True):
        if b == 0:
            q = math.nan if a == 0 else math.inf if a > 0 else -math.inf
        elif math.isinf(a / b) or math.isnan(a / b):
            q = a / b
        else:
            q = float(math.floor(a / b))
        div.append(q)
        finite = not (b == 0 or math.isinf(b) or math.isinf(a) or math.isnan(a) or math.isnan(b))
        mod.append(a - math.floor(a / b) * b + 0.0 if finite else math.nan)
    with np.errstate(over="ignore"):
        return np.array(div).astype(dtype), np.array(mod).astype(dtype)


def _edges(dtype, n=600, seed=3):
    """Pairs where x / y is (nearly) an integer: x = k * y rounded to ``dtype``."""
    rng = np.random.default_rng(seed)
    y = rng.choice([0.1, 0.3, 0.7, 0.2, 1.1, 2.3, 0.05], n) * rng.choice([-1, 1], n)
    x = rng.integers(-40, 40, n) * y
    return x.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mindspore_recorded_answers(mode, dtype):
    rows = [r for r in MINDSPORE if r[2] is dtype]
    x = np.array([r[0] for r in rows], dtype)
    y = np.array([r[1] for r in rows], dtype)
    div, mod = _run(x, y, mode)
    np.testing.assert_array_equal(div, np.array([r[3] for r in rows], dtype))
    np.testing.assert_array_equal(np.signbit(div), np.signbit(np.array([r[3] for r in rows])))
    np.testing.assert_array_equal(mod, np.array([r[4] for r in rows], dtype))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_edges_match_the_definition(mode, dtype):
    x, y = _edges(dtype)
    div, mod = _run(x, y, mode)
    ref_div, ref_mod = _python_reference(x, y, dtype)
    assert div.dtype == dtype and mod.dtype == dtype
    np.testing.assert_array_equal(div, ref_div)
    np.testing.assert_array_equal(mod, ref_mod)
    # the edges are where it matters: NumPy's exact-quotient answer differs on many (float64)
    if dtype is np.float64:
        assert (np.floor_divide(x, y) != ref_div).sum() > 50


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_modes_agree_bitwise_with_specials(dtype):
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e30, 1e-30, np.inf, -np.inf, np.nan])
    x, y = (a.astype(dtype).ravel() for a in np.meshgrid(values, values))
    eager, graph = _run(x, y, "pynative"), _run(x, y, "graph")
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_array_equal(e, g)
        np.testing.assert_array_equal(np.signbit(e), np.signbit(g))
    np.testing.assert_array_equal(eager[0], _python_reference(x, y, dtype)[0])


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_scalar_operand_and_broadcast(mode):
    x = np.array([[1.5], [-1.5], [0.7]], np.float32)
    y = np.array([0.3, 0.1, -0.7], np.float32)
    div, mod = _run(x, y, mode)
    ref_div, ref_mod = _python_reference(*(a.ravel() for a in np.broadcast_arrays(x, y)), np.float32)
    np.testing.assert_array_equal(div.ravel(), ref_div)
    np.testing.assert_array_equal(mod.ravel(), ref_mod)

    def by_scalar(t):
        return t // 0.3, t % 0.3

    fn = ms.jit(by_scalar) if mode == "graph" else by_scalar
    d, m = (o.asnumpy() for o in fn(Tensor(np.array([1.5, 3.0], np.float32))))
    assert d.dtype == np.float32 and d.tolist() == [4.0, 9.0]  # 0.3 as float32, as MindSpore
    np.testing.assert_array_equal(m, _python_reference(np.array([1.5, 3.0], np.float32),
                                                       np.full(2, 0.3, np.float32), np.float32)[1])


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_integers_unchanged(mode):
    x = np.array([7, -7, 7, -7, 0, 5], np.int32)
    y = np.array([2, 2, -2, -2, 3, 0], np.int32)
    div, mod = _run(x, y, mode)
    assert div.tolist() == [3, -4, -4, 3, 0, np.iinfo(np.int32).max]
    # 5 % 0: MindSpore's int32 answer (tests/mindspore_ref/ms_degenerate_programs.py)
    assert mod.tolist() == [1, 1, -1, -1, 0, np.iinfo(np.int32).min]
