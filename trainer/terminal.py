"""What a run from YAML prints while it trains, in one naming scheme: the MLflow names.

- every ``train.log_every`` steps, one line: ``epoch 1 step 10/62: train/loss 2.2806``
  (a run counted in steps: ``step 50/2000: train/loss 2.5123, lr 1.00e-03, 5,012 tokens/s``);
- at each evaluation, one line: ``epoch 1: eval/accuracy 0.0900, eval/loss 2.3023`` (a
  language model: ``step 250: val/loss 2.0843, val/perplexity 8.04, val/bits_per_char
  3.007, train/loss_estimate 2.0512``);
- the progress bar's postfix: ``train/loss`` and the same validation names.

Names come from :func:`trainer.mlflow_logger.metric_name` (what MLflow records), in a
fixed order (:data:`ORDER`: the task's validation figures, then the training ones) and
rounded (:func:`value_text`), so a figure reads the same in the terminal, the summary,
MLflow and the README. Lines are written above the bar (``tqdm.write``), never through it.
"""

from __future__ import annotations

import sys
from typing import Any

from framework.train.callbacks import Callback

from .mlflow_logger import metric_name

# display order of a metric's last path part; unknown names follow, alphabetically
ORDER = ("accuracy", "loss", "perplexity", "bits_per_char", "loss_estimate")
DIGITS = {"perplexity": 2, "bits_per_char": 3, "tokens": 0}


def value_text(name: str, value: float) -> str:
    """``value`` rounded for the terminal: 4 decimals (perplexity 2, bits per char 3)."""
    return f"{value:.{DIGITS.get(name.rsplit('/', 1)[-1], 4)}f}"


def _rank(name: str, valid: str) -> tuple[int, int, str]:
    prefix, _, last = name.partition("/")
    group = 0 if prefix == valid else 1
    return group, ORDER.index(last) if last in ORDER else len(ORDER), name


def named_metrics(metrics: dict[str, float], valid: str) -> list[tuple[str, str]]:
    """An evaluation's results as ``(MLflow name, rounded text)``, in the fixed order: the
    validation figures (``valid/...``), then the training ones; speeds and counters left
    out (the step lines and the summary give those)."""
    named = []
    for key, value in metrics.items():
        name = metric_name(key, valid)
        if name and "/" in name and not name.startswith(("perf/", "dist/", "sweep/")):
            named.append((name, value))
    named.sort(key=lambda item: _rank(item[0], valid))
    return [(name, value_text(name, value)) for name, value in named]


def metrics_view(valid: str) -> Any:
    """The progress bar's view of ``run_context.metrics`` (framework ProgressBar ``metrics_view``)."""
    return lambda metrics: [item for item in named_metrics(metrics, valid) if item[0].startswith(valid + "/")]


def write(text: str) -> None:
    from tqdm.auto import tqdm

    tqdm.write(text, file=sys.stdout)


class StepLines(Callback):
    """The step and evaluation lines above (``every`` steps; ``by_steps``: a run counted in
    steps, with its learning rate and speed in ``unit``)."""

    phase = "log"

    def __init__(self, every: int, valid: str = "eval", *, by_steps: bool = False,
                 unit: str = "samples", unit_per_sample: int = 1) -> None:
        self.every, self.valid, self.by_steps = max(1, every), valid, by_steps
        self.unit, self.unit_per_sample = unit, unit_per_sample
        self._samples, self._seconds = 0, 0.0

    def _where(self, ctx: Any) -> str:
        if self.by_steps:
            total = ctx.steps_per_epoch * ctx.epoch_num if ctx.steps_per_epoch else None
            return f"step {ctx.global_step}/{total}" if total else f"step {ctx.global_step}"
        of = f"/{ctx.steps_per_epoch}" if ctx.steps_per_epoch else ""
        return f"epoch {ctx.epoch} step {ctx.step}{of}"

    def on_train_step_end(self, ctx: Any) -> None:
        self._samples += ctx.batch_size * self.unit_per_sample
        self._seconds += ctx.timings.step_wall_seconds
        if ctx.loss is None or ctx.global_step % self.every:
            return
        parts = [f"train/loss {value_text('loss', ctx.loss)}"]
        if self.by_steps:
            if hasattr(ctx.optimizer, "last_lr"):
                parts.append(f"lr {ctx.optimizer.last_lr():.2e}")
            if self._seconds > 0:
                parts.append(f"{self._samples / self._seconds:,.0f} {self.unit}/s")
        write(f"{self._where(ctx)}: {', '.join(parts)}")
        self._samples, self._seconds = 0, 0.0

    def on_train_epoch_end(self, ctx: Any) -> None:
        named = named_metrics(ctx.metrics, self.valid)
        if not any(name.startswith(self.valid + "/") for name, _ in named):
            return  # not an evaluated epoch
        where = f"step {ctx.global_step}" if self.by_steps else f"epoch {ctx.epoch}"
        write(f"{where}: {', '.join(f'{name} {text}' for name, text in named)}")
