"""Checks made before the first training step, so that bad input fails in seconds, not at
the end of a run: every output location is writable, the labels fit the model's classes.

Each failure is an :class:`InputError` (the CLI exits with status 2) whose one line names
the setting, the place and the fix.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from framework._io import disk_full


class InputError(ValueError):
    """Bad input found before training: a location that cannot be written, labels that do
    not fit the model."""


# Places a run can do without (trainer/plan.py's output_places names them so): their disk
# being full is no error; the file not written is warned about once when it happens (the
# kernels are then compiled in memory, the IR dump is skipped).
OPTIONAL_PLACES = ("compiled-kernel cache", "IR folder")


def check_writable(path: str | os.PathLike, what: str, fix: str, optional: bool = False) -> Path:
    """Create ``path`` (a folder) if needed and prove that a file can be written in it
    (``optional``: a full disk there is no error)."""
    folder = Path(path).expanduser()
    for parent in (folder, *folder.parents):
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{what} {folder}: {parent} is a file, not a folder; {fix}")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-check-", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        if optional and disk_full(error):
            return folder
        reason = error.strerror or type(error).__name__
        raise InputError(f"{what} {folder} is not writable ({reason}); {fix}") from None
    return folder


def sqlite_folder(uri: str) -> Path | None:
    """The folder of a ``sqlite:///path`` store or a ``file:`` / plain-path store."""
    if uri.startswith("sqlite:///"):
        return Path(uri[len("sqlite:///"):]).parent
    if uri.startswith("file:"):
        return Path(uri[len("file:"):].removeprefix("//"))
    if "://" not in uri:
        return Path(uri)
    return None  # a server: reachability is checked when the run starts (offline fallback)


def check_outputs(places: Iterable[tuple[str | os.PathLike | None, str, str]]) -> None:
    """``places``: (folder or None to skip, what it is, how to change it)."""
    for folder, what, fix in places:
        if folder is not None:
            check_writable(folder, what, fix, optional=what in OPTIONAL_PLACES)


def label_range(loader: Any) -> tuple[int, int] | None:
    labels = getattr(loader, "labels", None)
    if labels is None or not len(labels):
        return None
    values = np.asarray(labels)
    return int(values.min()), int(values.max())


def check_labels(loaders: dict[str, Any], num_classes: int, dataset: str) -> None:
    """Every label of every split must be a class of the model: ``0 <= label < num_classes``."""
    for split, loader in loaders.items():
        found = label_range(loader)
        if found is None:
            continue
        low, high = found
        if low < 0:
            raise InputError(f"dataset {dataset!r} ({split}) has negative labels (smallest {low}); labels "
                             "must be class indices 0..num_classes-1: relabel the data")
        if high >= num_classes:
            raise InputError(
                f"dataset {dataset!r} ({split}) has labels {low}..{high} ({high + 1} classes) but "
                f"model.num_classes is {num_classes}; set model.num_classes: {max(high + 1, 1)}")


def check_accumulation(accumulate: int, epochs: int, steps_per_epoch: int | None) -> None:
    """Warn when ``train.accumulate_grad_batches`` is more than the run's steps: the
    optimizer would never step (the run would train nothing)."""
    if accumulate <= 1 or steps_per_epoch is None:
        return
    total = epochs * steps_per_epoch
    if accumulate > total:
        import warnings

        warnings.warn(f"train.accumulate_grad_batches is {accumulate} but the run has {total} steps "
                      f"({epochs} epoch(s) of {steps_per_epoch}): the optimizer never steps and the "
                      f"weights stay as initialized; lower it to {total} or less", stacklevel=2)
