"""Global execution context: mode, device target and IR dumping (``ms.set_context``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# Graph mode's syntax levels (MindSpore's values). Ours compiles one subset of Python
# whatever the level: the key is accepted, checked and kept for get_context.
STRICT, COMPATIBLE, LAX = 0, 1, 2
_JIT_LEVELS = ("O0", "O1", "O2")

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
    "jit_syntax_level": LAX,
    "jit_config": {},
    "jit_level": "",
    "profile": False,
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


def _check_jit_syntax_level(value: Any) -> int:
    if not isinstance(value, int):  # a bool passes, as in MindSpore (True is COMPATIBLE)
        raise TypeError(f"set_context: jit_syntax_level must be ms.STRICT, ms.COMPATIBLE or "
                        f"ms.LAX, got {value!r}")
    if value not in (STRICT, COMPATIBLE, LAX):
        raise ValueError(f"set_context: jit_syntax_level must be ms.STRICT ({STRICT}), "
                         f"ms.COMPATIBLE ({COMPATIBLE}) or ms.LAX ({LAX}), got {value!r}")
    return int(value)


def _check_jit_level(value: Any, key: str = "jit_level") -> str:
    """MindSpore's optimization levels; our graph mode runs one TVM pipeline for each."""
    if value != "" and value not in _JIT_LEVELS:  # "": the default, as MindSpore's
        raise ValueError(f"set_context: {key} must be one of {', '.join(_JIT_LEVELS)}, "
                         f"got {value!r}")
    return value


def _check_jit_config(value: Any) -> dict[str, str]:
    """``{"jit_level": "O0"|"O1"|"O2", "infer_boost": "on"|"off"}``, as MindSpore's."""
    if not isinstance(value, dict):
        raise TypeError(f"set_context: jit_config must be a dict, got {type(value).__name__}")
    allowed = {"jit_level": _JIT_LEVELS, "infer_boost": ("on", "off")}
    for key, item in value.items():
        if key not in allowed:
            raise ValueError(f"set_context: jit_config keys are {', '.join(allowed)}, got {key!r}")
        if item not in allowed[key]:
            raise ValueError(f"set_context: jit_config[{key!r}] must be one of "
                             f"{', '.join(allowed[key])}, got {item!r}")
    if value.get("infer_boost") == "on" and value.get("jit_level") in ("O1", "O2"):
        raise ValueError("set_context: jit_config infer_boost='on' needs jit_level 'O0', got "
                         f"{value['jit_level']!r}")
    return dict(value)


def _check_profile(value: Any) -> bool | int:
    """Graph-mode profiling (framework.profiler): False, True, or the calls to time per
    compiled function."""
    if isinstance(value, bool) or (isinstance(value, int) and value >= 0):
        return value
    raise ValueError(f"set_context: profile must be True, False or a number of calls to time "
                     f"(e.g. 20), got {value!r}")


_CHECKS = {
    "mode": _check_mode,
    "device_target": _check_device,
    "save_graphs": _check_save_graphs,
    "save_graphs_path": str,
    "tuning": _check_tuning,
    "jit_syntax_level": _check_jit_syntax_level,
    "jit_config": _check_jit_config,
    "jit_level": _check_jit_level,
    "profile": _check_profile,
}


def set_context(**kwargs: Any) -> None:
    """Set context keys: ``mode``, ``device_target``, ``save_graphs``, ``save_graphs_path``
    (IR dumps and ``analyze_fail.ir``; default ``rank_0/ir_dump``), ``tuning`` (graph-mode
    kernel tuning budget), ``profile`` (time graph mode's kernels by source line, see
    :mod:`framework.profiler`; True or the calls to time per compiled function); MindSpore's
    ``jit_syntax_level`` (``ms.STRICT``/``ms.COMPATIBLE``/
    ``ms.LAX``), ``jit_config`` (``{"jit_level": ..., "infer_boost": ...}``) and
    ``jit_level`` ('O0'/'O1'/'O2') are checked and kept, and change nothing: graph mode
    compiles one subset of Python through one TVM pipeline. As in MindSpore, a
    ``jit_config`` with a ``jit_level`` sets ``get_context("jit_level")`` too."""
    checked = check_context(**kwargs)
    if "jit_level" in checked.get("jit_config", {}) and "jit_level" not in checked:
        checked["jit_level"] = checked["jit_config"]["jit_level"]
    _context.update(checked)


def check_context(**kwargs: Any) -> dict[str, Any]:
    """The values ``set_context(**kwargs)`` would store, checked (``ValueError`` naming the
    key), without storing them."""
    unknown = sorted(set(kwargs) - set(_CHECKS))
    if unknown:
        raise ValueError(
            f"set_context: unknown key(s) {', '.join(unknown)}; valid keys are "
            f"{', '.join(_CHECKS)}"
        )
    return {key: _CHECKS[key](value) for key, value in kwargs.items()}


def get_context(key: str) -> Any:
    if key not in _context:
        raise ValueError(f"get_context: unknown key {key!r}; valid keys are {', '.join(_context)}")
    return _context[key]


@contextmanager
def pynative() -> Iterator[None]:
    """``with ms.pynative(): ...`` runs the block eagerly (PyNative) whatever the mode, and
    restores the mode after it: the one way the framework and the trainer say "run this
    eagerly" (a data check, a sample, the eager step)."""
    previous = _context["mode"]
    _context["mode"] = PYNATIVE_MODE
    try:
        yield
    finally:
        _context["mode"] = previous


# MindSpore keeps the parallel context in ``mindspore.context`` too
from .parallel_context import (  # noqa: E402
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "ParallelMode", "check_context", "get_auto_parallel_context",
           "get_context", "pynative", "reset_auto_parallel_context", "set_auto_parallel_context",
           "set_context"]
