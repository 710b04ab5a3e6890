"""Packed functions that compiled code calls for collective communication.

``twinmode.allreduce_sum(x, out)``: destination-passing (``relax.call_dps_packed``):
``out`` (allocated by the VM) receives the element-wise sum of ``x`` over every rank of
:mod:`framework.communication`, by one MPI Allreduce on zero-copy NumPy views of the two
CPU tensors (DLPack). It is registered when this module is imported, which every path
to a compiled function goes through (the lowering table imports it), so a library
loaded from the disk cache finds it too.
"""

from __future__ import annotations

import numpy as np
import tvm_ffi

ALLREDUCE_SUM = "twinmode.allreduce_sum"


def _allreduce_sum(x, out) -> None:
    from ....communication import allreduce_array

    allreduce_array(np.from_dlpack(x), out=np.from_dlpack(out), op="sum")


tvm_ffi.register_global_func(ALLREDUCE_SUM, _allreduce_sum, override=True)
