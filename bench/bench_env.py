"""Imported first by the step benches (before NumPy): ``--threads N`` on the command line
sizes TVM's, OpenMP's and the BLAS thread pools before any of them starts, and the
repository root goes on ``sys.path`` (the benches run from a checkout)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

if "--threads" in sys.argv:
    _n = sys.argv[sys.argv.index("--threads") + 1]
    for _var in ("TVM_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
