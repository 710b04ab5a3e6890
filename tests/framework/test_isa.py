"""The CPU the kernels are built for: ``$TWINMODE_CPU`` overrides this machine's, so the AVX2
code path (narrower register tiles, cpu_rules.NARROW) is built and checked on a machine with
AVX-512, and the other way round.

CI runs on whatever x86 CPU it is given; these tests run the numerics of the compiled
kernels once more for AVX2 (``haswell``) in a child process: every lowering against its
NumPy kernel, and the zoo's train steps against PyNative.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor

ROOT = Path(__file__).resolve().parents[2]


def _jit_double(monkeypatch, cpu: str, tmp_path: Path):
    monkeypatch.setenv("TWINMODE_CPU", cpu)
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        return ms.jit(lambda a: a * 2.0 + 1.0)(Tensor(np.arange(40, dtype=np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)


def test_twinmode_cpu_sets_the_cpu_the_code_is_built_for(monkeypatch, tmp_path):
    out = _jit_double(monkeypatch, "haswell", tmp_path)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(40, dtype=np.float32) * 2 + 1)
    (folder,) = tmp_path.iterdir()
    llvm = (folder / "20_kernels.ll").read_text()
    assert '"target-cpu"="haswell"' in llvm and "avx512f" not in llvm


def test_an_unknown_twinmode_cpu_is_named_with_the_close_ones(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match=r"TWINMODE_CPU='haswel' is not a CPU LLVM knows "
                                         r"\(did you mean haswell\?\)"):
        _jit_double(monkeypatch, "haswel", tmp_path)


@pytest.mark.slow
def test_the_avx2_code_path_computes_what_numpy_and_pynative_do(tmp_path):
    env = {**os.environ, "TWINMODE_CPU": "haswell", "TWINMODE_CACHE_DIR": str(tmp_path)}
    tests = ["tests/framework/test_lowering.py", "tests/trainer/test_zoo.py::"
             "test_forward_shape_and_one_step_equal_in_both_modes"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           *tests], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
