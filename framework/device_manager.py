"""``ms.set_device`` / ``ms.get_current_device`` (MindSpore 2.10's ``mindspore.device_manager``).

Contracts: ``set_device(device_target, device_id=None)`` checks the target (a ValueError
unless 'CPU', 'GPU' or 'Ascend'; 'Ascend' is a RuntimeError: no such backend here), sets
``get_context("device_target")`` through ``set_context`` and keeps the device id (0 when
None). As in MindSpore, the device is chosen once: a second call asking for another
target or id is a RuntimeError (the same one again is fine). ``get_current_device()`` gives
``DeviceInfo(device_target, device_id)``, a named tuple, from the context.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .context import get_context, set_context


class DeviceInfo(NamedTuple):
    device_target: str
    device_id: int


_chosen: dict[str, Any] = {}


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Choose the device (once), as ``set_context(device_target=...)`` does."""
    if device_target not in ("CPU", "GPU", "Ascend"):
        raise ValueError(f"The argument 'device_target' must be one of ['CPU', 'GPU', 'Ascend'], "
                         f"but got {device_target}.")
    if device_id is not None and (isinstance(device_id, bool) or not isinstance(device_id, int)
                                  or device_id < 0):
        raise ValueError(f"set_device: device_id must be a non-negative int, got {device_id!r}")
    if device_target == "Ascend":
        raise RuntimeError("set_device: device_target 'Ascend' is not supported here (only 'CPU' "
                           "and 'GPU' are)")
    wanted = DeviceInfo(device_target, 0 if device_id is None else device_id)
    if _chosen and _chosen["device"] != wanted:
        raise RuntimeError("The 'mindspore.set_device' can not be modified.")
    set_context(device_target=device_target)
    _chosen["device"] = wanted


def get_current_device() -> DeviceInfo:
    """``DeviceInfo(device_target, device_id)`` of the current context."""
    chosen = _chosen.get("device")
    return DeviceInfo(get_context("device_target"), chosen.device_id if chosen else 0)


__all__ = ["DeviceInfo", "get_current_device", "set_device"]
