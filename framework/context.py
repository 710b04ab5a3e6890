"""Global execution context: mode, device target and IR dumping (``ms.set_context``)."""

from __future__ import annotations

import os
from typing import Any

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEVICE_TARGETS = ("CPU", "GPU")
# Where IR dumps and analyze_fail.ir go unless save_graphs_path says otherwise: a subfolder
# (as MindSpore's rank_0/...), never the working directory itself (a repository root).
DEFAULT_SAVE_GRAPHS_PATH = os.path.join("rank_0", "ir_dump")
_context: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "save_graphs": False,
    "save_graphs_path": DEFAULT_SAVE_GRAPHS_PATH,
    "tuning": "off",
}


def _check_mode(value: Any) -> int:
    if isinstance(value, bool) or value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(
            f"set_context: mode must be ms.GRAPH_MODE ({GRAPH_MODE}) or ms.PYNATIVE_MODE "
            f"({PYNATIVE_MODE}), got {value!r}"
        )
    return int(value)


def _check_device(value: Any) -> str:
    name = str(value).upper()
    if name == "CUDA":
        name = "GPU"
    if name not in _DEVICE_TARGETS:
        raise ValueError(f"set_context: device_target must be 'CPU' or 'GPU', got {value!r}")
    return name


def _check_save_graphs(value: Any) -> bool | int:
    if not isinstance(value, bool | int):
        raise ValueError(f"set_context: save_graphs must be a bool or an int level, got {value!r}")
    return value


def _check_tuning(value: Any) -> str | int:
    """Graph-mode kernel tuning budget: 'off', a number of trials per task, or '<N>s'."""
    if value == "off" or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    if isinstance(value, str) and value.endswith("s") and value[:-1].replace(".", "", 1).isdigit():
        return value
    raise ValueError(f"set_context: tuning must be 'off', a number of trials (e.g. 16) or a time "
                     f"budget like '60s', got {value!r}")


_CHECKS = {
    "mode": _check_mode,
    "device_target": _check_device,
    "save_graphs": _check_save_graphs,
    "save_graphs_path": str,
    "tuning": _check_tuning,
}


def set_context(**kwargs: Any) -> None:
    """Set context keys: ``mode``, ``device_target``, ``save_graphs``, ``save_graphs_path``
    (IR dumps and ``analyze_fail.ir``; default ``rank_0/ir_dump``), ``tuning`` (graph-mode
    kernel tuning budget)."""
    unknown = sorted(set(kwargs) - set(_CHECKS))
    if unknown:
        raise ValueError(
            f"set_context: unknown key(s) {', '.join(unknown)}; valid keys are "
            f"{', '.join(_CHECKS)}"
        )
    checked = {key: _CHECKS[key](value) for key, value in kwargs.items()}
    _context.update(checked)


def get_context(key: str) -> Any:
    if key not in _context:
        raise ValueError(f"get_context: unknown key {key!r}; valid keys are {', '.join(_context)}")
    return _context[key]


# MindSpore keeps the parallel context in ``mindspore.context`` too
from .parallel_context import (  # noqa: E402
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "ParallelMode", "get_auto_parallel_context", "get_context",
           "reset_auto_parallel_context", "set_auto_parallel_context", "set_context"]
