"""Elementwise primitives: arithmetic, comparisons, select, cast, activations; complex as
MindSpore (``dtype.check_complex_pair``, ``Abs`` keeps it, gradients ``_holomorphic``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec
from . import complex_ops as _complex_ops
from . import reduce as _reduce
from . import shape_ops as _shape
from ._holomorphic import holomorphic
from ._utils import broadcast_shape, float_dtype, result_dtype, sum_to_axes
from .float16_rounding import float16_sigmoid, rounded_once
from .floor_float import ms_floor_divide, ms_floor_mod
from .int_edges import ms_power


def sum_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """Reduce a broadcast gradient back to an input's ``shape``."""
    if grad.shape == tuple(shape):
        return grad
    axes = sum_to_axes(grad.shape, tuple(shape))
    if axes == tuple(range(len(grad.shape) - len(shape))):  # only leading axes: no reshape needed
        return _reduce.reduce_sum(grad, axes, False)
    return _shape.reshape(_reduce.reduce_sum(grad, axes, True), tuple(shape))


def stable_sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in ``x``'s dtype as ``num / (1 + e)``, ``e = exp(-|x|)`` (no overflow),
    ``num = max(e, x >= 0)``: 1 or ``e``, several times faster than np.where on a mask."""
    e = np.exp(-np.abs(x))
    num = np.maximum(e, x >= 0)  # nan stays nan
    return (num / (1 + e)).astype(x.dtype, copy=False)


class _Binary(Primitive, abstract=True):
    """Broadcasting binary op; ``fn`` is the NumPy ufunc."""

    fn: Any = None

    def infer(self, x: Any, y: Any) -> Spec:
        return Spec(broadcast_shape(x.shape, y.shape), result_dtype(x.dtype, y.dtype))

    def kernel(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = type(self).fn(x, y)
        if x.dtype != y.dtype:  # mixed operands: MindSpore's promotion, not NumPy's
            out = out.astype(result_dtype(x.dtype, y.dtype), copy=False)
        return out


class Add(_Binary):
    fn = np.add

    def bprop(self, x, y, *, out, dout, needs):
        return sum_to(dout, x.shape), sum_to(dout, y.shape)


class Sub(_Binary):
    fn = np.subtract

    def bprop(self, x, y, *, out, dout, needs):
        return sum_to(dout, x.shape), sum_to(neg(dout), y.shape) if needs[1] else None


class Mul(_Binary):
    fn = np.multiply

    def infer(self, x: Any, y: Any) -> Spec:
        mstype.check_complex_pair(x.dtype, y.dtype)
        return super().infer(x, y)

    @holomorphic
    def bprop(self, x, y, *, out, dout, needs):
        dx = sum_to(mul(dout, y), x.shape) if needs[0] else None
        dy = sum_to(mul(dout, x), y.shape) if needs[1] else None
        return dx, dy


class Div(_Binary):
    """True division (MindSpore's ``Div``/``RealDiv``); integer inputs give float32."""

    fn = np.true_divide

    def infer(self, x: Any, y: Any) -> Spec:
        mstype.check_complex_pair(x.dtype, y.dtype)
        dtype = result_dtype(x.dtype, y.dtype)
        out = dtype if mstype.is_float(dtype) or dtype.kind == "c" else np.dtype(np.float32)
        return Spec(broadcast_shape(x.shape, y.shape), out)

    def kernel(self, x, y):
        out = np.true_divide(x, y)
        if x.dtype == y.dtype and (mstype.is_float(x.dtype) or x.dtype.kind == "c"):
            return out
        return out.astype(self.infer(x, y).dtype, copy=False)

    @holomorphic
    def bprop(self, x, y, *, out, dout, needs):
        dx = div(dout, y)
        dy = sum_to(neg(mul(dx, out)), y.shape) if needs[1] else None
        return sum_to(dx, x.shape), dy


RealDiv = Div


class Pow(_Binary):
    fn = ms_power  # integers' negative exponents as MindSpore's

    def bprop(self, x, y, *, out, dout, needs):
        dx = sum_to(mul(dout, mul(y, pow(x, sub(y, 1)))), x.shape) if needs[0] else None
        if needs[1]:  # log of an integer base: in float32 (the gradient is cast back)
            base = x if x.dtype.is_floating else cast(x, mstype.float32)
            dy = sum_to(mul(dout, mul(out, log(base))), y.shape)
        else:
            dy = None
        return dx, dy


def _min_max_grads(x: Any, y: Any, x_wins: Any, dout: Any, needs: tuple) -> tuple:
    """Maximum/Minimum's VJP as MindSpore's: the winner takes ``dout``; on a tie each side
    gets half (an integer ``dout`` halves toward zero: -3 gives -1 each)."""
    tie = equal(x, y)
    half = select(tie, mul(dout, 0.5), 0.0)
    dx = sum_to(select(x_wins, dout, half), x.shape) if needs[0] else None
    dy = sum_to(select(x_wins, 0.0, select(tie, half, dout)), y.shape) if needs[1] else None
    return dx, dy


class Maximum(_Binary):
    fn = np.maximum

    def bprop(self, x, y, *, out, dout, needs):
        return _min_max_grads(x, y, greater(x, y), dout, needs)


class Minimum(_Binary):
    fn = np.minimum

    def bprop(self, x, y, *, out, dout, needs):
        return _min_max_grads(x, y, less(x, y), dout, needs)


class _Floor(_Binary, abstract=True):
    """Floor division family (rounds toward -inf; floats as MindSpore: ``floor_float``)."""

    def infer(self, x: Any, y: Any) -> Spec:
        if np.dtype(x.dtype) == np.bool_ and np.dtype(y.dtype) == np.bool_:
            raise TypeError(f"needs numeric inputs, got {x.dtype} and {y.dtype}")
        return super().infer(x, y)


class FloorDiv(_Floor):
    """``x // y``: piecewise constant, so its gradient is zero (integers too). An integer
    divided by zero gives MindSpore's CPU result: the dtype's largest value for x > 0, its
    smallest for x < 0, 0 for 0 (floats: ``floor_float``)."""

    fn = ms_floor_divide

    def bprop(self, x, y, *, out, dout, needs):
        return (_shape.zeros_like(x) if needs[0] else None), (_shape.zeros_like(y) if needs[1] else None)


class FloorMod(_Floor):
    """``x % y``, the sign of ``y``; its VJP (``dout``, ``-dout * (x // y)``) holds for integers too."""

    fn = ms_floor_mod

    def bprop(self, x, y, *, out, dout, needs):
        dx = sum_to(dout, x.shape) if needs[0] else None
        dy = sum_to(neg(mul(dout, floor_div(x, y))), y.shape) if needs[1] else None
        return dx, dy


class _Compare(_Binary, abstract=True):
    differentiable = False

    def infer(self, x: Any, y: Any) -> Spec:
        mstype.check_complex_pair(x.dtype, y.dtype, ordered=type(self).fn not in (np.equal, np.not_equal))
        return Spec(broadcast_shape(x.shape, y.shape), np.dtype(np.bool_))

    def kernel(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return type(self).fn(x, y)  # bool, whatever the operands' dtypes


class Equal(_Compare):
    fn = np.equal


class NotEqual(_Compare):
    fn = np.not_equal


class Less(_Compare):
    fn = np.less


class LessEqual(_Compare):
    fn = np.less_equal


class Greater(_Compare):
    fn = np.greater


class GreaterEqual(_Compare):
    fn = np.greater_equal


class Select(Primitive):
    """``select(cond, x, y)``: x where cond is True, else y (broadcasting)."""

    def infer(self, cond: Any, x: Any, y: Any) -> Spec:
        if cond.dtype != np.bool_:
            raise TypeError(f"condition must be bool, got {cond.dtype}")
        return Spec(broadcast_shape(cond.shape, x.shape, y.shape), result_dtype(x.dtype, y.dtype))

    def kernel(self, cond, x, y):
        out = np.where(cond, x, y)
        return out if x.dtype == y.dtype else out.astype(result_dtype(x.dtype, y.dtype), copy=False)

    def bprop(self, cond, x, y, *, out, dout, needs):
        dx = sum_to(select(cond, dout, 0.0), x.shape) if needs[1] else None
        dy = sum_to(select(cond, 0.0, dout), y.shape) if needs[2] else None
        return None, dx, dy


class Cast(Primitive):
    def __init__(self, dtype: Any = None) -> None:
        super().__init__(dtype=None if dtype is None else mstype.to_np(dtype))

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), self.dtype)

    def kernel(self, x):
        x = x.real if x.dtype.kind == "c" and self.dtype.kind != "c" else x  # as MindSpore
        if mstype.is_low_float(self.dtype):  # a float32 value beyond float16's range is inf
            with np.errstate(over="ignore"):
                return x.astype(self.dtype, copy=False)
        return x.astype(self.dtype, copy=False)

    def __call__(self, x: Any, dtype: Any = None) -> Any:
        """MindSpore form ``ops.Cast()(x, ms.float16)``."""
        if dtype is not None:
            return Primitive.__call__(Cast(dtype), x)
        return Primitive.__call__(self, x)

    def bprop(self, x, *, out, dout, needs):
        # MindSpore's rule, to and from integers and bools too: the cotangent cast back
        # (float -> int -> float passes ``trunc(dout)``; nothing makes it zero)
        return (dout if dout.dtype == x.dtype else cast(dout, x.dtype),)


class _Unary(Primitive, abstract=True):
    """Float unary op: ``fn`` is the NumPy kernel, ``grad(x, out, dout)`` the VJP."""

    def infer(self, x: Any) -> Spec:
        if np.dtype(x.dtype).kind == "c" and getattr(self, "complex_ok", False):  # Exp, Log, Sqrt
            return Spec(tuple(x.shape), x.dtype)
        return Spec(tuple(x.shape), float_dtype(x.dtype))


class Neg(Primitive):
    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.negative(x)

    def bprop(self, x, *, out, dout, needs):
        return (neg(dout),)


class Abs(Primitive):
    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        out = np.abs(x)
        return out.astype(x.dtype) if x.dtype.kind == "c" else out  # |z| + 0j, as MindSpore

    def bprop(self, x, *, out, dout, needs):  # dout * sign(x): zero at 0, as MindSpore's
        if x.dtype.is_complex:  # dout * z / |z|
            return (_complex_ops.complex_abs_grad(x, out, dout),)
        return (select(greater(x, 0), dout, select(less(x, 0), neg(dout), 0)),)


class Exp(_Unary):
    def kernel(self, x):
        return rounded_once(np.exp, x)

    @holomorphic
    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, out),)


class Log(_Unary):
    def kernel(self, x):
        return np.log(x)  # float16: NumPy's loop rounds log's float32 value once, as graph mode

    @holomorphic
    def bprop(self, x, *, out, dout, needs):
        return (div(dout, x),)


class Sqrt(_Unary):
    def kernel(self, x):
        return np.sqrt(x)

    @holomorphic
    def bprop(self, x, *, out, dout, needs):
        return (div(mul(dout, 0.5), out),)


Exp.complex_ok = Log.complex_ok = Sqrt.complex_ok = True


class ReLU(_Unary):
    def infer(self, x: Any) -> Spec:  # integers too (MindSpore's), in their dtype
        if np.dtype(x.dtype) == np.bool_:
            raise TypeError("needs a numeric input, got bool")
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.maximum(x, 0)

    def bprop(self, x, *, out, dout, needs):
        return (select(greater(out, 0), dout, 0),)


class Sigmoid(_Unary):
    def kernel(self, x):
        if x.dtype == np.float16:
            return float16_sigmoid(x)
        return stable_sigmoid(x)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, mul(out, sub(1.0, out))),)


class Tanh(_Unary):
    def kernel(self, x):
        return np.tanh(x)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, sub(1.0, mul(out, out))),)


class Cos(_Unary):
    def kernel(self, x):
        return rounded_once(np.cos, x)

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, sin(x))),)


class Sin(_Unary):
    def kernel(self, x):
        return rounded_once(np.sin, x)

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, cos(x)),)


# -- functional forms -----------------------------------------------------------------
_ADD, _SUB, _MUL, _DIV, _POW = Add(), Sub(), Mul(), Div(), Pow()
_MAXIMUM, _MINIMUM, _SELECT, _NEG, _ABS = Maximum(), Minimum(), Select(), Neg(), Abs()
_EXP, _LOG, _SQRT, _RELU, _SIGMOID, _TANH = Exp(), Log(), Sqrt(), ReLU(), Sigmoid(), Tanh()
_EQ, _NE, _LT, _LE, _GT, _GE = Equal(), NotEqual(), Less(), LessEqual(), Greater(), GreaterEqual()
_FLOOR_DIV, _FLOOR_MOD = FloorDiv(), FloorMod()
_COS, _SIN = Cos(), Sin()


def cos(x):
    return _COS(x)


def sin(x):
    return _SIN(x)


def add(x, y):
    return _ADD(x, y)


def sub(x, y):
    return _SUB(x, y)


def mul(x, y):
    return _MUL(x, y)


def div(x, y):
    return _DIV(x, y)


def pow(x, y):  # noqa: A001  (MindSpore's name)
    return _POW(x, y)


def floor_div(x, y):
    return _FLOOR_DIV(x, y)


def floor_mod(x, y):
    return _FLOOR_MOD(x, y)


floordiv, floormod = floor_div, floor_mod


def maximum(x, y):
    return _MAXIMUM(x, y)


def minimum(x, y):
    return _MINIMUM(x, y)


def neg(x):
    return _NEG(x)


def abs(x):  # noqa: A001
    return _ABS(x)


def exp(x):
    return _EXP(x)


def log(x):
    return _LOG(x)


def sqrt(x):
    return _SQRT(x)


def square(x):
    return _MUL(x, x)


def relu(x):
    return _RELU(x)


def sigmoid(x):
    return _SIGMOID(x)


def tanh(x):
    return _TANH(x)


def equal(x, y):
    return _EQ(x, y)


def not_equal(x, y):
    return _NE(x, y)


def less(x, y):
    return _LT(x, y)


def less_equal(x, y):
    return _LE(x, y)


def greater(x, y):
    return _GT(x, y)


def greater_equal(x, y):
    return _GE(x, y)


def select(cond, x, y):
    return _SELECT(cond, x, y)


def cast(x, dtype):
    return Cast(dtype)(x)
