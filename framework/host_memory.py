"""What one result may take of the host's memory: an op whose result could never fit (more
bytes than the machine's memory and swap together, or than the process's ``ulimit -v``)
is refused before anything is allocated, with the same one line in both modes (the
interpreters call :func:`check_results` after the shape rule). Without it NumPy raised its
own ``MemoryError`` naming no op, and compiled code ended in TVM's ``std::bad_alloc``."""

from __future__ import annotations

import functools
import math
import os
from typing import Any

import numpy as np


@functools.cache
def capacity() -> int:
    """Bytes this process could ever hold at once: physical memory plus swap, or less under
    an address-space limit (``ulimit -v``)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/proc/meminfo") as meminfo:
            swap = next((int(line.split()[1]) * 1024 for line in meminfo if line.startswith("SwapTotal:")), 0)
    except OSError:
        swap = 0
    limit = total + swap
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            limit = min(limit, soft)
    except (ImportError, OSError, ValueError):
        pass
    return limit


def size_str(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} EiB"  # (unreachable)


def check_results(specs: Any) -> None:
    """Raise ``MemoryError`` if a result (a Spec, or a tuple of them) needs more bytes than
    :func:`capacity`; the caller adds the op, its inputs and the user's line. (On every
    PyNative op: a bound from the dims first, the precise size only past it.)"""
    for spec in specs if type(specs) is tuple else (specs,):
        count = 16  # the widest itemsize (complex128)
        for d in spec.shape:
            count *= d
        if count <= capacity():
            continue
        nbytes = math.prod(int(d) for d in spec.shape) * np.dtype(spec.dtype).itemsize
        if nbytes > capacity():
            shape = tuple(int(d) for d in spec.shape)
            raise MemoryError(f"its result {shape} {np.dtype(spec.dtype)} would "
                              f"take {size_str(nbytes)}, more than this machine can hold "
                              f"({size_str(capacity())}); make it smaller")
