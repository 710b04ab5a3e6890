"""Harness cases (see primitive_cases.py) of issue 25's primitives: ops/math_unary.py,
ops/math_binary.py and ReduceProd; references are NumPy/SciPy, gradients finite
differences (the harness's)."""

from __future__ import annotations

import numpy as np
from scipy import special

from framework.ops import math_binary as mb
from framework.ops import math_unary as mu
from framework.ops.reductions import ReduceProd

from .primitive_cases import Case, positive, rand

S = (2, 3)


def _inside(r):
    return [r.uniform(-0.9, 0.9, S)]


def _off_integers(r):  # away from the jumps of floor/ceil/round/trunc (finite differences)
    return [np.floor(r.uniform(-5, 5, S)) + r.uniform(0.1, 0.4, S) * r.choice([1, 3], S)]


def _ints(r):
    return [r.integers(-20, 20, S).astype(np.int32), r.integers(-20, 20, S).astype(np.int32)]


def _bools(r):
    return [r.standard_normal(S) > 0, r.standard_normal(S) > 0]


ZEROS = np.array([[[0.0, 2.0], [1.5, -1.0], [0.0, 2.0]], [[3.0, 0.5], [0.0, 0.0], [1.0, -2.0]]])
SPECIAL = np.array([[np.nan, np.inf, -np.inf], [0.0, -1.5, 2.0]])

MATH_CASES = [
    Case(mu.ACos(), _inside, np.arccos),
    Case(mu.Asin(), _inside, np.arcsin),
    Case(mu.Atan(), rand(S), np.arctan),
    Case(mu.Acosh(), lambda r: [r.uniform(1.2, 4, S)], np.arccosh),
    Case(mu.Asinh(), rand(S), np.arcsinh),
    Case(mu.Atanh(), _inside, np.arctanh),
    Case(mu.Cosh(), rand(S), np.cosh),
    Case(mu.Sinh(), rand(S), np.sinh),
    Case(mu.Tan(), _inside, np.tan),
    Case(mu.Expm1(), rand(S), np.expm1),
    Case(mu.Log1p(), positive(S), np.log1p),
    Case(mu.Erfc(), rand(S), special.erfc),
    Case(mu.Reciprocal(), positive(S), np.reciprocal),
    Case(mu.Rsqrt(), positive(S), lambda x: 1 / np.sqrt(x)),
    Case(mu.Square(), rand(S), np.square),
    Case(mu.Square(), lambda r: _ints(r)[:1], np.square, diff=()),
    Case(mu.Sign(), _off_integers, np.sign),
    Case(mu.Floor(), _off_integers, np.floor),
    Case(mu.Ceil(), _off_integers, np.ceil),
    Case(mu.Round(), lambda r: [np.array([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.7]])], np.rint, diff=()),
    Case(mu.Trunc(), _off_integers, np.trunc),
    Case(mu.IsNan(), lambda r: [SPECIAL], np.isnan),
    Case(mu.IsInf(), lambda r: [SPECIAL], np.isinf),
    Case(mu.IsFinite(), lambda r: [SPECIAL], np.isfinite),
    Case(mu.LogicalNot(), lambda r: _bools(r)[:1], np.logical_not),
    Case(mu.Invert(), lambda r: _ints(r)[:1], np.invert),
    Case(mb.Atan2(), rand(S, (3,)), np.arctan2),
    Case(mb.LogicalAnd(), _bools, np.logical_and),
    Case(mb.LogicalOr(), _bools, np.logical_or),
    Case(mb.LogicalXor(), _bools, np.logical_xor),
    Case(mb.BitwiseAnd(), _ints, np.bitwise_and),
    Case(mb.BitwiseOr(), _ints, np.bitwise_or),
    Case(mb.BitwiseXor(), _ints, np.bitwise_xor),
    Case(mb.BitwiseAnd(), _bools, np.bitwise_and),
    Case(ReduceProd(False, (1,)), rand((2, 3, 4)), lambda x: np.prod(x, axis=1)),
    # zeros: none, one and two in a reduced group (the gradient's three cases)
    Case(ReduceProd(True, (0, 2)), lambda r: [ZEROS], lambda x: np.prod(x, axis=(0, 2), keepdims=True)),
]
