"""``mindspore.dataset.audio``'s IIR filters: ``LFilter`` and the biquads, called eagerly on a
NumPy waveform (``audio.BassBiquad(sample_rate, 10.0)(waveform)``) or per row by ``map``.

Contracts, as MindSpore 2.10's CPU operations (checked value for value):

- input: a NumPy array of float16/float32/float64, shape ``(..., time)``; the filter runs
  along the last axis, each channel from a zero state; the output has the input's shape and
  dtype. Anything but an ndarray is a ``TypeError``; integer dtypes, 0-d and empty arrays
  a ``RuntimeError`` naming the operation.
- arithmetic: the float parameters (frequencies, ``Q``, gains) are held as float32; the
  coefficients are computed from them (:mod:`.coefficients`), cast to the input's dtype
  and divided by ``a0`` (``BassBiquad``: divided in float64, then cast); the difference equation
  ``y[n] = b0 x[n] + b1 x[n-1] + ... - a1 y[n-1] - a2 y[n-2] - ...`` runs in that dtype,
  summed in that order; the output is clamped to ``[-1, 1]`` (``LFilter(clamp=False)``:
  not clamped; the clamp never feeds back into the recursion).
- parameters: ``sample_rate`` a non-zero int (``DeemphBiquad``/``RiaaBiquad``: 44100 or
  48000), ``Q`` in ``(0, 1]``, frequencies and gains int or float; bad ones raise
  ``TypeError``/``ValueError`` at construction with MindSpore's messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_INT32 = (-2147483648, 2147483647)
_FLOAT_KINDS = (np.float16, np.float32, np.float64)


# -- argument checks (MindSpore's messages) -------------------------------------------------
def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'float'>, "
                        f"<class 'int'>], but got {type(value)}.")
    return float(np.float32(value))


def _sample_rate(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Argument sample_rate with value {value} is not of type [<class 'int'>], "
                        f"but got {type(value)}.")
    if value == 0 or not _INT32[0] <= value <= _INT32[1]:
        raise ValueError("Input sample_rate is not within the required interval of "
                         "[-2147483648, 0) and (0, 2147483647].")
    return value


def _q(value: Any) -> float:
    q = _number("Q", value)
    if not 0 < q <= 1:
        raise ValueError("Input Q is not within the required interval of (0, 1].")
    return q


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'bool'>], "
                        f"but got {type(value)}.")
    return value


def _fixed_rate(value: Any, rates: tuple[int, ...]) -> int:
    rate = _sample_rate(value)
    if rate not in rates:
        if len(rates) == 2:
            raise ValueError(f"Argument sample_rate should be {rates[0]} or {rates[1]}, but got {rate}.")
        raise ValueError(f"sample_rate should be one of {list(rates)}, but got {rate}.")
    return rate


# -- the filter -----------------------------------------------------------------------------
def _waveform(name: str, sample: Any) -> np.ndarray:
    if not isinstance(sample, np.ndarray):
        raise TypeError(f"Input should be NumPy audio, got {type(sample)}.")
    if sample.dtype.type not in _FLOAT_KINDS:
        raise RuntimeError(f"{name}: the data type of input tensor does not match the requirement "
                           f"of operator. Expecting tensor in type of [float16, float32, float64], "
                           f"but got: {sample.dtype}.")
    if sample.ndim == 0 or sample.size == 0:
        raise RuntimeError(f"{name}: the shape of input tensor does not match the requirement of "
                           f"operator. Expecting a non-empty tensor of shape <..., time>, but got "
                           f"shape {sample.shape}.")
    return sample


def _recurse(fir: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``y[n] = fir[n] - a[1] y[n-1] - a[2] y[n-2] - ...`` per row of ``fir`` (rows x time),
    in ``fir``'s dtype, subtracted in that order (the scalars keep the dtype's rounding)."""
    out = np.empty_like(fir)
    scalar = float if fir.dtype == np.float64 else fir.dtype.type
    feedback = [scalar(v) for v in a[1:]]
    for row, y in zip(fir, out, strict=True):
        past = [scalar(0)] * len(feedback)  # y[n-1], y[n-2], ...
        values = [scalar(v) for v in row] if scalar is float else list(row)
        for n, v in enumerate(values):
            for k, ak in enumerate(feedback):
                v = v - ak * past[k]
            past = [v, *past[:-1]]
            y[n] = v
    return out


def lfilter(waveform: np.ndarray, b: Any, a: Any, clamp: bool = True,
            normalize_first: bool = False) -> np.ndarray:
    """The difference equation of the module docstring along the last axis of ``waveform``;
    ``b`` and ``a`` are float64 coefficient lists of one length (``a[0]`` non-zero), cast
    to the waveform's dtype, then divided by ``a[0]`` (``normalize_first``: divided in
    float64, then cast; MindSpore's ``BassBiquad``)."""
    dtype = waveform.dtype
    b_t, a_t = np.asarray(b, np.float64), np.asarray(a, np.float64)
    if normalize_first:
        b_t, a_t = b_t / a_t[0], a_t / a_t[0]
    b_t, a_t = b_t.astype(dtype), a_t.astype(dtype)
    b_t, a_t = b_t / a_t[0], a_t / a_t[0]
    rows = waveform.reshape(-1, waveform.shape[-1])
    fir = b_t[0] * rows
    for k in range(1, len(b_t)):  # + b[k] x[n-k], zero before the first sample
        shifted = np.zeros_like(rows)
        shifted[:, k:] = rows[:, :max(rows.shape[1] - k, 0)]
        fir = fir + b_t[k] * shifted
    out = _recurse(fir.astype(dtype, copy=False), a_t).reshape(waveform.shape)
    return np.clip(out, -1, 1) if clamp else out


class AudioOp:
    """Base of the filters: ``coefficients()`` gives ``(b0, b1, b2, a0, a1, a2)``."""

    clamp = True
    normalize_first = False  # see lfilter

    def coefficients(self) -> tuple[float, ...]:
        raise NotImplementedError

    def __call__(self, sample: Any) -> np.ndarray:
        waveform = _waveform(type(self).__name__, sample)
        c = self.coefficients()
        half = len(c) // 2
        return lfilter(waveform, c[:half], c[half:], self.clamp, self.normalize_first)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class LFilter(AudioOp):
    """``LFilter(a_coeffs, b_coeffs, clamp=True)``: the IIR filter of the given coefficients
    (``a_coeffs[0]`` the output's, non-zero; both lists of one length)."""

    def __init__(self, a_coeffs: Any, b_coeffs: Any, clamp: bool = True) -> None:
        a_list = [_number("a_coeffs", v) for v in a_coeffs]
        b_list = [_number("b_coeffs", v) for v in b_coeffs]
        if len(a_list) != len(b_list):
            raise ValueError("The size of a_coeffs should be the same as that of b_coeffs.")
        if not a_list or a_list[0] == 0:
            raise ValueError("LFilter: a_coeffs[0] must be non-zero.")
        self.a_coeffs, self.b_coeffs, self.clamp = a_list, b_list, _flag("clamp", clamp)

    def coefficients(self) -> tuple[float, ...]:
        return (*self.b_coeffs, *self.a_coeffs)


class Biquad(AudioOp):
    """``Biquad(b0, b1, b2, a0, a1, a2)``: the biquad of the given coefficients."""

    _LIMIT = 16777216

    def __init__(self, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float) -> None:
        values = {"b0": b0, "b1": b1, "b2": b2, "a0": a0, "a1": a1, "a2": a2}
        for name, value in values.items():
            v = _number(name, value)
            if not -self._LIMIT <= v <= self._LIMIT or (name == "a0" and v == 0):
                interval = ("[-16777216, 0) and (0, 16777216]" if name == "a0"
                            else "[-16777216, 16777216]")
                raise ValueError(f"Input {name} is not within the required interval of {interval}.")
            setattr(self, name, v)

    def coefficients(self) -> tuple[float, ...]:
        return self.b0, self.b1, self.b2, self.a0, self.a1, self.a2
