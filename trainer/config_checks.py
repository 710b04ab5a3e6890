"""Value checks of an experiment config that go beyond types (``check_values``, called by
trainer/config.py's ``load_config``): every key's range, and

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
import difflib
import math
import re
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

MAX_COUNT = 10**6  # epochs, batch size, classes ... beyond any real run
EARLY_STOPPING_MONITORS = ("eval_accuracy", "eval_loss", "loss", "train_accuracy")
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


def check_values(cfg: Any, where: Any, ConfigError: type) -> None:  # noqa: N803 - the class
    """Every key's range (``ConfigError`` naming it and ``file:line``); resolves
    ``optimizer.momentum``'s default, so the record shows the value used."""

    def bad(path: tuple, rule: str, value: Any) -> Exception:
        return ConfigError(f"{where(path)}: '{'.'.join(path)}' must be {rule}, got {value!r}")

    check_config(cfg, where, ConfigError)  # finite numbers, a name below checkpoints/, model.name

    positive = {("dataset", "batch_size"): cfg.dataset.batch_size, ("train", "epochs"): cfg.train.epochs,
                ("train", "eval_every"): cfg.train.eval_every, ("train", "log_every"): cfg.train.log_every,
                ("train", "accumulate_grad_batches"): cfg.train.accumulate_grad_batches,
                ("checkpoint", "keep_max"): cfg.checkpoint.keep_max,
                ("model", "num_classes"): cfg.model.num_classes,
                ("model", "num_channel"): cfg.model.num_channel, ("dist", "nproc"): cfg.dist.nproc}
    for path, value in positive.items():
        if value < 1:
            raise bad(path, ">= 1", value)
        if value > MAX_COUNT:  # a typo: no run takes it, and per-step tables would not fit
            raise bad(path, f"at most {MAX_COUNT:,}", value)
    if cfg.dist.timeout is not None and not cfg.dist.timeout > 0:
        raise bad(("dist", "timeout"), "> 0 seconds (or null)", cfg.dist.timeout)
    if not cfg.name.strip() or cfg.name.strip(".") == "" or "\0" in cfg.name:
        raise bad(("name",), "a non-empty run name (it names folders: checkpoints/<name>)", cfg.name)
    if not 0 <= cfg.seed < 2**32:
        raise bad(("seed",), "in [0, 2**32)", cfg.seed)
    if cfg.checkpoint.save_steps is not None and cfg.checkpoint.save_steps < 0:
        raise bad(("checkpoint", "save_steps"), ">= 0 (0: save at the end only) or null",
                  cfg.checkpoint.save_steps)
    if cfg.checkpoint.save_seconds is not None and cfg.checkpoint.save_seconds <= 0:
        raise bad(("checkpoint", "save_seconds"), "> 0 or null", cfg.checkpoint.save_seconds)
    if cfg.dataset.resize is not None and cfg.dataset.resize < 1:
        raise bad(("dataset", "resize"), ">= 1 (pixels) or null for no resizing", cfg.dataset.resize)
    if cfg.optimizer.momentum is None:  # resolved here, so the record shows the value used
        cfg.optimizer.momentum = 0.0 if cfg.optimizer.name == "rmsprop" else 0.9
    if not 0 <= cfg.optimizer.decay < 1:
        raise bad(("optimizer", "decay"), "in [0, 1)", cfg.optimizer.decay)
    for path, value in ((("optimizer", "momentum"), cfg.optimizer.momentum),
                        (("optimizer", "weight_decay"), cfg.optimizer.weight_decay)):
        if value < 0:
            raise bad(path, ">= 0", value)
    for path, value in ((("checkpoint", "dir"), cfg.checkpoint.dir), (("ir", "dir"), cfg.ir.dir)):
        if value is not None and (not value.strip() or Path(value).expanduser().is_file()):
            raise bad(path, "a folder (it is a file)" if value.strip() else "a folder path", value)
    if cfg.optimizer.learning_rate <= 0:
        raise ConfigError(f"{where(('optimizer', 'learning_rate'))}: 'optimizer.learning_rate' must be "
                          f"> 0, got {cfg.optimizer.learning_rate}")
    for path, value in ((("dataset", "limit"), cfg.dataset.limit),
                        (("dataset", "test_limit"), cfg.dataset.test_limit)):
        if value is not None and value < 1:
            raise ConfigError(f"{where(path)}: '{'.'.join(path)}' must be >= 1 or null, got {value}")
    norm = cfg.dataset.normalize
    if norm is not None and (len(norm) != 2 or not all(
            np.all(np.asarray(norm[1]) > 0) and np.shape(v) in ((), np.shape(norm[1])) for v in norm)):
        raise bad(("dataset", "normalize"), "[mean, std] with std > 0 (numbers, or one list per "
                  "channel each: [[m1, m2, m3], [s1, s2, s3]])", norm)
    if cfg.optimizer.clip_grad_norm is not None and not cfg.optimizer.clip_grad_norm > 0:
        raise bad(("optimizer", "clip_grad_norm"), "> 0 or null", cfg.optimizer.clip_grad_norm)
    if not 0 <= cfg.loss.label_smoothing < 1:
        raise bad(("loss", "label_smoothing"), "in [0, 1)", cfg.loss.label_smoothing)
    stop = cfg.train.early_stopping
    best = cfg.checkpoint.keep_best
    if best is not None and best.replace("/", "_") not in EARLY_STOPPING_MONITORS:
        close = difflib.get_close_matches(best, EARLY_STOPPING_MONITORS, n=1)
        raise bad(("checkpoint", "keep_best"), " or ".join(EARLY_STOPPING_MONITORS)
                  + (f" (did you mean '{close[0]}'?)" if close else ""), best)
    if stop.monitor is not None and stop.monitor.replace("/", "_") not in EARLY_STOPPING_MONITORS:
        close = difflib.get_close_matches(stop.monitor, EARLY_STOPPING_MONITORS, n=1)
        raise bad(("train", "early_stopping", "monitor"), " or ".join(EARLY_STOPPING_MONITORS)
                  + (f" (did you mean '{close[0]}'?)" if close else ""), stop.monitor)
    if stop.patience < 0:
        raise bad(("train", "early_stopping", "patience"), ">= 0", stop.patience)
    from .schedule import check_schedule

    try:
        check_schedule(cfg.optimizer.schedule, cfg.optimizer.learning_rate, cfg.train.epochs)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"{where(('optimizer', 'schedule'))}: 'optimizer.schedule' "
                          f"({cfg.optimizer.schedule.name}): {error}") from None
    try:
        import framework as ms

        ms.set_context(tuning=cfg.graph.tuning)
        ms.set_context(tuning="off")
    except ValueError as error:
        raise ConfigError(f"{where(('graph', 'tuning'))}: 'graph.tuning': {error}") from None
