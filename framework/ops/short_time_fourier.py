"""``stft``: the short-time Fourier transform of real signals, as MindSpore's (PyTorch's).

Frames of ``n_fft`` samples every ``hop_length`` (default ``n_fft // 4``) of the signal
(padded by ``n_fft // 2`` on both sides when ``center``, reflected or with zeros), each
multiplied by the window (ones of ``win_length``, default ``n_fft``, centred in ``n_fft``),
then transformed by one product with the cosine and sine tables: ``(..., freqs, frames)``
complex, or its real view ``(..., freqs, frames, 2)`` unless ``return_complex``. The frames
are a ``Gather`` at positions fixed by the shapes, so both modes and gradients are those
primitives' (MindSpore's STFT has no gradient).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtype as mstype
from ..common.tensor import Tensor
from ._class_form import REQUIRED, class_form
from ._utils import argument_error
from .array_ops import stack
from .block_layout import mirror_pad
from .complex_ops import Complex
from .nn_ops import matmul
from .scatter_gather import gather
from .shape_ops import pad, reshape, transpose


def _tensor(array: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(array))


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    op = "stft"
    kind = np.dtype(mstype.to_np(x.dtype))
    if kind.kind != "f" or len(x.shape) not in (1, 2):
        raise argument_error(op, TypeError(f"x must be a real float signal (L,) or (B, L), got {x.dtype} "
                                           f"of shape {tuple(x.shape)}"))
    if pad_mode not in ("REFLECT", "CONSTANT"):
        raise argument_error(op, ValueError(f"pad_mode must be 'REFLECT' or 'CONSTANT', got {pad_mode!r}"))
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if not 0 < win <= n_fft or hop < 1:
        raise argument_error(op, ValueError(
            f"need 0 < win_length ({win}) <= n_fft ({n_fft}) and hop_length >= 1"))
    signal = x if len(x.shape) == 2 else reshape(x, (1, -1))
    if center:
        half = n_fft // 2
        signal = mirror_pad(signal, ((0, 0), (half, half)), "REFLECT") if pad_mode == "REFLECT" else \
            pad(signal, ((0, 0), (half, half)))
    length = signal.shape[1]
    if length < n_fft:
        raise argument_error(op, ValueError(f"the signal ({length} samples) is shorter than n_fft ({n_fft})"))
    count = 1 + (length - n_fft) // hop
    frames = gather(signal, _tensor(np.arange(count)[:, None] * hop + np.arange(n_fft)[None, :]), 1)
    taper = np.zeros(n_fft, kind)
    start = (n_fft - win) // 2
    if window is None:
        taper[start:start + win] = 1
        frames = frames * _tensor(taper)
    else:
        if tuple(window.shape) != (win,):
            raise argument_error(op, ValueError(
                f"window must have win_length ({win}) entries, got {tuple(window.shape)}"))
        frames = frames * pad(window, ((start, n_fft - win - start),))
    freqs = n_fft // 2 + 1 if onesided in (None, True) else n_fft
    angle = 2 * np.pi * np.outer(np.arange(freqs), np.arange(n_fft)) / n_fft
    scale = 1 / np.sqrt(n_fft) if normalized else 1.0
    rows = reshape(frames, (-1, n_fft))
    real = matmul(rows, _tensor((np.cos(angle) * scale).astype(kind)), transpose_b=True)
    imag = matmul(rows, _tensor((-np.sin(angle) * scale).astype(kind)), transpose_b=True)
    lead = tuple(x.shape[:-1])
    real, imag = (transpose(reshape(part, (-1, count, freqs)), (0, 2, 1)) for part in (real, imag))
    real, imag = (reshape(part, lead + (freqs, count)) for part in (real, imag))
    if return_complex:
        return Complex()(real, imag)
    return stack((real, imag), -1)


def _stft_class(x, window, *, n_fft, hop_length, win_length, normalized, onesided, return_complex):
    # MindSpore's primitive frames the signal as given: padding is the functional form's
    return stft(x, n_fft, hop_length, win_length, window, center=False, normalized=normalized,
                onesided=onesided, return_complex=return_complex)


# ``P.STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window)``
STFT = class_form("STFT", _stft_class, n_fft=REQUIRED, hop_length=REQUIRED, win_length=REQUIRED,
                  normalized=REQUIRED, onesided=REQUIRED, return_complex=REQUIRED)
