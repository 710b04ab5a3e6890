"""Lowering of ``ops.AllReduce``: a call of a registered packed function inside the step.

The Relax graph calls ``twinmode.allreduce_sum`` (:mod:`...runtime.collective`) with
``relax.call_dps_packed``: the VM allocates the output and the call runs in program
order, in the same compiled function as the backward pass and the optimizer update.
Only ``op='sum'`` is compiled; CPU targets only (the function reads host memory).
"""

from __future__ import annotations

from typing import Any

from tvm import relax

from ...runtime.collective import ALLREDUCE_SUM
from .base import LowerContext


def lower_all_reduce(ctx: LowerContext, x: Any) -> relax.Expr:
    if ctx.prim.op != "sum":
        raise NotImplementedError(f"graph mode: AllReduce(op={ctx.prim.op!r}) is not compiled; only "
                                  "'sum' is (run in PyNative mode for the others)")
    spec = ctx.out_specs[0]
    return relax.call_dps_packed(ALLREDUCE_SUM, relax.Tuple([x]),
                                 out_ty=relax.TensorType(spec.shape, spec.dtype.name))
