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


def cpu_line() -> str:
    """The CPU the compiled kernels are built for and its vector ISA, for bench headers
    (``TWINMODE_CPU=haswell`` builds the AVX2 path on any x86 machine)."""
    import tvm
    from tvm.target import codegen

    from framework.backend.tvm.compiler import host_cpu, make_target

    target = make_target("CPU")
    isa = "AVX-512" if codegen.target_has_features("avx512f", target) else (
        "AVX2" if codegen.target_has_features("avx2", target) else "no AVX2")
    forced = " (TWINMODE_CPU)" if os.environ.get("TWINMODE_CPU") else ""
    return f"kernels built for {host_cpu()}{forced}: {isa}; TVM {tvm.__version__}"
