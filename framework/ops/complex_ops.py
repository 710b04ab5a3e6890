"""Complex-number primitives as MindSpore 2.10 has them on CPU: ``Complex``, ``Real``,
``Imag``, ``Conj``, ``Angle``, ``ComplexAbs``, ``Polar`` and their functional forms
(``ops.real`` ...), plus ``is_complex``/``isreal`` and the Tensor methods ``real()``,
``imag()``, ``conj()``, ``angle()``, ``is_complex()``, ``isreal()`` (methods, as in
MindSpore 2.10, not properties).

Contracts (each read off MindSpore 2.10):

- ``Complex(real, imag)`` and ``Polar(abs, angle)``: both float32 (complex64) or both
  float64 (complex128), of one shape (no broadcasting); other dtypes are a TypeError.
- ``Real``/``Imag``/``Angle``/``ComplexAbs`` of complex64 give float32, of complex128
  float64. ``Real`` and ``Conj`` of a real tensor return it (its dtype), ``Imag`` of one
  zeros of its dtype; ``Angle`` and ``ComplexAbs`` need a complex input (TypeError).
- ``ops.abs`` of a complex tensor keeps the complex dtype (``|z| + 0j``), as MindSpore's
  ``Abs`` does; ``ComplexAbs`` gives the real magnitude.

Gradients follow MindSpore's conjugate convention: for a real loss of ``z = x + iy`` the
gradient is ``dL/dx + i dL/dy`` (``real(z)`` gives ``1``, ``imag(z)`` gives ``1j``,
``|z|`` gives ``z / |z|``, 0 at 0; ``angle(z)`` gives ``i z / |z|^2``, 0 at 0); the
holomorphic primitives' rules are in :mod:`._holomorphic`.

Graph mode has no complex types (the TVM lowering is real): a compiled function that
meets a complex tensor runs interpreted (:mod:`framework.frontend.fallback`), so these
primitives have no lowering and stay out of ``Primitive.registry`` (``abstract=True``, as
``PrintOp``); the registry's harnesses are for compiled primitives, and
tests/framework/test_complex.py checks these against NumPy and finite differences.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..primitive import Primitive, Spec, shape_str
from . import array_ops as _array_ops
from . import elementwise as ew  # a module: elementwise's bprops import this one back
from . import shape_ops as _shape

_TO_COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_TO_REAL = {c: f for f, c in _TO_COMPLEX.items()}


def _complex_of(a: Any, b: Any, names: tuple[str, str]) -> Spec:
    """The complex Spec built from two real parts (``Complex``/``Polar``'s shape rule)."""
    for name, value in zip(names, (a, b)):
        if np.dtype(value.dtype) not in _TO_COMPLEX:
            raise TypeError(f"{name} must be float32 or float64, got {value.dtype}")
    if np.dtype(a.dtype) != np.dtype(b.dtype):
        raise TypeError(f"{names[0]} and {names[1]} must have one dtype, got {a.dtype} and {b.dtype}")
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{names[0]} and {names[1]} must have one shape, got "
                         f"{shape_str(tuple(a.shape))} and {shape_str(tuple(b.shape))}")
    return Spec(tuple(a.shape), _TO_COMPLEX[np.dtype(a.dtype)])


def _real_of(x: Any) -> np.dtype:
    dtype = np.dtype(x.dtype)
    if dtype not in _TO_REAL:
        raise TypeError(f"needs a complex64 or complex128 input, got {x.dtype}")
    return _TO_REAL[dtype]


def _is_complex(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    dtype = getattr(dtype, "np", dtype)  # a Tensor's DType, an array's NumPy dtype
    return np.dtype(dtype if dtype is not None else np.asarray(x).dtype).kind == "c"


class _Part(Primitive, abstract=True):
    """Real/Imag/Conj: of a real tensor they need no primitive (``real_part``: the input
    itself, else zeros), so graph mode compiles them for real tensors."""

    real_part: bool = True

    def __call__(self, x: Any) -> Any:
        if _is_complex(x):
            return Primitive.__call__(self, x)
        return x if self.real_part else _shape.zeros_like(x)


def _zero_safe(denominator: Any) -> Any:
    """``denominator`` with its zeros made 1 (the numerators are 0 there: 0, not nan)."""
    return ew.select(ew.equal(denominator, 0), 1.0, denominator)


class Complex(Primitive, abstract=True):
    """``Complex()(real, imag)``: ``real + 1j * imag`` (module docstring)."""

    def infer(self, real: Any, imag: Any) -> Spec:
        return _complex_of(real, imag, ("real", "imag"))

    def kernel(self, real, imag):
        out = np.empty(real.shape, _TO_COMPLEX[real.dtype])
        out.real, out.imag = real, imag  # not real + 1j * imag: inf * 1j would be nan
        return out

    def bprop(self, x, y, *, out, dout, needs):
        return real(dout), imag(dout)


class Real(_Part, abstract=True):
    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), _TO_REAL.get(np.dtype(x.dtype), x.dtype))

    def kernel(self, x):
        return x.real.copy() if mstype.is_complex(x.dtype) else x

    def bprop(self, x, *, out, dout, needs):  # dout + 0j
        return (ew.cast(dout, x.dtype),)


class Imag(_Part, abstract=True):
    real_part = False

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), _TO_REAL.get(np.dtype(x.dtype), x.dtype))

    def kernel(self, x):
        return x.imag.copy() if mstype.is_complex(x.dtype) else np.zeros_like(x)

    def bprop(self, x, *, out, dout, needs):  # dout * 1j
        return (Complex()(_shape.zeros_like(dout), dout),)


class Conj(_Part, abstract=True):
    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), x.dtype)

    def kernel(self, x):
        return np.conj(x) if mstype.is_complex(x.dtype) else x

    def bprop(self, x, *, out, dout, needs):
        return (conj(dout),)


class Angle(Primitive, abstract=True):
    """The argument ``atan2(imag, real)`` of a complex tensor, as a real tensor."""

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), _real_of(x))

    def kernel(self, x):
        # in complex128 (rounded once, as MindSpore's): complex64's float32 atan2 is 1 ulp off
        return np.angle(x.astype(np.complex128)).astype(_TO_REAL[x.dtype], copy=False)

    def bprop(self, x, *, out, dout, needs):  # dout * (-y + ix) / |z|^2
        re, im = real(x), imag(x)
        scale = ew.div(dout, _zero_safe(ew.add(ew.mul(re, re), ew.mul(im, im))))
        return (Complex()(ew.neg(ew.mul(im, scale)), ew.mul(re, scale)),)


def _magnitude_grad(x: Any, magnitude: Any, dout: Any) -> Any:
    """``dout * z / |z|`` (0 where ``z`` is 0): the gradient of ``|z|`` for a real ``dout``."""
    scale = ew.div(dout, _zero_safe(magnitude))
    return Complex()(ew.mul(real(x), scale), ew.mul(imag(x), scale))


class ComplexAbs(Primitive, abstract=True):
    """``|z|`` of a complex tensor, as a real tensor (``ops.abs`` keeps the complex dtype)."""

    def infer(self, x: Any) -> Spec:
        return Spec(tuple(x.shape), _real_of(x))

    def kernel(self, x):
        return np.abs(x)

    def bprop(self, x, *, out, dout, needs):
        return (_magnitude_grad(x, out, dout),)


def complex_abs_grad(x: Any, out: Any, dout: Any) -> Any:
    """The gradient of ``ops.abs`` of a complex tensor (its output is ``|z| + 0j``): only
    the real part of ``dout`` reaches ``|z|``."""
    return _magnitude_grad(x, real(out), real(dout))


class Polar(Primitive, abstract=True):
    """``Polar()(abs, angle)``: ``abs * (cos(angle) + 1j * sin(angle))``."""

    def infer(self, r: Any, theta: Any) -> Spec:
        return _complex_of(r, theta, ("abs", "angle"))

    def kernel(self, r, theta):
        out = np.empty(r.shape, _TO_COMPLEX[r.dtype])
        out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
        return out

    def bprop(self, r, theta, *, out, dout, needs):
        c, s, a, b = ew.cos(theta), ew.sin(theta), real(dout), imag(dout)
        dr = ew.add(ew.mul(a, c), ew.mul(b, s))  # Re(dout * conj(e^{i theta}))
        return dr, ew.mul(r, ew.sub(ew.mul(b, c), ew.mul(a, s)))  # r Im(dout conj(e^{i theta}))


_REAL, _IMAG, _CONJ, _ANGLE = Real(), Imag(), Conj(), Angle()


def real(input):  # noqa: A002  (MindSpore's parameter name)
    return _REAL(input)


def imag(input):  # noqa: A002
    return _IMAG(input)


def conj(input):  # noqa: A002
    return _CONJ(input)


def angle(input):  # noqa: A002
    return _ANGLE(input)


def view_as_real(input):  # noqa: A002
    """A complex tensor as reals: a last axis of 2 holding (real, imaginary)."""
    if not input.dtype.is_complex:
        raise TypeError(f"view_as_real: input must be complex, got {input.dtype}")
    return _array_ops.stack((real(input), imag(input)), -1)


def polar(abs, angle):  # noqa: A002
    return Polar()(abs, angle)


def is_complex(input):  # noqa: A002
    """Whether ``input`` is a complex tensor (a Python bool)."""
    return bool(input.dtype.is_complex)


def isreal(input):  # noqa: A002
    """Per element: True where the imaginary part is 0 (every element of a real tensor)."""
    if input.dtype.is_complex:
        return ew.equal(imag(input), 0)
    return _all_true(input)


def _all_true(x: Any) -> Any:
    return ew.cast(_shape.ones_like(x), mstype.bool_)


METHODS = {"real": real, "imag": imag, "conj": conj, "angle": angle, "is_complex": is_complex,
           "isreal": isreal}


__all__ = ["Angle", "Complex", "ComplexAbs", "Conj", "Imag", "Polar", "Real", "angle", "conj", "imag",
           "is_complex", "isreal", "polar", "real", "view_as_real"]
