"""``mindspore.device_context.cpu.op_tuning``: ``threads_num(num)``, the number of threads
CPU kernels may use (checked as MindSpore checks it; kept in :mod:`framework.runtime`'s
settings, where ``runtime`` reports it; like MindSpore's, it may be set once)."""

from framework import absent_names as _absent_names
from framework import runtime as _runtime


def threads_num(num: int) -> None:
    """Set the number of threads for CPU kernels (a positive int), once per process, as
    MindSpore allows."""
    if "cpu_threads_num" in _runtime._settings:
        raise RuntimeError("The 'threads_num' can not be set repeatedly.")
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"device_context.cpu.op_tuning.threads_num: num must be a positive int, "
                         f"got {num!r}")
    _runtime._settings["cpu_threads_num"] = num


__all__ = ["threads_num"]

__getattr__ = _absent_names.module_getattr("device_context.cpu.op_tuning", __name__)
