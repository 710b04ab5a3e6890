"""Callback protocol (MindSpore's ``Callback``) and the list that dispatches to callbacks.

Override any of these; each receives the :class:`~framework.train.context.RunContext`:

- training: ``on_train_begin``, ``on_train_epoch_begin``, ``on_train_step_begin``,
  ``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end``
- evaluation: ``on_eval_begin``, ``on_eval_epoch_begin``, ``on_eval_step_begin``,
  ``on_eval_step_end``, ``on_eval_epoch_end``, ``on_eval_end``

The short names ``begin``, ``epoch_begin``, ``step_begin``, ``step_end``, ``epoch_end``
and ``end`` are MindSpore's older spelling: by default each ``on_train_*`` hook calls the
matching short one, so callbacks written either way work. The ``on_eval_*`` hooks do
nothing by default (in MindSpore they also call the short names, which makes a
training callback run during ``fit``'s validation; here it does not).

Callbacks run by named phase (:data:`PHASES`), in list order within a phase: ``lr`` (set
the learning rate before the step), ``default`` (user callbacks, recorders), ``metrics``
(fill in the epoch's metrics), ``monitor`` (watch a metric: early stopping, keep-best, a
sweep's pruning), ``log`` (progress, MLflow), ``save`` (ModelCheckpoint: last, so each file
holds the other callbacks' state of the same step). A callback whose progress must survive
a resume defines ``state_dict()`` and ``load_state_dict(state)`` (JSON data), stored in each
checkpoint under its ``state_key`` (default: the class name; a second callback of the same
key gets ``#2``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..context import RunContext

TRAIN_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin",
               "on_train_step_end", "on_train_epoch_end", "on_train_end")
EVAL_HOOKS = ("on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
              "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")
PHASES = ("lr", "default", "metrics", "monitor", "log", "save")


class Callback:
    """Base class: override the hooks you need (all default to doing nothing).

    ``phase`` (one of :data:`PHASES`) places the callback among the others; ``state_key``
    names its state in checkpoints (default: the class name).
    """

    phase: str = "default"
    state_key: str | None = None

    # -- MindSpore's short names (training) ------------------------------------------------
    def begin(self, run_context: RunContext) -> None:
        pass

    def epoch_begin(self, run_context: RunContext) -> None:
        pass

    def step_begin(self, run_context: RunContext) -> None:
        pass

    def step_end(self, run_context: RunContext) -> None:
        pass

    def epoch_end(self, run_context: RunContext) -> None:
        pass

    def end(self, run_context: RunContext) -> None:
        pass

    # -- training ------------------------------------------------------------------------------
    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    # -- evaluation ----------------------------------------------------------------------------
    def on_eval_begin(self, run_context: RunContext) -> None:
        pass

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        pass

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        pass

    def on_eval_step_end(self, run_context: RunContext) -> None:
        pass

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        pass

    def on_eval_end(self, run_context: RunContext) -> None:
        pass

    # -- context-manager protocol (MindSpore's callbacks are context managers) -------------
    def __enter__(self) -> Callback:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class CallbackList(Callback):
    """Calls every hook on each callback in order."""

    def __init__(self, callbacks: Callback | Iterable[Callback] | None = None) -> None:
        if callbacks is None:
            items: list[Callback] = []
        elif isinstance(callbacks, CallbackList):
            items = list(callbacks.callbacks)
        elif isinstance(callbacks, Callback):
            items = [callbacks]
        else:
            items = list(callbacks)
        for cb in items:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks must be Callback instances, got a {type(cb).__name__}; "
                                "subclass framework.train.Callback (or use LambdaCallback)")
            if cb.phase not in PHASES:
                raise ValueError(f"{type(cb).__name__}.phase must be one of {', '.join(PHASES)}, "
                                 f"got {cb.phase!r}")
        self.callbacks = sorted(items, key=lambda cb: PHASES.index(cb.phase))

    def __iter__(self) -> Iterator[Callback]:
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)

    def of_type(self, cls: type) -> list[Any]:
        return [cb for cb in self.callbacks if isinstance(cb, cls)]

    def _call(self, hook: str, run_context: RunContext) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(run_context)

    # -- state for checkpoints ---------------------------------------------------------------
    def _keys(self) -> Iterator[tuple[str, str, Callback]]:
        """``(state_key, legacy key, callback)``: checkpoints written before state keys
        existed named states ``<class>#<n>``."""
        seen: dict[str, int] = {}
        by_class: dict[str, int] = {}
        for cb in self.callbacks:
            if not hasattr(cb, "state_dict"):
                continue
            name = type(cb).__name__
            key = cb.state_key or name
            seen[key] = seen.get(key, 0) + 1
            by_class[name] = by_class.get(name, 0) + 1
            yield (key if seen[key] == 1 else f"{key}#{seen[key]}"), f"{name}#{by_class[name]}", cb

    def state_dict(self) -> dict[str, Any]:
        return {key: cb.state_dict() for key, _, cb in self._keys()}

    def load_state_dict(self, states: dict[str, Any]) -> None:
        for key, legacy, cb in self._keys():
            state = states.get(key, states.get(legacy))
            if state is not None and hasattr(cb, "load_state_dict"):
                cb.load_state_dict(state)


def _make_dispatch(hook: str) -> Any:
    def dispatch(self: CallbackList, run_context: RunContext) -> None:
        self._call(hook, run_context)

    dispatch.__name__ = hook
    return dispatch


for _hook in TRAIN_HOOKS + EVAL_HOOKS:
    setattr(CallbackList, _hook, _make_dispatch(_hook))
