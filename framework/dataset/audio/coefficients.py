"""Biquad filter coefficients, ``(b0, b1, b2, a0, a1, a2)`` in float64, from the published
formulas: Robert Bristow-Johnson's "Audio EQ Cookbook" (low/high pass, band pass, notch,
all pass, peaking equalizer, low/high shelf) and SoX's effects (``band``, ``deemph``,
``riaa``), as ``mindspore.dataset.audio``'s biquads use them.

Common terms: ``w0 = 2 pi f0 / sample_rate``, ``alpha = sin(w0) / (2 Q)``, and for the gain
filters ``A = 10 ** (gain / 40)`` (written ``exp(gain / 40 * ln 10)``, as MindSpore computes
it: the last bit can differ from ``10 ** x``). The transfer function is
``H(z) = (b0 + b1 z^-1 + b2 z^-2) / (a0 + a1 z^-1 + a2 z^-2)``.

Precision, as MindSpore 2.10 computes each (found by matching its outputs bit for bit):
float64 from the float32-held parameters, except ``bandpass``, ``treble`` and ``riaa``,
computed in float32 arithmetic (each operation rounded to float32; sines and cosines the
correctly rounded float32 values), ``band``, whose bandwidth ``freq / Q`` is rounded to
float32 first, and ``bass``, whose ``gain / 40`` is.
"""

from __future__ import annotations

import math

import numpy as np

Coefficients = tuple[float, float, float, float, float, float]

# SoX's RIAA playback zeros and poles (z-plane) per sample rate
_RIAA = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
         48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
         88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
         96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946))}
RIAA_RATES = tuple(_RIAA)
# SoX's CD de-emphasis shelf per sample rate: (centre frequency, slope, gain in dB)
_DEEMPH = {44100: (5283.0, 0.4845, -9.477), 48000: (5356.0, 0.479, -9.62)}


_F32 = np.float32


def _f32_sin(x: float) -> np.float32:
    return _F32(math.sin(float(x)))


def _f32_cos(x: float) -> np.float32:
    return _F32(math.cos(float(x)))


def _floats(*values: np.float32) -> Coefficients:
    return tuple(float(v) for v in values)  # type: ignore[return-value]


def _w0_alpha(sample_rate: int, freq: float, q: float) -> tuple[float, float]:
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / q


def _amplitude(gain: float, f32_ratio: bool = False) -> float:
    """``10 ** (gain / 40)``; ``f32_ratio``: ``gain / 40`` rounded to float32 (``bass``)."""
    ratio = float(_F32(gain) / _F32(40)) if f32_ratio else gain / 40
    return math.exp(ratio * math.log(10))


def lowpass(sample_rate: int, freq: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    c = math.cos(w0)
    return (1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha


def highpass(sample_rate: int, freq: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    c = math.cos(w0)
    return (1 + c) / 2, -1 - c, (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha


def bandpass(sample_rate: int, freq: float, q: float, const_skirt_gain: bool) -> Coefficients:
    """Constant skirt gain: peak gain ``Q``; else constant 0 dB peak gain (float32)."""
    w0 = _F32(2 * math.pi * freq / sample_rate)
    alpha = _f32_sin(w0) / _F32(2) / _F32(q)
    b0 = _f32_sin(w0) / _F32(2) if const_skirt_gain else alpha
    return _floats(b0, _F32(0), -b0, _F32(1) + alpha, _F32(-2) * _f32_cos(w0), _F32(1) - alpha)


def bandreject(sample_rate: int, freq: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    c = math.cos(w0)
    return 1.0, -2 * c, 1.0, 1 + alpha, -2 * c, 1 - alpha


def allpass(sample_rate: int, freq: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    c = math.cos(w0)
    return 1 - alpha, -2 * c, 1 + alpha, 1 + alpha, -2 * c, 1 - alpha


def equalizer(sample_rate: int, freq: float, gain: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    a, c = _amplitude(gain), math.cos(w0)
    return 1 + alpha * a, -2 * c, 1 - alpha * a, 1 + alpha / a, -2 * c, 1 - alpha / a


def _shelf(a: float, w0: float, alpha: float, high: bool) -> Coefficients:
    """Low shelf (``high`` False) or high shelf: the cookbook's, ``s = -1`` for the low one."""
    s, c, root = (1 if high else -1), math.cos(w0), 2 * math.sqrt(a) * alpha
    return (a * ((a + 1) + s * (a - 1) * c + root), -2 * s * a * ((a - 1) + s * (a + 1) * c),
            a * ((a + 1) + s * (a - 1) * c - root), (a + 1) - s * (a - 1) * c + root,
            2 * s * ((a - 1) - s * (a + 1) * c), (a + 1) - s * (a - 1) * c - root)


def bass(sample_rate: int, gain: float, freq: float, q: float) -> Coefficients:
    w0, alpha = _w0_alpha(sample_rate, freq, q)
    return _shelf(_amplitude(gain, f32_ratio=True), w0, alpha, high=False)


def treble(sample_rate: int, gain: float, freq: float, q: float) -> Coefficients:
    """High shelf (the cookbook's), in float32."""
    w0 = _F32(2 * math.pi * freq / sample_rate)
    alpha = _f32_sin(w0) / _F32(2) / _F32(q)
    a, one, two = _F32(_amplitude(gain)), _F32(1), _F32(2)
    root, cos = two * np.sqrt(a) * alpha, _f32_cos(w0)
    t2, t3 = (a - one) * cos, (a + one) * cos
    return _floats(a * ((a + one) + t2 + root), -two * a * ((a - one) + t3),
                   a * ((a + one) + t2 - root), (a + one) - t2 + root, two * ((a - one) - t3),
                   (a + one) - t2 - root)


def band(sample_rate: int, freq: float, q: float, noise: bool) -> Coefficients:
    """SoX's ``band``: a resonator of bandwidth ``freq / Q`` Hz (``noise``: unpitched audio's
    gain normalization instead of the tone's)."""
    a2 = math.exp(-2 * math.pi * float(_F32(freq / q)) / sample_rate)
    a1 = -4 * a2 / (1 + a2) * math.cos(2 * math.pi * freq / sample_rate)
    b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
    if noise:
        b0 *= math.sqrt(((1 + a2) * (1 + a2) - a1 * a1) * (1 - a2) / (1 + a2)) / b0
    return b0, 0.0, 0.0, 1.0, a1, a2


def deemph(sample_rate: int) -> Coefficients:
    """SoX's ``deemph``: a high shelf of given slope (CD de-emphasis, 50/15 us)."""
    freq, slope, gain = _DEEMPH[sample_rate]
    w0 = 2 * math.pi * freq / sample_rate
    a = _amplitude(gain)
    alpha = math.sin(w0) / 2 * math.sqrt((a + 1 / a) * (1 / slope - 1) + 2)
    return _shelf(a, w0, alpha, high=True)


def riaa(sample_rate: int) -> Coefficients:
    """SoX's ``riaa``: the RIAA playback curve's zeros and poles, gain 1 (0 dB) at 1 kHz
    (float32)."""
    (z0, z1), (p0, p1) = ((_F32(u), _F32(v)) for u, v in _RIAA[sample_rate])
    one = _F32(1)
    b = (one, -(z0 + z1), z0 * z1)
    a = (one, -(p0 + p1), p0 * p1)
    y = _F32(2 * math.pi * 1000 / sample_rate)  # |H| at 1 kHz, H = B(e^-iy) / A(e^-iy)
    cos1, cos2, sin1, sin2 = _f32_cos(-y), _f32_cos(_F32(-2) * y), _f32_sin(-y), _f32_sin(_F32(-2) * y)
    b_re, a_re = b[0] + b[1] * cos1 + b[2] * cos2, a[0] + a[1] * cos1 + a[2] * cos2
    b_im, a_im = b[1] * sin1 + b[2] * sin2, a[1] * sin1 + a[2] * sin2
    g = one / np.sqrt((b_re * b_re + b_im * b_im) / (a_re * a_re + a_im * a_im))
    return _floats(b[0] * g, b[1] * g, b[2] * g, *a)
