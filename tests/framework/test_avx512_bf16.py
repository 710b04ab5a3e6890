"""The VDPBF16PS shim (framework/backend/tvm/lower/avx512_bf16.py): the kernel's assembly
holds the instruction and no call (checked on any x86 machine: LLVM compiles for a target
with avx512bf16 without running it), and the dot products equal NumPy's where this CPU
has the instruction."""

import platform

import numpy as np
import pytest
import tvm

from framework.backend.tvm.lower import avx512_bf16
from framework.backend.tvm.runtime.amx import cpu_flags

ml_dtypes = pytest.importorskip("ml_dtypes")
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86 instructions")

TARGET = tvm.target.Target({"kind": "llvm", "mcpu": "znver4", "mattr": ["+avx512bf16"]})

# k pairs of a (one row) against 16 columns of b laid out as pairs along k: c = a @ b
_KERNEL = """
@T.prim_func
def {name}(a: T.Buffer(({k2},), "int32"), b: T.Buffer(({k2} * 16,), "int32"),
           c: T.Buffer((16,), "float32")):
    T.func_attr({{"tirx.noalias": True, "global_symbol": "{name}"}})
    acc = T.alloc_local((16,), "float32")
{attr}        acc[T.Ramp(0, 1, 16)] = T.Broadcast(T.float32(0), 16)
        for r in range({k2}):
            acc[T.Ramp(0, 1, 16)] = {call}
        c[T.Ramp(0, 1, 16)] = acc[T.Ramp(0, 1, 16)]
"""


def _kernel(name, k2):
    text = _KERNEL.format(name=name, k2=k2, attr=avx512_bf16.import_attr(4),
                          call=avx512_bf16.dot_call("acc[T.Ramp(0, 1, 16)]", "T.Broadcast(a[r], 16)",
                                                    "b[T.Ramp(r * 16, 1, 16)]"))
    return avx512_bf16.parse(text)


def _module():
    # two kernels importing the same shim into one LLVM module (linkonce_odr: one copy)
    return tvm.IRModule({"dot8": _kernel("dot8", 8), "dot40": _kernel("dot40", 40)})


def test_the_kernel_is_vdpbf16ps_inlined():
    lib = tvm.compile(_module(), target=TARGET)
    asm = lib.mod.inspect_source("asm") if hasattr(lib, "mod") else lib.inspect_source("asm")
    assert asm.count("vdpbf16ps") >= 2
    assert avx512_bf16.FUNCTION not in "".join(l for l in asm.splitlines() if "call" in l)


def test_available_reads_the_target():
    assert avx512_bf16.available(TARGET)
    assert not avx512_bf16.available(tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}))
    assert not avx512_bf16.available(tvm.target.Target("cuda"))


@pytest.mark.skipif("avx512_bf16" not in cpu_flags(), reason="this CPU has no avx512_bf16")
def test_dot_products_equal_numpy():
    lib = tvm.compile(_module(), target=TARGET)
    rng = np.random.default_rng(0)
    dev = tvm.cpu()
    for name, k2 in (("dot8", 8), ("dot40", 40)):
        a = rng.standard_normal(2 * k2).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((k2, 16, 2)).astype(ml_dtypes.bfloat16)
        c = tvm.runtime.tensor(np.zeros(16, np.float32), dev)
        lib[name](tvm.runtime.tensor(a.view(np.int32), dev),
                  tvm.runtime.tensor(b.reshape(-1).view(np.int32), dev), c)
        ref = np.einsum("kp,kjp->j", a.astype(np.float64).reshape(k2, 2), b.astype(np.float64))
        np.testing.assert_allclose(c.numpy(), ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
