"""The metric a sweep optimizes: its names, where a trial reads it, and its direction.

Each metric has its canonical name, the one runs log it under in MLflow (``eval/accuracy``,
``train/loss``), and is also accepted under older and common spellings (``test_accuracy``,
``val_loss``, ``train_epoch_loss``, ...).

A task logs its validation figures under its own prefix (``eval/`` for classification,
``val/`` for a language model: trainer/tasks/base.py ``metric_prefix``); :func:`resolve`
names a validation metric with the prefix of the task swept, so that ``--metric val/loss``
of a language model is ``val/loss`` in the trials, the parent run and the study.

A trial reads a metric in two places:

- ``epoch_key``: the key in ``RunContext.metrics`` at the end of an epoch (what is
  reported to the pruner, one value per evaluation epoch: ``eval_accuracy``, ...);
- ``final_key``: the key in the run's final test evaluation (``RunResult.metrics``), the
  trial's value; ``None`` means the last epoch's value is the trial's value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str  # canonical, e.g. "eval/accuracy"
    epoch_key: str
    final_key: str | None
    direction: str  # "maximize" or "minimize"

    @property
    def mlflow_name(self) -> str:
        """The parent run's metric holding the best value: ``best/eval/accuracy``."""
        return f"best/{self.name}"


METRICS = {
    "eval/accuracy": Metric("eval/accuracy", "eval_accuracy", "accuracy", "maximize"),
    "eval/loss": Metric("eval/loss", "eval_loss", "loss", "minimize"),
    "eval/perplexity": Metric("eval/perplexity", "eval_perplexity", "perplexity", "minimize"),
    "train/accuracy": Metric("train/accuracy", "train_accuracy", None, "maximize"),
    "train/loss": Metric("train/loss", "loss", None, "minimize"),
}

# Other spellings -> canonical name: today's MLflow names, RunContext keys, common aliases.
ALIASES = {
    "test_accuracy": "eval/accuracy", "eval_accuracy": "eval/accuracy", "accuracy": "eval/accuracy",
    "final_test_accuracy": "eval/accuracy", "test/accuracy": "eval/accuracy",
    "val_accuracy": "eval/accuracy", "val/accuracy": "eval/accuracy",
    "test_loss": "eval/loss", "eval_loss": "eval/loss", "final_test_loss": "eval/loss",
    "test/loss": "eval/loss", "val_loss": "eval/loss", "val/loss": "eval/loss",
    "perplexity": "eval/perplexity", "val/perplexity": "eval/perplexity",
    "val_perplexity": "eval/perplexity",
    "train_accuracy": "train/accuracy",
    "train_epoch_loss": "train/loss", "train/epoch_loss": "train/loss", "train_loss": "train/loss",
}


class MetricError(ValueError):
    """An unknown metric name or direction (the CLI exits with status 2)."""


def resolve(name: str, direction: str | None = None, prefix: str = "eval") -> Metric:
    """The metric called ``name`` (canonical or alias), its validation metrics named with the
    task's ``prefix`` (``val/loss``); ``direction`` overrides its default."""
    key = name.strip()
    canonical = key if key in METRICS else ALIASES.get(key)
    if canonical is None:
        names = ", ".join(METRICS) + " (or today's names: " + ", ".join(ALIASES) + ")"
        raise MetricError(f"--metric: unknown metric '{name}'; use one of {names}")
    metric = METRICS[canonical]
    if canonical.startswith("eval/") and prefix != "eval":
        metric = Metric(f"{prefix}/{canonical[5:]}", metric.epoch_key, metric.final_key, metric.direction)
    if direction in (None, "", "auto"):
        return metric
    if direction not in ("maximize", "minimize"):
        raise MetricError(f"--direction: must be maximize or minimize, got '{direction}'")
    return Metric(metric.name, metric.epoch_key, metric.final_key, direction)
