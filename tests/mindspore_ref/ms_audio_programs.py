"""``mindspore.dataset.audio``'s IIR filters (the dataset/eager tutorial's ``BassBiquad``, the
other biquads, ``LFilter``): eager calls on NumPy waveforms of float16/32/64 and several
shapes, ``map`` in a pipeline, clamping, and the errors of bad arguments and inputs.

Each program imports the engine's ``dataset.audio`` as ``audio`` (``ds`` for the pipeline)
and returns arrays or error kinds. ``ms_audio_expected.json`` holds MindSpore 2.10's answers
on CPU by mode; ``python -m tests.mindspore_ref.ms_audio_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

PROGRAMS: dict[str, str] = {}

PRELUDE = '''
import importlib
ds = importlib.import_module(ms.__name__ + ".dataset")
audio = importlib.import_module(ms.__name__ + ".dataset.audio")


def waveform(n=300, channels=None, dtype=np.float32, scale=1.0):
    """Tones, a chirp and a step: deterministic, amplitude ``scale`` (above 1: clamping)."""
    t = np.arange(n) / 16000.0
    w = (0.4 * np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 3100 * t)
         + 0.2 * np.sin(2 * np.pi * (200 + 20000 * t) * t) + 0.1 * (t > t[n // 2]))
    w = w * scale
    if channels:
        w = np.stack([w * (1 - 0.3 * c) for c in range(channels)])
    return w.astype(dtype)


def filters(sr=16000):
    return [audio.BassBiquad(sr, 10.0), audio.BassBiquad(sr, -6.0, 250.0, 0.5),
            audio.TrebleBiquad(sr, 3.0), audio.TrebleBiquad(sr, -4.5, 2000, 1.0),
            audio.LowpassBiquad(sr, 1000.0), audio.LowpassBiquad(sr, 3000, 0.3),
            audio.HighpassBiquad(sr, 1000.0), audio.HighpassBiquad(sr, 150.5, 0.9),
            audio.BandpassBiquad(sr, 1000.0), audio.BandpassBiquad(sr, 2500.0, 0.6, True),
            audio.BandrejectBiquad(sr, 1000.0), audio.BandrejectBiquad(sr, 440.0, 0.25),
            audio.AllpassBiquad(sr, 1000.0), audio.AllpassBiquad(sr, 5000.0, 0.95),
            audio.EqualizerBiquad(sr, 1000.0, 3.0), audio.EqualizerBiquad(sr, 300.0, -8.0, 0.4),
            audio.BandBiquad(sr, 1000.0), audio.BandBiquad(sr, 700.0, 0.5, True),
            audio.Biquad(0.1, 0.2, 0.3, 1.0, -0.2, 0.1), audio.Biquad(0.5, -0.25, 0.125, 2.0, -0.6, 0.2),
            audio.LFilter([1.0, -0.5, 0.25], [0.3, 0.2, 0.1]),
            audio.LFilter([1.0, -1.2, 0.5, -0.1], [0.2, 0.1, 0.05, 0.3], clamp=False)]
'''


def _program(name: str, body: str, errors: bool = False) -> None:
    PROGRAMS[name] = PRELUDE + (ERROR_KIND if errors else "") + body


_program("tutorial_bass_biquad_eager", '''
def main():
    sample_rate = 16000
    w = (waveform(1200, scale=12000.0).astype(np.int16)).astype(np.float32) / 32768.0
    bass_biquad = audio.BassBiquad(sample_rate, 10.0)
    out = bass_biquad(w)
    return [out[::4], out[-1], str(out.dtype), list(out.shape)]
''')

for _dtype in ("float32", "float64"):
    _program(f"every_filter_{_dtype}", f'''
def main():
    w = waveform(150, dtype=np.{_dtype})
    return [f(w)[::3] for f in filters()] + [f(w)[-1] for f in filters()]
''')

_program("every_filter_float16", '''
def main():
    w = waveform(50, dtype=np.float16)
    return [f(w) for f in filters()]
''')

_program("fixed_rate_filters", '''
def main():
    out = []
    for sr in (44100, 48000):
        for dtype in (np.float32, np.float64):
            w = waveform(150, dtype=dtype)
            out += [audio.DeemphBiquad(sr)(w)[::3], audio.RiaaBiquad(sr)(w)[::3]]
    for sr in (88200, 96000):
        for dtype in (np.float32, np.float64):
            out.append(audio.RiaaBiquad(sr)(waveform(150, dtype=dtype))[::3])
    return out
''')

_program("clamping_and_shapes", '''
def main():
    loud = waveform(100, scale=4.0)
    multi = waveform(40, channels=3)
    cube = np.stack([multi, -multi])
    return [audio.LowpassBiquad(16000, 2000.0)(loud),
            audio.LFilter([1.0, -0.2, 0.1], [0.1, 0.2, 0.3], clamp=False)(loud),
            audio.LFilter([1.0, -0.2, 0.1], [0.1, 0.2, 0.3], clamp=True)(loud),
            audio.EqualizerBiquad(16000, 800.0, 12.0)(multi), audio.TrebleBiquad(16000, 6.0)(cube),
            audio.LowpassBiquad(16000, 1000.0)(np.array([0.5], np.float32)),
            audio.LowpassBiquad(-16000, 1000.0)(waveform(20)), audio.LowpassBiquad(16000, 0.0)(waveform(8)),
            audio.HighpassBiquad(16000, 1000)(waveform(16)), audio.BassBiquad(16000, 10)(waveform(16))]
''')

_program("in_a_pipeline", '''
def main():
    rows = np.stack([waveform(100), waveform(100, scale=0.5), waveform(100, scale=-0.8)])
    d = ds.NumpySlicesDataset({"audio": rows}, shuffle=False)
    d = d.map(audio.BassBiquad(16000, 10.0), input_columns=["audio"])
    chain = [audio.LowpassBiquad(16000, 4000.0), audio.HighpassBiquad(16000, 60.0)]
    d = d.map(chain, input_columns=["audio"])
    return [r[0] for r in d.create_tuple_iterator(output_numpy=True)]
''')

_program("bad_arguments_and_inputs", '''
def main():
    w = waveform(16)
    low = audio.LowpassBiquad(16000, 1000.0)
    cases = [lambda: audio.LowpassBiquad(0, 1000.0), lambda: audio.LowpassBiquad(16000.0, 1000.0),
             lambda: audio.LowpassBiquad(16000, "a"), lambda: audio.LowpassBiquad(16000, 1000.0, 0),
             lambda: audio.LowpassBiquad(16000, 1000.0, 1.5),
             lambda: audio.BassBiquad(16000, 10.0, 100.0, 1.01),
             lambda: audio.BandpassBiquad(16000, 1000.0, 0.7, 1),
             lambda: audio.BandBiquad(16000, 1000.0, 0.7, "no"),
             lambda: audio.Biquad(1, 2, 3, 0, 1, 2), lambda: audio.Biquad(1, 2, 3.5e7, 1, 1, 2),
             lambda: audio.DeemphBiquad(16000), lambda: audio.RiaaBiquad(96000),
             lambda: audio.RiaaBiquad(16000),
             lambda: audio.LFilter([1.0, 0.1], [0.1, 0.2, 0.3]), lambda: audio.LowpassBiquad(16000, True),
             lambda: low(np.arange(8, dtype=np.int16)), lambda: low(np.array(0.5, np.float32)),
             lambda: low(np.zeros((2, 0), np.float32)), lambda: low([0.1, 0.2]), lambda: low(np.float32(0.5)),
             lambda: low(w), lambda: audio.LFilter([1.0], [0.5])(w)]
    return [kind(case) for case in cases]
''', errors=True)


if __name__ == "__main__":  # re-record ms_audio_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_audio_expected.json"))
