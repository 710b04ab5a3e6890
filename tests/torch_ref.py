"""PyTorch as the tests' reference engine, kept out of the test process.

PyTorch stays out of the main venv (``tvm_ffi`` imports it at start-up when it can) and
out of this process: a reference script (``tests/**/torch_*.py``) runs in a subprocess
with ``PYTHONPATH=$TORCH_PATH`` (default ``/tmp/torchlib``; make one with ``pip install
torch==2.13.0 --target /tmp/torchlib``), reading its inputs from a file and writing its
results to another. Tests that need it are marked ``needs_torch`` and skip without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TORCH_PATH = Path(os.environ.get("TORCH_PATH", "/tmp/torchlib"))
have_torch = (TORCH_PATH / "torch" / "__init__.py").is_file()
needs_torch = pytest.mark.skipif(
    not have_torch, reason=f"no PyTorch at TORCH_PATH={TORCH_PATH} (pip install torch==2.13.0 --target DIR)")


def run_script(script: Path, inputs: Path, outputs: Path, timeout: float = 300) -> None:
    """``python script inputs outputs`` with PyTorch importable, on one thread; fails the
    test with the script's error output when it exits non-zero."""
    env = {**os.environ, "PYTHONPATH": str(TORCH_PATH), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(script), str(inputs), str(outputs)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]


def reference(script: Path, folder: Path, **arrays) -> dict[str, np.ndarray]:
    """The script's results for ``arrays`` (passed as ``in.npz``, read back from ``out.npz``)."""
    np.savez(folder / "in.npz", **arrays)
    run_script(script, folder / "in.npz", folder / "out.npz")
    return dict(np.load(folder / "out.npz"))
