"""The Bessel functions of integer order MindSpore has: ``bessel_i0``/``i0``, ``bessel_i0e``,
``bessel_i1``, ``bessel_i1e``, ``bessel_j0``, ``bessel_j1``, ``bessel_k0``, ``bessel_k0e``,
``bessel_k1``, ``bessel_k1e``, ``bessel_y0``, ``bessel_y1``.

Contracts: as :mod:`.special_math`'s unary functions (SciPy's Cephes kernels in float64,
rounded to the float input's dtype; non-float inputs refused). Left of the domain MindSpore's
CPU kernels give ``inf`` for ``K0/K1`` (and the scaled forms) and ``-inf`` for ``Y0/Y1``
(``x < 0``); ours too. Gradients are the recurrences (``I0' = I1``, ``J0' = -J1``,
``J1' = J0 - J1/x``, ``K1' = -K0 - K1/x`` ..., the scaled forms through ``e^-|x|``/``e^x``).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .elementwise import add, div, mul, neg, sub
from .math_unary import sign
from .special_math import _Special


class BesselI0(_Special):
    fn = special.i0

    def bprop(self, x, *, out, dout, needs):
        return (mul(dout, bessel_i1(x)),)


class BesselI0e(_Special):
    fn = special.i0e

    def bprop(self, x, *, out, dout, needs):  # e^-|x| (I1 - sign(x) I0)
        return (mul(dout, sub(bessel_i1e(x), mul(sign(x), out))),)


class BesselI1(_Special):
    fn = special.i1

    def bprop(self, x, *, out, dout, needs):  # I0 - I1 / x
        return (mul(dout, sub(bessel_i0(x), div(out, x))),)


class BesselI1e(_Special):
    fn = special.i1e

    def bprop(self, x, *, out, dout, needs):  # i0e - i1e (sign(x) + 1/x)
        return (mul(dout, sub(bessel_i0e(x), mul(out, add(sign(x), div(1.0, x))))),)


class BesselJ0(_Special):
    fn = special.j0

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, bessel_j1(x))),)


class BesselJ1(_Special):
    fn = special.j1

    def bprop(self, x, *, out, dout, needs):  # J0 - J1 / x
        return (mul(dout, sub(bessel_j0(x), div(out, x))),)


class _BesselK(_Special, abstract=True):
    def fix(self, x, y):  # MindSpore's kernels: +inf left of the domain
        return np.where(x < 0, np.inf, y)


class BesselK0(_BesselK):
    fn = special.k0

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, bessel_k1(x))),)


class BesselK0e(_BesselK):
    fn = special.k0e

    def bprop(self, x, *, out, dout, needs):  # k0e - k1e
        return (mul(dout, sub(out, bessel_k1e(x))),)


class BesselK1(_BesselK):
    fn = special.k1

    def bprop(self, x, *, out, dout, needs):  # -K0 - K1 / x
        return (neg(mul(dout, add(bessel_k0(x), div(out, x)))),)


class BesselK1e(_BesselK):
    fn = special.k1e

    def bprop(self, x, *, out, dout, needs):  # k1e (1 - 1/x) - k0e
        return (mul(dout, sub(mul(out, sub(1.0, div(1.0, x))), bessel_k0e(x))),)


class _BesselY(_Special, abstract=True):
    def fix(self, x, y):  # MindSpore's kernels: -inf left of the domain
        return np.where(x < 0, -np.inf, y)


class BesselY0(_BesselY):
    fn = special.y0

    def bprop(self, x, *, out, dout, needs):
        return (neg(mul(dout, bessel_y1(x))),)


class BesselY1(_BesselY):
    fn = special.y1

    def bprop(self, x, *, out, dout, needs):  # Y0 - Y1 / x
        return (mul(dout, sub(bessel_y0(x), div(out, x))),)


_I0, _I0E, _I1, _I1E = BesselI0(), BesselI0e(), BesselI1(), BesselI1e()
_J0, _J1, _Y0, _Y1 = BesselJ0(), BesselJ1(), BesselY0(), BesselY1()
_K0, _K0E, _K1, _K1E = BesselK0(), BesselK0e(), BesselK1(), BesselK1e()


def i0(input):  # noqa: A002  (MindSpore's parameter name)
    return _I0(input)


def bessel_i0(x):
    return _I0(x)


def bessel_i0e(x):
    return _I0E(x)


def bessel_i1(x):
    return _I1(x)


def bessel_i1e(x):
    return _I1E(x)


def bessel_j0(x):
    return _J0(x)


def bessel_j1(x):
    return _J1(x)


def bessel_k0(x):
    return _K0(x)


def bessel_k0e(x):
    return _K0E(x)


def bessel_k1(x):
    return _K1(x)


def bessel_k1e(x):
    return _K1E(x)


def bessel_y0(x):
    return _Y0(x)


def bessel_y1(x):
    return _Y1(x)
