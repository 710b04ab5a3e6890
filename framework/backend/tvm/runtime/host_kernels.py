"""Primitives without a TVM lowering run their NumPy kernel from compiled code (CPU only).

A primitive whose class has no entry in the lowering table but has a NumPy ``kernel``
(an FFT, a matrix decomposition, a special function) lowers to ``relax.call_dps_packed``
of a packed function registered here: the VM allocates the outputs, the function views
inputs and outputs as NumPy arrays (DLPack, no copy), runs ``prim.kernel`` and copies the
result into the outputs, in program order inside the one compiled function. Its gradient
is its ``bprop``, traced like any other, so second-order rules and optimizers need nothing
more. This is MindSpore's CPU kernel for such operators in our terms: a host function
called from the graph. CUDA targets refuse such a primitive with one line (its memory is
on the device).

Names are ``twinmode.host.<digest of the primitive's identity>``: a library loaded from the
disk cache in another process calls the same names, and :func:`register_graph` registers
them from the traced graph before the library runs (every compiled call traces first).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import tvm_ffi

from ....primitive import Primitive

PREFIX = "twinmode.host."
_REGISTERED: dict[str, Primitive] = {}


def has_kernel(prim: Primitive) -> bool:
    """Whether ``prim``'s class defines its own NumPy kernel."""
    return type(prim).kernel is not Primitive.kernel


def name_of(prim: Primitive) -> str:
    """The packed function name of ``prim`` (its class and attributes)."""
    cls = type(prim)
    identity = f"{cls.__module__}.{cls.__qualname__}:{prim.key()[1]!r}"
    return PREFIX + hashlib.sha256(identity.encode()).hexdigest()[:24]


def register(prim: Primitive) -> str:
    """Register ``prim``'s kernel as a packed function (once per identity); its name."""
    name = name_of(prim)
    if name not in _REGISTERED:
        def call(*tensors: Any) -> None:
            # the VM passes the inputs, then the outputs it allocated
            arrays = [np.from_dlpack(t) for t in tensors]
            split = len(arrays) - prim.num_outputs
            result = prim.kernel(*arrays[:split])
            results = result if prim.num_outputs > 1 else (result,)
            for out, value in zip(arrays[split:], results, strict=True):
                np.copyto(out, np.asarray(value, dtype=out.dtype).reshape(out.shape))

        tvm_ffi.register_global_func(name, call, override=True)
        _REGISTERED[name] = prim
    return name


def register_graph(graph: Any, lowered: dict[type, Any]) -> None:
    """Register every node's primitive that has no lowering in ``lowered`` (regions too)."""
    for node in graph.nodes:
        prim = node.prim
        for region in getattr(prim, "regions", ()) or ():
            register_graph(region, lowered)
        if type(prim) not in lowered and has_kernel(prim):
            register(prim)
