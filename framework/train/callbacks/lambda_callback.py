"""LambdaCallback: a callback made of plain functions (MindSpore's ``LambdaCallback``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import EVAL_HOOKS, TRAIN_HOOKS, Callback

_SHORT = {"begin": "on_train_begin", "epoch_begin": "on_train_epoch_begin",
          "step_begin": "on_train_step_begin", "step_end": "on_train_step_end",
          "epoch_end": "on_train_epoch_end", "end": "on_train_end"}


class LambdaCallback(Callback):
    """``LambdaCallback(on_train_step_end=lambda ctx: ..., ...)``: each function takes the
    run context. MindSpore's short names (``step_end=...``) mean the training hooks."""

    def __init__(self, **hooks: Callable[[Any], None] | None) -> None:
        for name, fn in hooks.items():
            hook = _SHORT.get(name, name)
            if hook not in TRAIN_HOOKS + EVAL_HOOKS:
                raise TypeError(f"LambdaCallback: unknown hook {name!r}; use one of "
                                f"{', '.join(TRAIN_HOOKS + EVAL_HOOKS)}")
            if fn is not None:
                setattr(self, hook, fn)
