"""History: the per-epoch metrics (and per-step losses) of a run, as lists."""

from __future__ import annotations

from typing import Any

from ..context import RunContext
from .base import Callback


class History(Callback):
    """Records ``history[name]`` per epoch (``loss``, ``eval_*``, ``epoch_seconds``) and
    ``step_losses`` per step; ``epochs`` lists the epoch numbers recorded.

    The per-epoch lists are part of its checkpointed state, so after a resume they
    cover the whole run; ``step_losses`` covers only the steps run in this process
    (``step_numbers`` gives their global step numbers).
    """

    state_key = "history"

    def __init__(self) -> None:
        self.history: dict[str, list[float]] = {}
        self.epochs: list[int] = []
        self.step_losses: list[float] = []
        self.step_numbers: list[int] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        if run_context.loss is not None:
            self.step_losses.append(run_context.loss)
            self.step_numbers.append(run_context.global_step)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epochs.append(run_context.epoch)
        values = dict(run_context.metrics)
        values["epoch_seconds"] = run_context.timings.epoch_seconds
        for name in [*self.history, *(k for k in values if k not in self.history)]:
            column = self.history.setdefault(name, [])
            column.extend([float("nan")] * (len(self.epochs) - 1 - len(column)))  # new this epoch
            column.append(float(values.get(name, float("nan"))))  # NaN: not measured this epoch

    def state_dict(self) -> dict[str, Any]:
        return {"history": self.history, "epochs": self.epochs}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.history = {k: list(v) for k, v in state.get("history", {}).items()}
        self.epochs = list(state.get("epochs", []))
