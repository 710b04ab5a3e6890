"""Value checks of an experiment config beyond its types (``check_values``, called by
trainer/config.py's ``load_config`` once the schema has typed it). Pure: they read the
config and raise, never change it nor the framework's context. Every key's range, and

- every number of the schema is finite: YAML's ``.nan`` and ``.inf`` pass a type check and
  every ``< 0`` comparison (``model.args`` and ``dataset.args`` are the user's, unchecked);
- ``name`` names folders (``checkpoints/<name>``, ``ir/<name>``): a relative path that stays
  below them (no ``..`` part, not absolute), short enough for a file name, no control
  characters;
- ``model.name`` is a registered model (without ``model.class``).

Each check returns ``None`` or a problem ``(key path, message)``; the first problem, in the
order of ``CHECKS``, is the :class:`ConfigError` naming the key and ``file:line``.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from .config_errors import ConfigError, Where

MAX_COUNT = 10**6  # epochs, batch size, classes ... beyond any real run


def monitor_key(name: str) -> str:
    """The ``run_context.metrics`` key of a monitored metric as the YAML names it:
    ``eval/accuracy`` and ``val/loss`` -> ``eval_accuracy``, ``eval_loss``."""
    key = name.replace("/", "_")
    return "eval_" + key[4:] if key.startswith("val_") else key
MAX_RESIZE = 4096  # pixels a side: 4096 x 4096 images are 64 MiB each as float32
# checkpoint files are <name>-<epoch>_<step>.ckpt or <name>-step-<N>.ckpt: within a 255-byte file name
MAX_NAME = 150
_USER_ARGS = ("args",)  # the user's own keyword arguments (model.args, dataset.args)
COUNTS = (("dataset", "batch_size"), ("train", "epochs"), ("train", "eval_every"),
          ("train", "log_every"), ("train", "accumulate_grad_batches"), ("checkpoint", "keep_max"),
          ("model", "num_classes"), ("model", "num_channel"), ("dist", "nproc"),
          ("dataset", "block_size"), ("train", "eval_every_steps"), ("train", "eval_batches"))

Problem = tuple[tuple[str, ...], str]  # (key path, "'key' must be ..., got ...")
Check = Callable[[Any], Problem | None]


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
    the rule "a non-empty run name" below)."""
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


def tuning_ok(value: Any) -> bool:
    """``graph.tuning`` as ``ms.set_context(tuning=)`` takes it: 'off', a number of trials
    per task, or a time budget '<N>s' (checked without setting the context)."""
    from framework.context import check_context

    if isinstance(value, int) and value > MAX_COUNT:  # trials per task
        return False
    try:
        check_context(tuning=value)
    except ValueError:
        return False
    return True


def normalize_ok(norm: Any) -> bool:
    """``[mean, std]`` numbers, or one list per channel each, with every std > 0 (or null)."""
    return norm is None or len(norm) == 2 and all(
        np.all(np.asarray(norm[1]) > 0) and np.shape(v) in ((), np.shape(norm[1])) for v in norm)


# -- the checks ---------------------------------------------------------------------------------
def _get(cfg: Any, path: tuple) -> Any:
    for key in path:
        cfg = getattr(cfg, key)
    return cfg


def _must(path: tuple, rule: str, value: Any) -> Problem:
    return path, f"'{'.'.join(path)}' must be {rule}, got {value!r}"


def _rule(path: tuple, ok: Callable[[Any], bool], rule: str) -> Check:
    """The check that the value at ``path`` is ``ok``, else "must be ``rule``"."""
    def check(cfg: Any) -> Problem | None:
        value = _get(cfg, path)
        return None if ok(value) else _must(path, rule, value)
    return check


def _optional(ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or ok(value)


def _count(path: tuple) -> Check:
    def check(cfg: Any) -> Problem | None:
        value = _get(cfg, path)
        if value < 1:
            return _must(path, ">= 1", value)
        if value > MAX_COUNT:  # a typo: no run takes it, and per-step tables would not fit
            return _must(path, f"at most {MAX_COUNT:,}", value)
        return None
    return check


def _monitor(path: tuple) -> Check:
    def check(cfg: Any) -> Problem | None:
        value = _get(cfg, path)
        names = TASK_SCHEMAS[cfg.task].monitors
        if value is None or value.replace("/", "_") in names:
            return None
        close = difflib.get_close_matches(value, names, n=1)
        return _must(path, " or ".join(names) + (f" (did you mean '{close[0]}'?)" if close else ""), value)
    return check


def _finite(cfg: Any) -> Problem | None:
    found = non_finite(cfg)
    if found is None:
        return None
    key, value = found
    return _must(key, "finite numbers" if isinstance(value, list) else "a finite number", value)


def _folder_name(cfg: Any) -> Problem | None:
    problem = name_problem(cfg.name)
    if problem is None:
        return None
    shown = cfg.name if len(cfg.name) <= 60 else f"{cfg.name[:40]}... ({len(cfg.name)} characters)"
    return ("name",), f"'name' must be {problem}, got {shown!r}"


# The tasks' schema facts, registered by trainer/tasks/ when it is imported (trainer/__init__.py
# imports it first; the schema layer never imports the tasks): task name -> an object with
# ``keys`` (the YAML keys only that task takes), ``check(config)`` and ``models`` (its zoo).
TASK_SCHEMAS: dict[str, Any] = {}


def _model_name(cfg: Any) -> Problem | None:
    models = TASK_SCHEMAS[cfg.task].models
    if cfg.model.class_ is not None or cfg.model.name in models:
        return None
    close = difflib.get_close_matches(cfg.model.name, models, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return ("model", "name"), (f"'model.name' must be one of {', '.join(sorted(models))}{hint}, or use "
                               f"model.class for your own network; got {cfg.model.name!r}")


def _task(cfg: Any) -> Problem | None:
    return TASK_SCHEMAS[cfg.task].check(cfg)


def _folders(cfg: Any) -> Problem | None:
    for path in (("checkpoint", "dir"), ("ir", "dir")):
        value = _get(cfg, path)
        if value is not None and (not value.strip() or Path(value).expanduser().is_file()):
            return _must(path, "a folder (it is a file)" if value.strip() else "a folder path", value)
    return None


def _schedule(cfg: Any) -> Problem | None:
    from .schedule import check_schedule

    try:
        if TASK_SCHEMAS[cfg.task].by_steps:  # a schedule in steps
            from .schedule import step_lrs

            step_lrs(cfg.optimizer.schedule, cfg.optimizer.learning_rate, cfg.train.max_steps or 1)
        else:
            check_schedule(cfg.optimizer.schedule, cfg.optimizer.learning_rate, cfg.train.epochs)
    except (ValueError, TypeError) as error:
        return ("optimizer", "schedule"), f"'optimizer.schedule' ({cfg.optimizer.schedule.name}): {error}"
    return None


def precision_problem(cfg: Any) -> Problem | None:
    """fp16 trains with dynamic loss scaling (float16's range); the gradient-accumulation and
    clipping train steps do not scale the loss, so fp16 with them would underflow."""
    if cfg.precision != "fp16":
        return None
    for path, used in ((("train", "accumulate_grad_batches"), cfg.train.accumulate_grad_batches > 1),
                       (("optimizer", "clip_grad_norm"), cfg.optimizer.clip_grad_norm is not None)):
        if used:
            return ("precision",), (f"'precision: fp16' needs loss scaling, which '{'.'.join(path)}' does "
                                    "not do; use precision: bf16 with it (or fp32)")
    return None


CHECKS: tuple[Check, ...] = (
    _finite, _folder_name, _model_name, *(_count(path) for path in COUNTS),
    _rule(("dist", "timeout"), _optional(lambda v: v > 0), "> 0 seconds (or null)"),
    _rule(("name",), lambda v: bool(v.strip() and v.strip(".")) and "\0" not in v,
          "a non-empty run name (it names folders: checkpoints/<name>)"),
    _rule(("seed",), lambda v: 0 <= v < 2**32, "in [0, 2**32)"),
    _rule(("checkpoint", "save_steps"), _optional(lambda v: v >= 0),
          ">= 0 (0: save at the end only) or null"),
    _rule(("checkpoint", "save_seconds"), _optional(lambda v: v > 0), "> 0 or null"),
    _rule(("dataset", "resize"), _optional(lambda v: v >= 1), ">= 1 (pixels) or null for no resizing"),
    _rule(("dataset", "resize"), _optional(lambda v: v <= MAX_RESIZE),
          f"at most {MAX_RESIZE} (pixels a side) or null for no resizing"),
    _rule(("optimizer", "decay"), lambda v: 0 <= v < 1, "in [0, 1)"),
    _rule(("optimizer", "momentum"), _optional(lambda v: v >= 0), ">= 0"),  # null: resolved later
    _rule(("optimizer", "weight_decay"), lambda v: v >= 0, ">= 0"),
    _folders,
    _rule(("optimizer", "learning_rate"), lambda v: v > 0, "> 0"),
    _rule(("dataset", "limit"), _optional(lambda v: v >= 1), ">= 1 or null"),
    _rule(("dataset", "test_limit"), _optional(lambda v: v >= 1), ">= 1 or null"),
    _rule(("dataset", "normalize"), normalize_ok, "[mean, std] with std > 0 (numbers, or one list per "
          "channel each: [[m1, m2, m3], [s1, s2, s3]])"),
    _rule(("optimizer", "clip_grad_norm"), _optional(lambda v: v > 0), "> 0 or null"),
    _rule(("loss", "label_smoothing"), lambda v: 0 <= v < 1, "in [0, 1)"),
    _monitor(("checkpoint", "keep_best")),
    _monitor(("train", "early_stopping", "monitor")),
    _rule(("train", "early_stopping", "patience"), lambda v: v >= 0, ">= 0"),
    _rule(("train", "max_steps"), _optional(lambda v: 1 <= v <= 10**9), ">= 1 or null"),
    _rule(("optimizer", "beta1"), lambda v: 0 < v < 1, "in (0, 1)"),
    _rule(("optimizer", "beta2"), lambda v: 0 < v < 1, "in (0, 1)"),
    _rule(("optimizer", "eps"), _optional(lambda v: v > 0), "> 0 or null"),
    _task,
    _schedule,
    precision_problem,
    _rule(("graph", "tuning"), tuning_ok, f"'off', a number of trials per task (e.g. 16, at most "
          f"{MAX_COUNT:,}) or a time budget like '60s'"),
)


def first_problem(cfg: Any) -> Problem | None:
    """The first problem of a typed ``ExperimentConfig`` in the order of ``CHECKS``, or None."""
    return next((found for check in CHECKS if (found := check(cfg)) is not None), None)


def check_values(cfg: Any, where: Where) -> None:
    """Raise :class:`ConfigError` naming the key and ``where`` it was given for the first value
    out of its range; change nothing."""
    found = first_problem(cfg)
    if found is not None:
        path, message = found
        raise ConfigError(f"{where(path)}: {message}")
