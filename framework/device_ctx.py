"""MindSpore's ``DeviceCtx(name, device_id=None)``: ``with DeviceCtx("CPU"):`` places what
the block creates on that device. This framework computes on the CPU only, so the CPU
context is the one that runs; GPU, Ascend and "meta" (shape-only tensors) are refused
with one line on entry."""

from __future__ import annotations

from typing import Any

_TARGETS = ("CPU", "GPU", "Ascend", "meta")


class DeviceCtx:
    """Device context (``name``, ``device_id`` kept as given; checked on ``with``)."""

    def __init__(self, name: str, device_id: int | None = None) -> None:
        self.name = name
        self.device_id = device_id

    def __enter__(self) -> DeviceCtx:
        if self.name not in _TARGETS:
            raise ValueError(f"For DeviceCtx, the name must be one of {list(_TARGETS)}, but got {self.name}.")
        if self.device_id is not None and self.device_id < 0:
            raise ValueError("For DeviceCtx, the device_id must be greater than or equal to 0.")
        if self.name != "CPU":
            raise RuntimeError(f"DeviceCtx({self.name!r}): this framework computes on the CPU only; "
                               "use DeviceCtx('CPU')")
        return self

    def __exit__(self, *exc: Any) -> None:
        return None
