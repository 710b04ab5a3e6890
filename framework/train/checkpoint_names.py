"""Names of training checkpoint files, written and parsed in one place.

Two schemes share a folder's listing:

- ``<prefix>-<epoch>_<step in epoch>.ckpt`` (MindSpore's, ``lenet-1_1875.ckpt``): a run
  counted in epochs;
- ``<prefix>-step-<global step>.ckpt`` (``gpt-shakespeare-step-2000.ckpt``): a run counted
  in steps (a language model's ``train.max_steps``), whose "epochs" are only evaluation
  intervals.

A folder written before step names existed keeps its epoch-named files, and a resume
finds them as well: :func:`parse` reads both, and a checkpoint's own :class:`TrainState`,
not its name, says where the run stood.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_BY_EPOCH = re.compile(r"^(?P<prefix>.+)-(?P<epoch>\d+)_(?P<step>\d+)\.ckpt$")
_BY_STEP = re.compile(r"^(?P<prefix>.+)-step-(?P<step>\d+)\.ckpt$")


class ParsedName(NamedTuple):
    prefix: str
    order: tuple[int, int]  # (epoch, step in epoch), or (global step, 0) for a step name


def checkpoint_name(prefix: str, epoch: int, step_in_epoch: int, global_step: int | None = None) -> str:
    """``<prefix>-<epoch>_<step>.ckpt``; given ``global_step``, ``<prefix>-step-<N>.ckpt``."""
    if global_step is not None:
        return f"{prefix}-step-{global_step}.ckpt"
    return f"{prefix}-{epoch}_{step_in_epoch}.ckpt"


def parse(name: str) -> ParsedName | None:
    """The prefix of a checkpoint file name of either scheme (None: not a checkpoint's)."""
    match = _BY_STEP.match(name)
    if match:
        return ParsedName(match["prefix"], (int(match["step"]), 0))
    match = _BY_EPOCH.match(name)
    if match:
        return ParsedName(match["prefix"], (int(match["epoch"]), int(match["step"])))
    return None


def prefix_of(name: str) -> str | None:
    parsed = parse(name)
    return parsed.prefix if parsed else None
