"""How many threads TVM's CPU thread pool runs.

Unless ``TVM_NUM_THREADS`` or ``OMP_NUM_THREADS`` says otherwise, TVM sizes its pool at
half the logical CPUs on x86, on the assumption of two hyper-threads per core. Machines
that give one thread per core (most VMs and small containers) then leave half their
cores idle: on a 2-core VM graph mode ran on one thread while PyTorch used both.
:func:`configure` sets ``TVM_NUM_THREADS`` to the number of physical cores among the CPUs
this process may run on (Linux topology files; one per CPU where they are missing) before
the pool starts; a variable the user set wins.
"""

from __future__ import annotations

import os
from pathlib import Path


def physical_cores() -> int:
    """Physical cores among the CPUs this process may use (hyper-thread siblings count once)."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    cores = set()
    for cpu in cpus:
        try:
            cores.add(Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list").read_text().strip())
        except OSError:
            cores.add(str(cpu))
    return max(1, len(cores))


def configure() -> None:
    """``TVM_NUM_THREADS`` = :func:`physical_cores` unless either thread variable is set."""
    if "TVM_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
        os.environ["TVM_NUM_THREADS"] = str(physical_cores())


__all__ = ["configure", "physical_cores"]
