"""Value checks of an experiment config that go beyond types (called by trainer/config.py's
``_check_values``, which owns the per-key ranges):

- every number of the schema is finite: YAML's ``.nan`` and ``.inf`` pass a type check and
  every ``< 0`` comparison (``model.args`` and ``dataset.args`` are the user's, unchecked);
- ``name`` names folders (``checkpoints/<name>``, ``ir/<name>``): a relative path that stays
  below them (no ``..`` part, not absolute), short enough for a file name, no control
  characters;
- ``model.name`` is a registered model (without ``model.class``).

Errors are :class:`trainer.config.ConfigError` naming the key and ``file:line``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import PurePosixPath
from typing import Any

MAX_NAME = 150  # checkpoint files are <name>-<epoch>_<step>.ckpt: within a 255-byte file name
_USER_ARGS = ("args",)  # the user's own keyword arguments (model.args, dataset.args)


def _numbers(value: Any) -> list[float]:
    """The floats in ``value`` (a number or nested lists of them)."""
    if isinstance(value, float):
        return [value]
    if isinstance(value, list | tuple):
        return [x for item in value for x in _numbers(item)]
    return []


def non_finite(section: Any, path: tuple = ()) -> tuple[tuple, Any] | None:
    """The first (dotted path, value) of a dataclass config holding NaN or +-inf, else None."""
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        key = path + (f.name.rstrip("_"),)
        if dataclasses.is_dataclass(value):
            found = non_finite(value, key)
            if found:
                return found
        elif f.name not in _USER_ARGS and any(not math.isfinite(x) for x in _numbers(value)):
            return key, value
    return None


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name the run's folders, or None (an empty or all-dots name is
    config.py's own error: "a non-empty run name")."""
    if not name.strip() or not name.strip("."):
        return None
    if re.search(r"[\x00-\x1f\x7f]", name):
        return "without control characters"
    if len(name) > MAX_NAME:
        return f"at most {MAX_NAME} characters long (it names files: checkpoints/<name>/<name>-1_1.ckpt)"
    if name.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "a relative name (it names folders below checkpoints/ and ir/; checkpoint.dir sets a folder)"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return "a name without '..' parts (it names folders below checkpoints/ and ir/)"
    return None


def safe_component(text: str, limit: int = 100) -> str:
    """``text`` as one file-name part: path separators and odd characters as ``_``."""
    cleaned = re.sub(r"[^\w.+=@-]", "_", text)[:limit].lstrip(".")
    return cleaned or "run"


def check_config(cfg: Any, where: Any, error: type[Exception]) -> None:
    """The checks above on a built ``ExperimentConfig``."""
    found = non_finite(cfg)
    if found is not None:
        key, value = found
        what = "finite numbers" if isinstance(value, list) else "a finite number"
        raise error(f"{where(key)}: '{'.'.join(key)}' must be {what}, got {value!r}")
    problem = name_problem(cfg.name)
    if problem:
        shown = cfg.name if len(cfg.name) <= 60 else f"{cfg.name[:40]}... ({len(cfg.name)} characters)"
        raise error(f"{where(('name',))}: 'name' must be {problem}, got {shown!r}")
    if cfg.model.class_ is None:
        from .models import MODELS

        if cfg.model.name not in MODELS:
            import difflib

            close = difflib.get_close_matches(cfg.model.name, MODELS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise error(f"{where(('model', 'name'))}: 'model.name' must be one of "
                        f"{', '.join(sorted(MODELS))}{hint}, or use model.class for your own network; "
                        f"got {cfg.model.name!r}")
