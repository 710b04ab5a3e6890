"""AVX512-BF16 dot products (``VDPBF16PS``) from TVMScript kernels: the one way in.

``VDPBF16PS zmm_acc, zmm_a, zmm_b`` adds to each of 16 float32 lanes the two products of
the bf16 pair in the same 32-bit lane of ``a`` and ``b`` (``acc[i] += a[2i] * b[2i] +
a[2i + 1] * b[2i + 1]``; products exact, the sum rounded to float32). It is the bf16 matrix
instruction of CPUs without AMX tiles (AMD Zen 4/5, Intel Cooper Lake; those with AMX have
it too): twice the multiply-adds of a float32 FMA per instruction, half the bytes loaded.
That pays where the core issues it as fast as an FMA: AMD Zen 4/5 (a 1024^3 product ~420-460
GFLOP/s on one Zen 5 core against ~230 for our float32 kernel). An Intel core issues it at
half the float32 FMA rate (one Sapphire Rapids core: ~78 GFLOP/s against 125-160 for float32
in ``TWINMODE_CPU=cooperlake bench/bf16_matmul.py``; the GPT's bf16 step 1.25x its float32
step, 1.12x computing in float32 between casts), so the kernels are used where
:func:`pays`: Intel CPUs multiply bf16 on AMX tiles or in float32.

Why a shim: LLVM's intrinsic takes ``<32 x bfloat>`` operands, and TVM's TIR pipeline
rewrites every bfloat16 value to float32 (``BF16ComputeLegalize``) and bfloat16 storage to
uint16 (``BF16StorageLegalize``) before code generation, so no TIR expression reaches LLVM
with that type (an ``int16x32`` argument fails LLVM's verifier; skipping the legalisation
crashes TVM's code generator). The kernel instead calls :data:`FUNCTION`, an always-inline
LLVM function taking ``<16 x i32>`` (the bf16 pairs as 32-bit lanes) that bitcasts and
calls the intrinsic; its IR joins the kernel's LLVM module through TVM's
``pragma_import_llvm`` attribute (:func:`import_attr`) and is inlined away: the kernel's
assembly holds ``vdpbf16ps`` and no call.

Contract for a kernel: wrap its body in ``with T.attr(0, "pragma_import_llvm", SHIM):``
(text: :func:`import_attr`; parse it with :func:`parse`), view its bf16 operands as
``int32`` buffers (``T.decl_buffer`` on the same data), keep its sums in registers
(:func:`register_sums`; the direct convolutions keep theirs in one buffer, measured faster
there), and compute ``acc = T.call_extern("float32x16", FUNCTION, acc, a, b)``
(text: :func:`dot_call`) with ``a``, ``b`` ``int32x16`` values, each lane one bf16 pair
along the reduction axis (lower half: the even element). Use it only where
:func:`available` says the target has ``avx512bf16``; choose it over float32 only where
:func:`pays`.
"""

from __future__ import annotations

import os

import tvm
from tvm.script import tirx as T
from tvm.target import codegen

FUNCTION = "twinmode_dpbf16ps_512"

SHIM = f"""
define linkonce_odr <16 x float> @{FUNCTION}(<16 x float> %acc, <16 x i32> %a, <16 x i32> %b) alwaysinline {{
  %x = bitcast <16 x i32> %a to <32 x bfloat>
  %y = bitcast <16 x i32> %b to <32 x bfloat>
  %r = call <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float> %acc, <32 x bfloat> %x, <32 x bfloat> %y)
  ret <16 x float> %r
}}
declare <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float>, <32 x bfloat>, <32 x bfloat>)
"""


def available(target: tvm.target.Target | None = None) -> bool:
    """Whether ``target`` (default: the current one) is an x86 LLVM target with ``avx512bf16``."""
    target = target or tvm.target.Target.current(allow_none=True)
    if target is None or target.kind.name != "llvm":
        return False
    try:
        return bool(codegen.target_has_features("avx512bf16", target))
    except Exception:  # not an x86 target
        return False


def pays(target: tvm.target.Target | None = None) -> bool:
    """Whether bf16 pair products beat float32 FMAs on ``target`` (default: the current one):
    it has ``avx512bf16`` and is an AMD Zen (LLVM CPU ``znver*``), or ``$TWINMODE_BF16_DOTS``
    is 1 (use them wherever the target has them; 0: nowhere)."""
    target = target or tvm.target.Target.current(allow_none=True)
    setting = os.environ.get("TWINMODE_BF16_DOTS", "").strip()
    if setting not in ("", "0", "1"):
        raise ValueError(f"TWINMODE_BF16_DOTS={setting!r}: use 1 (bf16 matmuls and convolutions on "
                         "VDPBF16PS wherever the CPU has it), 0 (never), or unset it (AMD Zen only)")
    if not available(target) or setting == "0":
        return False
    return setting == "1" or str(target.attrs.get("mcpu", "")).startswith("znver")


def import_attr(indent: int) -> str:
    """The TVMScript line that opens a block whose body may call :data:`FUNCTION`; the
    caller indents the body by four more spaces; parse the script with :func:`parse`."""
    return " " * indent + 'with T.attr(0, "pragma_import_llvm", SHIM):\n'


def register_sums(count: int, indent: int, prefix: str = "acc") -> tuple[str, list[str]]:
    """TVMScript allocating ``count`` zmm of float32 sums, and each one's buffer name (its
    16 lanes: ``name[T.Ramp(0, 1, 16)]``, lane ``q``: ``name[q]``). One 64-byte buffer each:
    under TVM's stack-allocation limit (1 KiB) a buffer is an LLVM alloca, which LLVM keeps
    in a register; one buffer of all the sums (24 zmm: 1.5 KiB) came from TVM's workspace
    pool, zeroed by a memset and stored back to memory after every register block (~10% of
    a GEMM's time)."""
    names = [f"{prefix}{i}" for i in range(count)]
    return "".join(" " * indent + f'{name} = T.alloc_local((16,), "float32")\n' for name in names), names


def dot_call(acc: str, a: str, b: str) -> str:
    """TVMScript for ``acc + pairwise dot(a, b)`` over 16 lanes (all three ``*x16`` values)."""
    return f'T.call_extern("float32x16", "{FUNCTION}", {acc}, {a}, {b})'


def parse(text: str) -> tvm.tirx.PrimFunc:
    """A TVMScript kernel's text as a PrimFunc, ``T`` and :data:`SHIM` in its scope."""
    return tvm.script.from_source(text, extra_vars={"T": T, "SHIM": SHIM})
