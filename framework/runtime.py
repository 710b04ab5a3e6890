"""``mindspore.runtime``: MindSpore 2.10's runtime controls, for programs that call them.

Contracts. Every primitive here runs to completion before its call returns (PyNative's
NumPy kernels; graph mode's compiled functions return host values), so the controls of
MindSpore's asynchronous runtime have nothing to change:

- ``launch_blocking()`` (synchronous launches, for exact error stacks) and
  ``synchronize()`` do nothing; ``launch_blocking`` is remembered (``blocking()``).
- ``set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None,
  bind_file=None)``, ``dispatch_threads_num(n)``, ``set_memory(init_size=..., ...)``,
  ``set_kernel_launch_group(thread_num, kernel_group_num)``: checked as MindSpore checks
  them (TypeError/ValueError naming the argument; ``set_cpu_affinity`` twice is a
  RuntimeError, as there), then kept in ``settings()``; they tune nothing here.
- The memory queries (``memory_allocated()`` ... ``memory_stats()``) report MindSpore's CPU
  answers: no device memory pool, so zeros; the resets and ``empty_cache()`` do nothing.
"""

from __future__ import annotations

import re
from typing import Any

_settings: dict[str, Any] = {"launch_blocking": False}
_SIZE = re.compile(r"^\d+(\.\d+)?GB$")


def launch_blocking() -> None:
    """Run every kernel synchronously (they already do here)."""
    _settings["launch_blocking"] = True


def blocking() -> bool:
    """Whether ``launch_blocking()`` was called."""
    return bool(_settings["launch_blocking"])


def synchronize() -> None:
    """Wait for every launched kernel (none is ever pending here)."""


def settings() -> dict[str, Any]:
    """What the calls above asked for (a copy)."""
    return dict(_settings)


def _check_bool(name: str, value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be a bool, got {type(value).__name__}")
    return value


def set_cpu_affinity(enable_affinity: bool, affinity_cpu_list: Any = None,
                     module_to_cpu_dict: Any = None, bind_file: Any = None) -> None:
    """MindSpore's thread-to-core binding: checked and kept (no binding here)."""
    where = "runtime.set_cpu_affinity"
    if "cpu_affinity" in _settings:
        raise RuntimeError(f"The 'mindspore.{where}' cannot be set repeatedly.")
    _check_bool("enable_affinity", enable_affinity, where)
    if affinity_cpu_list is not None and not isinstance(affinity_cpu_list, list):
        raise TypeError(f"{where}: affinity_cpu_list must be a list of 'a-b' ranges, got "
                        f"{type(affinity_cpu_list).__name__}")
    if module_to_cpu_dict is not None and not isinstance(module_to_cpu_dict, dict):
        raise TypeError(f"{where}: module_to_cpu_dict must be a dict, got "
                        f"{type(module_to_cpu_dict).__name__}")
    _settings["cpu_affinity"] = {"enable_affinity": enable_affinity,
                                 "affinity_cpu_list": affinity_cpu_list,
                                 "module_to_cpu_dict": module_to_cpu_dict, "bind_file": bind_file}


def dispatch_threads_num(threads_num: int) -> None:
    """The number of PyNative dispatch threads: checked and kept."""
    if isinstance(threads_num, bool) or not isinstance(threads_num, int) or threads_num < 1:
        raise ValueError(f"runtime.dispatch_threads_num: threads_num must be a positive int, "
                         f"got {threads_num!r}")
    _settings["dispatch_threads_num"] = threads_num


def set_memory(init_size: str = "2GB", increase_size: str = "2GB", max_size: str = "1024GB",
               optimize_level: str = "O0", huge_page_reserve_size: str = "0GB") -> None:
    """The device memory pool's sizes (``"2GB"``...): checked and kept."""
    sizes = {"init_size": init_size, "increase_size": increase_size, "max_size": max_size,
             "huge_page_reserve_size": huge_page_reserve_size}
    for name, value in sizes.items():
        if not isinstance(value, str) or not _SIZE.match(value):
            raise ValueError(f"runtime.set_memory: {name} must be a size like '2GB', got {value!r}")
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"runtime.set_memory: optimize_level must be 'O0' or 'O1', got "
                         f"{optimize_level!r}")
    _settings["memory"] = {**sizes, "optimize_level": optimize_level}


def set_kernel_launch_group(thread_num: int = 2, kernel_group_num: int = 8) -> None:
    """Parallel kernel launch groups: checked and kept."""
    for name, value in (("thread_num", thread_num), ("kernel_group_num", kernel_group_num)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"runtime.set_kernel_launch_group: {name} must be a positive int, "
                             f"got {value!r}")
    _settings["kernel_launch_group"] = (thread_num, kernel_group_num)


# -- memory queries: MindSpore's CPU answers ----------------------------------------------
def memory_allocated() -> int:
    return 0


def max_memory_allocated() -> int:
    return 0


def memory_reserved() -> int:
    return 0


def max_memory_reserved() -> int:
    return 0


def memory_stats() -> dict[str, Any]:
    pool = {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}}
    return {"total_reserved_memory": 0, "total_allocated_memory": 0, "total_idle_memory": 0,
            "total_eager_free_memory": 0, "max_reserved_memory": 0, "max_allocated_memory": 0,
            "common_mem_pool_stats": dict(pool), "persistent_mem_pool_stats": dict(pool)}


def memory_summary() -> str:
    return "no device memory pool (memory is host memory): 0 bytes allocated"


def empty_cache() -> None:
    """Release cached device memory (none is cached here)."""


def reset_peak_memory_stats() -> None:
    """Reset the peaks (always 0 here)."""


reset_max_memory_allocated = reset_max_memory_reserved = reset_peak_memory_stats

__all__ = ["dispatch_threads_num", "empty_cache", "launch_blocking", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "memory_summary", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "reset_peak_memory_stats", "set_cpu_affinity", "set_kernel_launch_group", "set_memory",
           "synchronize"]
