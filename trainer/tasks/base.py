"""What a task is: the contract between the trainer and one kind of learning problem.

The executor (trainer/executor.py) runs every task the same way; a task says what differs:

- ``keys``: the YAML keys only this task takes (``dataset.block_size`` ...); the schema
  refuses them under another task, with ``file:line`` (trainer/config.py);
- ``check(config)``: its value checks, pure (a problem ``(key path, message)`` or None);
- ``data(config, rank) -> TaskData``: the training and validation batches (``(x, y)``
  pairs, re-iterable, with ``state_dict`` when they can resume mid-epoch), what the
  network needs to know of the data (``info``: classes, vocabulary ...) and the steps of
  one "epoch" of the loop;
- ``network(config, data)``, ``loss(config)``, ``metrics``: the Model's parts;
- ``epochs(config)``: the loop's epochs (classification: ``train.epochs``; a language
  model: ``train.max_steps / train.eval_every_steps`` intervals); ``finished(config,
  state)``: a resume with nothing left, in the task's own budget (epochs, steps);
- ``summary_input(config, data)``: two samples for the model summary a run prints;
- ``callbacks(plan, model, data)``: the task's own (train accuracy, perplexity, samples);
- ``evaluate(config, model, data)``: ``train eval``'s metrics of a trained model (the test
  split; a language model's whole validation split, read in order);
- ``terminal(plan)``: what the terminal shows (progress bar, loss lines);
- ``result_line``, ``speed_line``: a finished run's figures, for its summary;
- ``metric_prefix``: how the validation results are logged (``eval/accuracy``,
  ``val/loss``);
- ``record_data(run, config, data)``: the data read, in the run's MLflow record;
- ``log_model(run, config, resolved, checkpoint, data)``: the MLflow model a run leaves.

A new task is a new module with a :class:`Task` subclass, registered in
``trainer/tasks/__init__.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TaskData:
    train: Any  # the training batches
    valid: Any  # the validation / test batches
    steps_per_epoch: int | None
    info: dict[str, Any] = field(default_factory=dict)  # what the network and the record need
    extra: dict[str, Any] = field(default_factory=dict)  # task-private (a training subset ...)


class Task:
    name = ""
    keys: frozenset[tuple[str, ...]] = frozenset()
    metric_prefix = "eval"
    metrics: Any = ("loss",)
    by_steps = False  # the schedule counts steps (trainer/schedule.py: step_lrs)
    # graph mode's dynamic axes (framework.train.step.CompiledStep): the batch axis;
    # "sequence": also the sequence axis of token ids (text)
    dynamic_axes: bool | str = True
    models: dict[str, Any] = {}  # the zoo of ``model.name`` (trainer/models/)
    monitors: tuple[str, ...] = ("eval_accuracy", "eval_loss", "loss", "train_accuracy")
    # what the data gives the network (stand-ins of the right type, for signature checks);
    # a zoo model then takes ``model.args`` (checked by the task)
    data_sizes: dict[str, Any] = {}

    def check(self, config: Any) -> tuple[tuple[str, ...], str] | None:
        return None

    def data(self, config: Any, rank: Any) -> TaskData:
        raise NotImplementedError

    def network(self, config: Any, data: TaskData) -> Any:
        raise NotImplementedError

    def loss(self, config: Any) -> Any:
        raise NotImplementedError

    def epochs(self, config: Any) -> int:
        raise NotImplementedError

    def finished(self, config: Any, state: Any) -> str:
        """Why a checkpoint's ``state`` (a TrainState) leaves nothing to train under
        ``config``, and what to ask for to continue."""
        epochs = config.train.epochs
        return (f"is already at epoch {state.epoch} of train.epochs={epochs}; to continue, ask for "
                f"more (train.epochs={state.epoch + 1} or more)")

    def example_batch(self, config: Any, data: TaskData | None) -> tuple[Any, Any]:
        """Zero ``(x, y)`` arrays shaped as one training batch (``train ir``)."""
        raise NotImplementedError

    def summary_input(self, config: Any, data: TaskData) -> Any:
        """Two samples the network takes (an array), for the model summary at start
        (trainer/model_summary.py); None: no summary. Reading them changes no data state."""
        return None

    def check_fit(self, config: Any, net: Any, data: TaskData) -> None:
        """Before training: the network takes the data (one-line errors otherwise)."""

    def callbacks(self, plan: Any, model: Any, data: TaskData) -> list[Any]:
        return []

    def evaluate(self, config: Any, model: Any, data: TaskData) -> dict[str, float]:
        """``train eval``: the metrics of ``model`` (trained) on the validation/test data."""
        return model.eval(data.valid)

    def result_line(self, config: Any, result: Any) -> str:
        """A finished run's validation figures, as MLflow names them (trainer/terminal.py):
        ``eval/accuracy 0.9812, eval/loss 0.0611``."""
        from ..terminal import named_metrics

        named = named_metrics({f"eval_{k}": v for k, v in result.metrics.items()}, self.metric_prefix)
        return ", ".join(f"{name} {text}" for name, text in named)

    def speed_line(self, config: Any, result: Any) -> str:
        """A finished run's speed, for the summary's ``speed:`` line."""
        return f"{result.ms_per_step:.2f} ms/step, {result.samples_per_second:,.0f} samples/s (wall clock)"

    def terminal_options(self, plan: Any) -> dict[str, Any]:
        """What the terminal shows while training: the keywords of
        ``trainer.run_callbacks.terminal_callbacks`` beyond the plan (none: its defaults)."""
        return {}

    def record_data(self, run: Any, config: Any, data: TaskData) -> None:
        """The data read, in the run's MLflow record (params, dataset inputs)."""

    def log_model(self, run: Any, config: Any, resolved: dict[str, Any], checkpoint: str,
                  data: TaskData) -> str | None:
        return None
