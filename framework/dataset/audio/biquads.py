"""The named biquads of ``mindspore.dataset.audio`` (their coefficients:
:mod:`.coefficients`; the filtering and the argument checks: :mod:`.transforms`).

Defaults as MindSpore 2.10's: ``Q=0.707``; ``BassBiquad`` centred at 100 Hz,
``TrebleBiquad`` at 3000 Hz. Frequencies and gains are ints or floats (held as float32),
``Q`` in ``(0, 1]``, ``sample_rate`` a non-zero int.
"""

from __future__ import annotations

from . import coefficients as coef
from .transforms import AudioOp, _fixed_rate, _flag, _number, _q, _sample_rate


class _Tuned(AudioOp):
    """A biquad of ``sample_rate``, one frequency (``name``) and ``Q``."""

    def __init__(self, sample_rate: int, freq: float, Q: float, name: str) -> None:  # noqa: N803
        self.sample_rate = _sample_rate(sample_rate)
        self.freq = _number(name, freq)
        self.Q = _q(Q)


class LowpassBiquad(_Tuned):
    """``LowpassBiquad(sample_rate, cutoff_freq, Q=0.707)``: two-pole low pass."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, cutoff_freq, Q, "cutoff_freq")

    def coefficients(self):
        return coef.lowpass(self.sample_rate, self.freq, self.Q)


class HighpassBiquad(_Tuned):
    """``HighpassBiquad(sample_rate, cutoff_freq, Q=0.707)``: two-pole high pass."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, cutoff_freq, Q, "cutoff_freq")

    def coefficients(self):
        return coef.highpass(self.sample_rate, self.freq, self.Q)


class BandpassBiquad(_Tuned):
    """``BandpassBiquad(sample_rate, central_freq, Q=0.707, const_skirt_gain=False)``."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707,  # noqa: N803
                 const_skirt_gain: bool = False) -> None:
        super().__init__(sample_rate, central_freq, Q, "central_freq")
        self.const_skirt_gain = _flag("const_skirt_gain", const_skirt_gain)

    def coefficients(self):
        return coef.bandpass(self.sample_rate, self.freq, self.Q, self.const_skirt_gain)


class BandrejectBiquad(_Tuned):
    """``BandrejectBiquad(sample_rate, central_freq, Q=0.707)``: two-pole notch."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, "central_freq")

    def coefficients(self):
        return coef.bandreject(self.sample_rate, self.freq, self.Q)


class AllpassBiquad(_Tuned):
    """``AllpassBiquad(sample_rate, central_freq, Q=0.707)``: two-pole all pass."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, "central_freq")

    def coefficients(self):
        return coef.allpass(self.sample_rate, self.freq, self.Q)


class BandBiquad(_Tuned):
    """``BandBiquad(sample_rate, central_freq, Q=0.707, noise=False)``: SoX's band resonator."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707,  # noqa: N803
                 noise: bool = False) -> None:
        super().__init__(sample_rate, central_freq, Q, "central_freq")
        self.noise = _flag("noise", noise)

    def coefficients(self):
        return coef.band(self.sample_rate, self.freq, self.Q, self.noise)


class EqualizerBiquad(_Tuned):
    """``EqualizerBiquad(sample_rate, center_freq, gain, Q=0.707)``: peaking equalizer."""

    def __init__(self, sample_rate: int, center_freq: float, gain: float,
                 Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, center_freq, Q, "center_freq")
        self.gain = _number("gain", gain)

    def coefficients(self):
        return coef.equalizer(self.sample_rate, self.freq, self.gain, self.Q)


class BassBiquad(_Tuned):
    """``BassBiquad(sample_rate, gain, central_freq=100.0, Q=0.707)``: low shelf."""

    normalize_first = True

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 100.0,
                 Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, "central_freq")
        self.gain = _number("gain", gain)

    def coefficients(self):
        return coef.bass(self.sample_rate, self.gain, self.freq, self.Q)


class TrebleBiquad(_Tuned):
    """``TrebleBiquad(sample_rate, gain, central_freq=3000, Q=0.707)``: high shelf."""

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 3000,
                 Q: float = 0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, "central_freq")
        self.gain = _number("gain", gain)

    def coefficients(self):
        return coef.treble(self.sample_rate, self.gain, self.freq, self.Q)


class DeemphBiquad(AudioOp):
    """``DeemphBiquad(sample_rate)``: CD de-emphasis (SoX's ``deemph``), 44100 or 48000 Hz."""

    def __init__(self, sample_rate: int) -> None:
        self.sample_rate = _fixed_rate(sample_rate, (44100, 48000))

    def coefficients(self):
        return coef.deemph(self.sample_rate)


class RiaaBiquad(AudioOp):
    """``RiaaBiquad(sample_rate)``: RIAA vinyl playback equalization at 44100, 48000, 88200
    or 96000 Hz."""

    def __init__(self, sample_rate: int) -> None:
        self.sample_rate = _fixed_rate(sample_rate, coef.RIAA_RATES)

    def coefficients(self):
        return coef.riaa(self.sample_rate)
