"""``dataset.audio``'s filters checked without MindSpore, NumPy's filtering or scipy: the
coefficients against the gains their published formulas promise (frequency response from
the coefficients in plain Python complex arithmetic), the filtering against a plain-Python
difference equation and closed-form impulse responses, and the pipeline against eager calls.
(MindSpore's own outputs, bit for bit: tests/mindspore_ref/test_ms_audio.py.)"""

import cmath
import math

import numpy as np
import pytest

from framework import dataset as ds
from framework.dataset import audio

SR = 16000
NYQUIST = math.pi


def _coefficients(op):
    c = op.coefficients()
    return [v / c[3] for v in c]


def _gain(op, omega):
    b0, b1, b2, a0, a1, a2 = _coefficients(op)
    z = cmath.exp(-1j * omega)
    return (b0 + b1 * z + b2 * z * z) / (a0 + a1 * z + a2 * z * z)


def _db(op, hz, sr=SR):
    return 20 * math.log10(abs(_gain(op, 2 * math.pi * hz / sr)))


def _w(hz, sr=SR):
    return 2 * math.pi * hz / sr


# (filter, omega, expected |H|): the cookbook's promises (A = 10 ** (gain / 40))
A3, A_6 = 10 ** (3 / 40), 10 ** (-6 / 40)
PROMISES = [
    (audio.LowpassBiquad(SR, 1000.0), 0.0, 1.0), (audio.LowpassBiquad(SR, 1000.0), NYQUIST, 0.0),
    (audio.LowpassBiquad(SR, 1000.0, 0.5), _w(1000), 0.5),
    (audio.HighpassBiquad(SR, 1000.0), 0.0, 0.0), (audio.HighpassBiquad(SR, 1000.0), NYQUIST, 1.0),
    (audio.HighpassBiquad(SR, 2500.0, 0.9), _w(2500), 0.9),
    (audio.BandpassBiquad(SR, 1000.0), _w(1000), 1.0), (audio.BandpassBiquad(SR, 1000.0), 0.0, 0.0),
    (audio.BandpassBiquad(SR, 1000.0), NYQUIST, 0.0),
    (audio.BandpassBiquad(SR, 1000.0, 0.6, True), _w(1000), 0.6),
    (audio.BandrejectBiquad(SR, 1000.0), _w(1000), 0.0), (audio.BandrejectBiquad(SR, 1000.0), 0.0, 1.0),
    (audio.BandrejectBiquad(SR, 1000.0), NYQUIST, 1.0),
    (audio.AllpassBiquad(SR, 1000.0), 0.3, 1.0), (audio.AllpassBiquad(SR, 1000.0), 2.0, 1.0),
    (audio.EqualizerBiquad(SR, 1000.0, 3.0), _w(1000), A3 ** 2),
    (audio.EqualizerBiquad(SR, 1000.0, 3.0), 0.0, 1.0),
    (audio.EqualizerBiquad(SR, 1000.0, 3.0), NYQUIST, 1.0),
    (audio.BassBiquad(SR, 3.0), 0.0, A3 ** 2), (audio.BassBiquad(SR, 3.0), NYQUIST, 1.0),
    (audio.BassBiquad(SR, -6.0, 250.0), _w(250), A_6),
    (audio.TrebleBiquad(SR, 3.0), 0.0, 1.0), (audio.TrebleBiquad(SR, 3.0), NYQUIST, A3 ** 2),
    (audio.TrebleBiquad(SR, -6.0, 2000.0), _w(2000), A_6),
    (audio.BandBiquad(SR, 1000.0), _w(1000), 1.0),
    (audio.DeemphBiquad(44100), 0.0, 1.0), (audio.DeemphBiquad(44100), NYQUIST, 10 ** (-9.477 / 20)),
    (audio.DeemphBiquad(48000), NYQUIST, 10 ** (-9.62 / 20)),
    (audio.Biquad(0.5, 0.2, 0.1, 2.0, 0.4, 0.1), 0.0, 0.8 / 2.5),
]


@pytest.mark.parametrize("op, omega, expected", PROMISES, ids=lambda v: repr(v)[:40])
def test_frequency_response_keeps_the_formulas_promise(op, omega, expected):
    # float32-computed coefficients (Bandpass, Treble) keep about 7 digits
    assert abs(abs(_gain(op, omega)) - expected) < 2e-6


def test_allpass_turns_the_phase_by_pi_at_its_centre():
    assert abs(_gain(audio.AllpassBiquad(SR, 1000.0), _w(1000)) - (-1)) < 1e-9


@pytest.mark.parametrize("sr", [44100, 48000, 88200, 96000])
def test_riaa_follows_the_riaa_playback_curve(sr):
    op = audio.RiaaBiquad(sr)
    assert abs(_db(op, 1000, sr)) < 1e-3  # 0 dB at 1 kHz by construction
    # the RIAA table: +19.27 dB at 20 Hz, +13.09 at 100 Hz, -13.73 at 10 kHz, -19.62 at 20 kHz
    for hz, table in ((20, 19.27), (100, 13.09), (10000, -13.73), (20000, -19.62)):
        assert abs(_db(op, hz, sr) - table) < 0.6, (hz, _db(op, hz, sr))


def _difference_equation(x, c):
    """Plain-Python ``y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] - a1 y[n-1] - a2 y[n-2]``."""
    b0, b1, b2, _, a1, a2 = c
    y, x1, x2, y1, y2 = [], 0.0, 0.0, 0.0, 0.0
    for v in x:
        out = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1, y2, y1 = x1, v, y1, out
        y.append(out)
    return y


def _signal(n=200):
    return [0.4 * math.sin(0.07 * k) + 0.3 * math.sin(1.9 * k) + (0.1 if k > n // 2 else 0.0)
            for k in range(n)]


@pytest.mark.parametrize("op", [audio.LowpassBiquad(SR, 1000.0), audio.HighpassBiquad(SR, 300.0, 0.4),
                                audio.EqualizerBiquad(SR, 1000.0, -5.0), audio.AllpassBiquad(SR, 4000.0),
                                audio.BandrejectBiquad(SR, 2000.0), audio.DeemphBiquad(48000)],
                         ids=lambda op: type(op).__name__)
def test_float64_filtering_is_the_difference_equation(op):
    x = _signal()
    expected = [min(1.0, max(-1.0, v)) for v in _difference_equation(x, _coefficients(op))]
    out = op(np.array(x))
    assert out.dtype == np.float64 and out.shape == (len(x),)
    assert out.tolist() == expected
    out32 = op(np.array(x, np.float32))
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, expected, atol=2e-6)


def test_impulse_responses_in_closed_form():
    impulse = np.zeros(12, np.float32)
    impulse[0] = 1.0
    one_pole = audio.LFilter([1.0, -0.5], [1.0, 0.0])(impulse)  # y[n] = 0.5 ** n
    assert one_pole.tolist() == [0.5 ** n for n in range(12)]
    fir = audio.LFilter([2.0, 0.0, 0.0], [0.5, 0.25, -0.125])(impulse)  # b / a0, three taps
    assert fir.tolist() == [0.25, 0.125, -0.0625] + [0.0] * 9
    resonator = audio.BandBiquad(SR, 1000.0, 0.7, noise=True)(np.pad(impulse, (0, 500)).astype(np.float64))
    assert abs(float(np.sum(resonator ** 2)) - 1.0) < 1e-6  # noise mode: unit power gain


def test_clamp_limits_only_the_output():
    x = np.array(_signal(), np.float32) * 6
    loose = audio.LFilter([1.0, -0.3, 0.2], [0.5, 0.4, 0.3], clamp=False)(x)
    tight = audio.LFilter([1.0, -0.3, 0.2], [0.5, 0.4, 0.3])(x)
    assert np.abs(loose).max() > 2
    np.testing.assert_array_equal(tight, np.clip(loose, -1, 1))


def test_channels_are_filtered_independently_along_the_last_axis():
    x = np.array(_signal(60), np.float32)
    batch = np.stack([np.stack([x, -x, 0.5 * x]), np.stack([x[::-1], x * 0.1, x])])
    op = audio.TrebleBiquad(SR, 6.0)
    out = op(batch)
    assert out.shape == batch.shape and out.dtype == np.float32
    for index in np.ndindex(batch.shape[:-1]):
        np.testing.assert_array_equal(out[index], op(batch[index]))


def test_map_gives_the_eager_results():
    rows = np.stack([np.array(_signal(80), np.float32) * s for s in (1.0, 0.5, -0.8)])
    chain = [audio.BassBiquad(SR, 10.0), audio.LowpassBiquad(SR, 4000.0)]
    d = ds.NumpySlicesDataset({"audio": rows}, shuffle=False).map(chain, input_columns=["audio"])
    got = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]
    for row, out in zip(rows, got, strict=True):
        np.testing.assert_array_equal(out, chain[1](chain[0](row)))


@pytest.mark.parametrize("make, error, words", [
    (lambda: audio.LowpassBiquad(0, 1000.0), ValueError, "sample_rate"),
    (lambda: audio.LowpassBiquad(16000.0, 1000.0), TypeError, "sample_rate"),
    (lambda: audio.HighpassBiquad(SR, "a"), TypeError, "cutoff_freq"),
    (lambda: audio.AllpassBiquad(SR, 1000.0, 1.5), ValueError, "Q"),
    (lambda: audio.BandBiquad(SR, 1000.0, 0.7, 1), TypeError, "noise"),
    (lambda: audio.Biquad(1, 2, 3, 0, 1, 2), ValueError, "a0"),
    (lambda: audio.DeemphBiquad(16000), ValueError, "44100 or 48000"),
    (lambda: audio.RiaaBiquad(16000), ValueError, "88200"),
    (lambda: audio.LFilter([1.0, 0.1], [0.1, 0.2, 0.3]), ValueError, "a_coeffs"),
    (lambda: audio.LowpassBiquad(SR, 1000.0)([0.1, 0.2]), TypeError, "NumPy audio"),
    (lambda: audio.LowpassBiquad(SR, 1000.0)(np.arange(4)), RuntimeError, "LowpassBiquad"),
    (lambda: audio.LowpassBiquad(SR, 1000.0)(np.float32(1.0)), TypeError, "NumPy audio"),
    (lambda: audio.LowpassBiquad(SR, 1000.0)(np.zeros((2, 0), np.float32)), RuntimeError, "shape"),
])
def test_bad_arguments_and_inputs_say_what(make, error, words):
    with pytest.raises(error, match=words):
        make()
