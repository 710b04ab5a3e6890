"""Discrete Fourier transforms (``fft`` ... ``ihfftn``), their sample frequencies
(``fftfreq``, ``rfftfreq``) and ``fftshift``/``ifftshift``.

Contracts (MindSpore 2.10, which follows ``numpy.fft``):

- Six transforms, each in 1-d (``n``, ``dim``), 2-d (``s``, ``dim=(-2, -1)``) and n-d
  (``s``, ``dim=None``: every axis, or the last ``len(s)``) forms: ``fft``/``ifft``
  (complex to complex), ``rfft``/``ihfft`` (the non-negative half of the spectrum: the last
  transformed axis has ``s//2 + 1`` entries; a complex input is transformed whole, then
  halved), ``irfft``/``hfft`` (a half spectrum to a real signal: the last axis has
  ``2 (m - 1)`` points unless given). ``n``/``s`` pad with zeros or truncate the input.
  ``norm``: ``"backward"`` (default, ``None``), ``"forward"`` or ``"ortho"``.
- Dtypes: float64/complex128 inputs give complex128 (real transforms: float64); every other
  input (float16, float32, integers, complex64) complex64 (float32).
- Gradients are the adjoint of each (linear) transform in MindSpore's conjugate convention
  (``dL/dre + i dL/dim``), the real part for a real input: for ``fft`` with norm ``m`` that is
  ``ifft`` with the dual norm (backward <-> forward), the half-spectrum transforms zero-fill
  the missing half, ``irfft``/``hfft`` weight the bins that stand for two (all but DC and
  Nyquist) twice. ``ihfft``'s is the true adjoint where MindSpore 2.10's has the sign of
  the imaginary part reversed.
- Graph mode has no complex types: functions calling the transforms run interpreted
  (:mod:`framework.frontend.fallback`), so these primitives stay out of the registry of
  compiled ones (``abstract=True``, as :mod:`.complex_ops`). ``fftshift``/``ifftshift``
  are rolls (compiled); ``fftfreq``/``rfftfreq`` constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ..primitive import Primitive, Spec
from ._utils import argument_error
from .array_layout import roll

KINDS = ("fft", "ifft", "rfft", "ihfft", "irfft", "hfft")
NORMS = ("backward", "forward", "ortho")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _wide(dtype: Any) -> bool:
    return np.dtype(dtype) in (np.float64, np.complex128)


def _complex_dtype(dtype: Any) -> np.dtype:
    return np.dtype(np.complex128 if _wide(dtype) else np.complex64)


def _real_dtype(dtype: Any) -> np.dtype:
    return np.dtype(np.float64 if _wide(dtype) else np.float32)


def _fit(a: np.ndarray, axes: tuple[int, ...], sizes: tuple[int, ...]) -> np.ndarray:
    """``a`` zero-padded or truncated to ``sizes`` along ``axes``."""
    for axis, size in zip(axes, sizes):
        have = a.shape[axis]
        if have > size:
            a = np.take(a, np.arange(size), axis=axis)
        elif have < size:
            pad = [(0, 0)] * a.ndim
            pad[axis] = (0, size - have)
            a = np.pad(a, pad)
    return a


class Spectral(Primitive, abstract=True):
    """``Spectral(kind, s, axes, norm)(x)``: ``s`` and ``axes`` resolved (non-negative axes,
    one size per axis: the transform's length, the output's for ``irfft``/``hfft``)."""

    def __init__(self, kind: str, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> None:
        super().__init__(kind=kind, s=tuple(s), axes=tuple(axes), norm=norm)

    def infer(self, x: Any) -> Spec:
        dtype = np.dtype(x.dtype)
        if dtype.kind not in "biufc" and not mstype.is_float(dtype):
            raise TypeError(f"{self.kind}: needs a numeric input, got {dtype}")
        shape = list(x.shape)
        for axis, size in zip(self.axes, self.s):
            shape[axis] = size
        if self.kind in ("rfft", "ihfft"):
            shape[self.axes[-1]] = self.s[-1] // 2 + 1
        real_out = self.kind in ("irfft", "hfft")
        return Spec(tuple(shape), _real_dtype(dtype) if real_out else _complex_dtype(dtype))

    def kernel(self, x):
        out = self.infer(x).dtype
        a = x.astype(np.complex128)
        kind, s, axes, norm = self.kind, self.s, self.axes, self.norm
        if kind in ("fft", "rfft"):
            y = np.fft.fftn(a, s, axes, norm)
        elif kind in ("ifft", "ihfft"):
            y = np.fft.ifftn(a, s, axes, norm)
        elif kind == "irfft":
            y = np.fft.irfftn(a, s, axes, norm)
        else:  # hfft: irfft of the conjugate, with the dual scaling
            y = np.fft.irfftn(np.conj(a), s, axes, _DUAL[norm])
        if kind in ("rfft", "ihfft"):
            y = np.take(y, np.arange(s[-1] // 2 + 1), axis=axes[-1])
        return np.ascontiguousarray(y).astype(out)

    def bprop(self, x, *, out, dout, needs):
        return (SpectralGrad(self.kind, self.s, self.axes, self.norm, tuple(x.shape),
                             mstype.to_np(x.dtype).str)(dout),)


class SpectralGrad(Primitive, abstract=True):
    """The adjoint of ``Spectral(kind, s, axes, norm)`` at an input of ``shape`` and ``dtype``
    (the module docstring's rules)."""

    differentiable = False

    def __init__(self, kind: str, s: tuple[int, ...], axes: tuple[int, ...], norm: str,
                 shape: tuple[int, ...], dtype: str) -> None:
        super().__init__(kind=kind, s=s, axes=axes, norm=norm, shape=shape, dtype=dtype)

    def infer(self, g: Any) -> Spec:
        return Spec(self.shape, np.dtype(self.dtype))

    def kernel(self, g):
        kind, s, axes, dual = self.kind, self.s, self.axes, _DUAL[self.norm]
        g = g.astype(np.complex128)
        if kind in ("rfft", "ihfft"):  # the dropped half of the spectrum had no cotangent
            g = _fit(g, axes[-1:], s[-1:])
        if kind in ("fft", "rfft"):
            grad = np.fft.ifftn(g, s, axes, dual)
        elif kind in ("ifft", "ihfft"):
            grad = np.fft.fftn(g, s, axes, dual)
        else:
            # irfft (hfft: of the conjugate, dual scaling): the spectrum's forward transform
            # with the opposite scaling, halved; the bins standing for two count twice
            scale = dual if kind == "irfft" else self.norm
            full = np.fft.fftn(g.real, s, axes, scale)
            half = s[-1] // 2 + 1
            grad = np.take(full, np.arange(half), axis=axes[-1])
            weight = np.full(half, 2.0)
            weight[0] = 1.0
            if s[-1] % 2 == 0:
                weight[-1] = 1.0
            shape = [1] * grad.ndim
            shape[axes[-1]] = half
            grad = grad * weight.reshape(shape)
            if kind == "hfft":
                grad = np.conj(grad)
            sizes = tuple(self.shape[a] for a in axes)
            return self._cast(_fit(grad, axes, sizes))
        return self._cast(_fit(grad, axes, tuple(self.shape[a] for a in axes)))

    def _cast(self, grad: np.ndarray) -> np.ndarray:
        dtype = np.dtype(self.dtype)
        return np.ascontiguousarray(grad if dtype.kind == "c" else grad.real).astype(dtype)


# -- argument resolution and the functional forms ----------------------------------------
def _norm(op: str, norm: Any) -> str:
    norm = "backward" if norm is None else norm
    if norm not in NORMS:
        raise argument_error(op, ValueError(f"norm must be one of {NORMS} or None, got {norm!r}"))
    return norm


def _axes(op: str, dims: Any, ndim: int) -> tuple[int, ...]:
    out = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or not -ndim <= d < ndim:
            raise argument_error(op, ValueError(f"dim {d!r} is out of range for a {ndim}-d input"))
        out.append(d % ndim)
    if len(set(out)) != len(out):
        raise argument_error(op, ValueError(f"dims must be distinct, got {tuple(dims)}"))
    return tuple(out)


def _transform(op: str, kind: str, x: Any, s: Any, dim: Any, norm: Any) -> Any:
    shape = tuple(x.shape)
    ndim = len(shape)
    if ndim == 0:
        raise argument_error(op, ValueError("needs an input of at least one dimension"))
    if s is not None:
        s = (s,) if isinstance(s, int) else tuple(s)
    if dim is None:
        dims = tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim))
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
    axes = _axes(op, dims, ndim)
    if s is None:
        s = tuple(shape[a] for a in axes)
        if kind in ("irfft", "hfft"):
            s = s[:-1] + (2 * (shape[axes[-1]] - 1),)
    if len(s) != len(axes):
        raise argument_error(op, ValueError(f"s {s} and dim {dims} differ in length"))
    if any(not isinstance(n, int) or n < 1 for n in s):
        raise argument_error(op, ValueError(f"signal sizes must be positive ints, got {s}"))
    return Spectral(kind, s, axes, _norm(op, norm))(x)


def fft(input, n=None, dim=-1, norm=None):  # noqa: A002  (MindSpore's parameter names)
    return _transform("fft", "fft", input, n, dim, norm)


def ifft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _transform("ifft", "ifft", input, n, dim, norm)


def rfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _transform("rfft", "rfft", input, n, dim, norm)


def irfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _transform("irfft", "irfft", input, n, dim, norm)


def hfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _transform("hfft", "hfft", input, n, dim, norm)


def ihfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _transform("ihfft", "ihfft", input, n, dim, norm)


def fft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("fft2", "fft", input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("ifft2", "ifft", input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("rfft2", "rfft", input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("irfft2", "irfft", input, s, dim, norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("hfft2", "hfft", input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _transform("ihfft2", "ihfft", input, s, dim, norm)


def fftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("fftn", "fft", input, s, dim, norm)


def ifftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("ifftn", "ifft", input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("rfftn", "rfft", input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("irfftn", "irfft", input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("hfftn", "hfft", input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _transform("ihfftn", "ihfft", input, s, dim, norm)


def _freq(op: str, fn: Any, n: Any, d: Any, dtype: Any) -> Any:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise argument_error(op, ValueError(f"n must be a positive int, got {n!r}"))
    np_dtype = mstype.to_np(mstype.float32 if dtype is None else dtype)
    return Tensor(fn(n, float(d)).astype(np_dtype))


def fftfreq(n, d=1.0, dtype=None):
    return _freq("fftfreq", np.fft.fftfreq, n, d, dtype)


def rfftfreq(n, d=1.0, dtype=None):
    return _freq("rfftfreq", np.fft.rfftfreq, n, d, dtype)


def _shift(op: str, x: Any, dim: Any, sign: int) -> Any:
    ndim = len(x.shape)
    dims = tuple(range(ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    axes = _axes(op, dims, ndim) if ndim else ()
    if not axes:
        return x
    shifts = tuple(sign * (x.shape[a] // 2) if sign > 0 else -(x.shape[a] // 2) for a in axes)
    return roll(x, shifts, axes)


def fftshift(input, dim=None):  # noqa: A002
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):  # noqa: A002
    return _shift("ifftshift", input, dim, -1)
