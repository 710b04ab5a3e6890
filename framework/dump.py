"""MindSpore's ``set_dump``: mark a Cell or Primitive for the Ascend data dump. MindSpore's
CPU build warns that dumping needs Ascend and does nothing; this CPU framework does the same."""

from __future__ import annotations

import warnings
from typing import Any


def set_dump(target: Any, enabled: bool = True) -> None:
    """Warn that data dump needs an Ascend device (as MindSpore does on CPU)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"set_dump: enabled must be a bool, got {type(enabled).__name__}")
    warnings.warn("Current device_target is CPU, which is not supported by set_dump. Only Ascend "
                  "device target is supported currently.", stacklevel=2)
