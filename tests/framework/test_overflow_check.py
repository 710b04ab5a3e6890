"""The loss-scale overflow check (nn.wrap.loss_scale.grads_finite): an inf or NaN anywhere in
any gradient is found, in either mode, and finite gradients pass however large; in graph
mode the check is one vectorised pass over each gradient (schedule/full_sums.py), not a
serial reduction."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import tvm

import framework as ms
from framework import Tensor
from framework.nn.wrap.loss_scale import grads_finite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_fp16_kernels import _scheduled  # noqa: E402

SHAPES = [(120, 400), (84,), (6, 1, 5, 5), (64, 128)]
rng = np.random.default_rng(3)


def _grads(dtype) -> list[np.ndarray]:
    return [rng.uniform(-1, 1, s).astype(dtype) for s in SHAPES]


def _check(grads: list[np.ndarray], mode) -> bool:
    ms.set_context(mode=mode)
    try:
        fn = ms.jit(lambda *gs: grads_finite(gs)) if mode == ms.GRAPH_MODE else (lambda *gs: grads_finite(gs))
        return bool(fn(*[Tensor(g) for g in grads]).asnumpy())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_inf_or_nan_anywhere_in_any_gradient_is_found(mode, dtype):
    big = np.finfo(dtype).max
    finite = _grads(dtype)
    finite[0][:] = big  # every element at the top of the range: still finite
    finite[3][0, 0] = -big
    assert _check(finite, mode) is True
    for which, index in [(0, (119, 399)), (1, (0,)), (2, (3, 0, 2, 4)), (3, (17, 5))]:
        for bad in (np.inf, -np.inf, np.nan):
            grads = _grads(dtype)
            grads[which][index] = bad
            assert _check(grads, mode) is False, (which, index, bad)
    grads = _grads(dtype)
    grads[0][0, 0], grads[3][1, 1] = np.inf, -np.inf  # inf - inf: NaN, still found
    assert _check(grads, mode) is False


def test_the_check_of_a_large_gradient_runs_in_vector_lanes():
    """The check of a (120, 400) float16 gradient is one kernel reading float16 and summing
    into vector lanes; no float32 copy of the gradient is written first."""
    mod = _scheduled(lambda *gs: grads_finite(gs), *_grads(np.float16))
    texts = [f.script() for f in mod.functions.values() if isinstance(f, tvm.tirx.PrimFunc)]
    shape = "(T.int64(120), T.int64(400))"
    reading = [t for t in texts if shape in t]
    assert len(reading) == 1, reading
    (text,) = reading
    assert f'T.Buffer({shape}, "float16")' in text and f"alloc_buffer({shape}" not in text, text
    assert "T.vectorized" in text, text
