"""Host allocator tuning: keep freed NumPy buffers in the process instead of unmapping them.

A PyNative step allocates and frees hundreds of arrays of 0.1-10 MB (activations, their
gradients, the optimizer's temporaries). glibc's malloc serves such sizes with ``mmap`` and
gives them back on ``free`` (or trims the heap top above 128 KiB once its dynamic threshold
has grown), so the next step faults every page in again and the kernel zeroes it: about
13k page faults and 15-20 ms of system time per step of the small GPT, a sixth of the step.

:func:`retain_freed_host_memory` (run when this module is imported, the first thing
``import framework`` does; ``APPLIED`` records whether it took effect) sets
``M_MMAP_THRESHOLD`` to 32 MiB (glibc's maximum: larger blocks still get their own
mapping) and ``M_TRIM_THRESHOLD`` to 128 MiB, so that freed buffers stay in the heap for
reuse. The cost: up to 128 MiB of freed memory may stay resident between steps. Other C
libraries (musl, macOS, Windows) are left alone, and so is a process whose environment
already chooses (``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_``, glibc's own
variables). ``TWINMODE_MALLOC=default`` turns the tuning off.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 128 << 20
_GLIBC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def retain_freed_host_memory() -> bool:
    """Apply the thresholds above to glibc's malloc; True when they were set."""
    if not sys.platform.startswith("linux") or os.environ.get("TWINMODE_MALLOC") == "default":
        return False
    if any(name in os.environ for name in _GLIBC_VARIABLES):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # mallopt returns 1 on success; the mmap threshold first: setting it fixes both
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


APPLIED = retain_freed_host_memory()
