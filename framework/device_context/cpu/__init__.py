"""``mindspore.device_context.cpu``: the CPU backend, always available, one device;
``threads_num`` is :func:`.op_tuning.threads_num`."""

from framework import absent_names as _absent_names

from . import op_tuning  # noqa: F401  (device_context.cpu.op_tuning)
from .op_tuning import threads_num


def is_available() -> bool:
    """The CPU backend is always here."""
    return True


def device_count() -> int:
    """One CPU device (MindSpore counts the host as one)."""
    return 1


__all__ = ["device_count", "is_available", "threads_num"]

__getattr__ = _absent_names.module_getattr("device_context.cpu", __name__)
