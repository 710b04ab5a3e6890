"""CheckpointConfig: when ModelCheckpoint saves and how many files it keeps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_APPEND_NAMES = ("epoch_num", "step_num")


def _check_count(name: str, value: Any, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"CheckpointConfig: {name} must be a number >= 0, got {value!r}")


_MINDSPORE_OPTIONS = frozenset({"integrated_save", "async_save", "saved_network", "enc_key", "enc_mode",
                                "exception_save", "format"})


def _check_options(save_checkpoint_steps: Any, save_checkpoint_seconds: Any, keep_checkpoint_max: Any,
                   keep_checkpoint_per_n_minutes: Any, append_info: Any,
                   mindspore_options: Mapping[str, Any]) -> None:
    """Validate :class:`CheckpointConfig`'s arguments (the first error found is raised)."""
    for name, value in (("save_checkpoint_steps", save_checkpoint_steps),
                        ("save_checkpoint_seconds", save_checkpoint_seconds),
                        ("keep_checkpoint_max", keep_checkpoint_max),
                        ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
        _check_count(name, value)
    if save_checkpoint_steps is not None and not isinstance(save_checkpoint_steps, int):
        raise ValueError(f"CheckpointConfig: save_checkpoint_steps must be an int, got "
                         f"{save_checkpoint_steps!r}")
    _check_append_info(append_info)
    unknown = set(mindspore_options) - _MINDSPORE_OPTIONS
    if unknown:
        raise TypeError(f"CheckpointConfig: unknown option(s) {', '.join(sorted(unknown))}")


def _check_append_info(append_info: Any) -> None:
    """Each ``append_info`` item is ``"epoch_num"``, ``"step_num"`` or a dict."""
    for item in append_info or []:
        if not (item in _APPEND_NAMES or isinstance(item, Mapping)):
            raise ValueError(f"CheckpointConfig: append_info items are {' or '.join(_APPEND_NAMES)} "
                             f"or dicts, got {item!r}")


@dataclass
class CheckpointConfig:
    """``CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
    keep_checkpoint_per_n_minutes=0, append_info=None)``.

    - A checkpoint is written every ``save_checkpoint_steps`` global steps and/or when
      ``save_checkpoint_seconds`` have passed since the last one (give only seconds for
      time-based saving; steps default to 1 only when neither is given). One is also
      written when training ends (or is interrupted) past the last save.
    - ``keep_checkpoint_max`` newest files are kept (0 or None: all). With
      ``keep_checkpoint_per_n_minutes`` > 0, one checkpoint per that many minutes is
      kept as well, whatever the maximum (MindSpore lets the maximum win instead).
    - ``append_info``: ``"epoch_num"``, ``"step_num"`` and/or dicts of JSON values, stored
      in each file's metadata under ``append_info``.
    """

    save_checkpoint_steps: int | None = None
    save_checkpoint_seconds: float = 0
    keep_checkpoint_max: int | None = 5
    keep_checkpoint_per_n_minutes: float = 0
    append_info: list[Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)  # other MindSpore options, unused

    def __init__(self, save_checkpoint_steps: int | None = None, save_checkpoint_seconds: float = 0,
                 keep_checkpoint_max: int | None = 5, keep_checkpoint_per_n_minutes: float = 0,
                 append_info: list[Any] | None = None, **mindspore_options: Any) -> None:
        _check_options(save_checkpoint_steps, save_checkpoint_seconds, keep_checkpoint_max,
                       keep_checkpoint_per_n_minutes, append_info, mindspore_options)
        if save_checkpoint_steps is None and not save_checkpoint_seconds:
            save_checkpoint_steps = 1
        self.save_checkpoint_steps = save_checkpoint_steps or None
        self.save_checkpoint_seconds = float(save_checkpoint_seconds or 0)
        self.keep_checkpoint_max = keep_checkpoint_max or None
        self.keep_checkpoint_per_n_minutes = float(keep_checkpoint_per_n_minutes or 0)
        self.append_info = list(append_info or [])
        self.extra = dict(mindspore_options)

    def appended(self, epoch: int, global_step: int) -> dict[str, Any]:
        """The ``append_info`` values for a checkpoint written at ``epoch``/``global_step``."""
        out: dict[str, Any] = {}
        for item in self.append_info or []:
            if item == "epoch_num":
                out["epoch_num"] = epoch
            elif item == "step_num":
                out["step_num"] = global_step
            else:
                out.update(dict(item))
        return out
