"""``mindspore.dataset.audio``: the IIR filters (``LFilter``, ``Biquad`` and the named
biquads), called eagerly on a NumPy waveform or per row by ``map``
(:mod:`framework.dataset.audio.transforms`, :mod:`framework.dataset.audio.biquads`)."""

from . import biquads, coefficients, transforms
from .biquads import (
    AllpassBiquad,
    BandBiquad,
    BandpassBiquad,
    BandrejectBiquad,
    BassBiquad,
    DeemphBiquad,
    EqualizerBiquad,
    HighpassBiquad,
    LowpassBiquad,
    RiaaBiquad,
    TrebleBiquad,
)
from .transforms import Biquad, LFilter

__all__ = ["AllpassBiquad", "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "Biquad",
           "DeemphBiquad", "EqualizerBiquad", "HighpassBiquad", "LFilter", "LowpassBiquad", "RiaaBiquad",
           "TrebleBiquad", "biquads", "coefficients", "transforms"]
