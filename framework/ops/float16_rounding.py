"""float16 kernels of PyNative mode rounded as MindSpore 2.10's CPU kernels round them.

Graph mode computes the same primitives in float32 registers between float16 loads and
stores (lower/lowerings: ``_ONE_ROUNDING``, ``lower_sigmoid``); these NumPy kernels give the
same float16 results, so the two modes agree on every finite float16 input
(tests/mindspore_ref/test_ms_float16_rounding.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def float16_sigmoid(x: np.ndarray) -> np.ndarray:
    """MindSpore 2.10's float16 sigmoid on the CPU, bit for bit: ``1 / (1 + exp(-x))``, each
    step rounded to float16 (exp rounded once); ``exp(-x)`` overflows to inf below -11.1,
    giving 0, the limit."""
    with np.errstate(over="ignore"):
        e = rounded_once(np.exp, -x)
        return np.float16(1) / (np.float16(1) + e)


def rounded_once(fn: Any, x: np.ndarray) -> np.ndarray:
    """``fn(x)`` of a float16 ``x`` evaluated in float32 and rounded once to float16 (as
    MindSpore 2.10's CPU kernels and graph mode compute it); NumPy's own float16 loops of
    exp, sin and cos miss the correct rounding of a few inputs (exp(0.0246): 1.025, not 1.024)."""
    if x.dtype != np.float16:
        return fn(x)
    return fn(x.astype(np.float32)).astype(np.float16)
