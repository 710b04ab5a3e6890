"""Lowering of a primitive that has a NumPy kernel and no TVM lowering: a call of its
kernel, registered as a packed function (:mod:`...runtime.host_kernels`), with the VM
allocating the outputs (``relax.call_dps_packed``). CPU targets only."""

from __future__ import annotations

from typing import Any

from tvm import relax

from ...runtime.host_kernels import register
from ..lower_target import on_cpu
from .base import LowerContext


def lower_on_host(ctx: LowerContext, *args: Any) -> Any:
    if not on_cpu():
        raise NotImplementedError(
            f"graph mode: {ctx.prim.name} runs as a host kernel and has no device lowering; "
            "run it on the CPU (device_target='CPU') or in PyNative mode")
    outs = [relax.TensorType(s.shape, s.dtype.name) for s in ctx.out_specs]
    call = relax.call_dps_packed(register(ctx.prim), relax.Tuple(list(args)),
                                 out_ty=outs if len(outs) > 1 else outs[0])
    if len(outs) == 1:
        return call
    result = ctx.bb.emit(call)
    return tuple(relax.TupleGetItem(result, i) for i in range(len(outs)))
