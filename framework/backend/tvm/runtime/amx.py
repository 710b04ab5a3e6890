"""The CPU's bfloat16 instructions: which this machine has, and leave to use AMX tiles.

LLVM names a CPU by its model number, and a virtual machine may report an older model than
the instructions it runs (a Sapphire Rapids guest seen as ``rocketlake``, no
``avx512bf16``, no AMX): the features the kernel lists in /proc/cpuinfo are added to the
target explicitly (:func:`host_mattr`).

Linux hands out AMX tile registers per process, on request (``arch_prctl`` with
``ARCH_REQ_XCOMP_PERM`` for the tile data state): a tile instruction before it is a SIGILL.
:func:`amx_permitted` asks once; the AMX features join the target only when it was granted,
and the lowerings use tiles only on such a target (:mod:`..lower.amx_matmul`).
"""

from __future__ import annotations

import ctypes
import functools
import platform
from pathlib import Path

_SYS_ARCH_PRCTL = 158  # x86-64
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18

# /proc/cpuinfo flag -> LLVM feature
_BF16_FEATURES = {"avx512_bf16": "+avx512bf16", "amx_tile": "+amx-tile", "amx_bf16": "+amx-bf16"}


@functools.cache
def cpu_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


@functools.cache
def amx_permitted() -> bool:
    """Whether this process may use AMX tiles (asked of Linux once; False elsewhere)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return False
    if not {"amx_tile", "amx_bf16"} <= cpu_flags():
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) == 0
    except (OSError, AttributeError):
        return False


def host_mattr() -> list[str]:
    """LLVM ``mattr`` for this machine's bfloat16 instructions (AMX only where permitted)."""
    flags = cpu_flags()
    wanted = [f for flag, f in _BF16_FEATURES.items() if flag in flags]
    if not amx_permitted():
        wanted = [f for f in wanted if not f.startswith("+amx")]
    return wanted
