"""bench/kernel_profile.py, the per-kernel profile of a compiled step: it catches the
module the compiler schedules (through whatever arguments ``apply_schedules`` takes) and
times every kernel the step calls, at the shapes of its call."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tvm

import framework as ms
from framework import Tensor, ops

BENCH = Path(__file__).resolve().parents[2] / "bench" / "kernel_profile.py"


def _kernel_profile():
    spec = importlib.util.spec_from_file_location("kernel_profile", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_cold_compile_is_caught_and_each_called_kernel_timed(tmp_path, monkeypatch):
    kp = _kernel_profile()
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path))  # cold: the step is scheduled
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 80)).astype(np.float32)
    w = rng.standard_normal((80, 112)).astype(np.float32)

    def step(a, b):
        return ops.relu(ops.matmul(a, b)).sum(axis=0) * 3.0

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with kp.captured_schedules() as captured:
            got = ms.jit(step)(Tensor(x), Tensor(w)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, np.maximum(x @ w, 0).sum(axis=0) * 3, rtol=1e-4, atol=1e-3)
    mod = captured["mod"]
    rows = kp.profile(mod, captured["target"])
    prims = {gv.name_hint for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)}
    counts, _ = kp.call_sites(mod)
    assert rows and {r[3] for r in rows} == set(counts) <= prims
    assert all(r[1] > 0 and r[0] == pytest.approx(r[1] * r[2]) for r in rows)
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    # the matmul's kernel is timed at the shapes of its call
    assert any(([48, 80], "float32") in r[4] and ([80, 112], "float32") in r[4] for r in rows), rows


def test_a_symbolic_batch_is_profiled_at_the_size_bound(tmp_path, monkeypatch):
    """A step compiled for every batch size (an input signature with a None axis, as the
    trainer's image steps are): its kernels take the symbol's value as a scalar argument,
    and the profile times them at the bound size."""
    kp = _kernel_profile()
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((24, 64)).astype(np.float32)
    w = rng.standard_normal((64, 48)).astype(np.float32)
    step = ms.jit(lambda a, b: ops.relu(ops.matmul(a, b)) * 2.0,
                  input_signature=(Tensor(shape=[None, 64], dtype=ms.float32),
                                   Tensor(shape=[64, 48], dtype=ms.float32)))
    with kp.captured_schedules() as captured:
        got = step(Tensor(x), Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, np.maximum(x @ w, 0) * 2, rtol=1e-4, atol=1e-4)
    symbols = kp.symbols(captured["mod"])
    assert symbols, "the step should be compiled with a symbolic batch"
    rows = kp.profile(captured["mod"], captured["target"], {s: 24 for s in symbols})
    assert rows and all(r[1] > 0 for r in rows)
    assert any(([24, 64], "float32") in r[4] for r in rows), rows
