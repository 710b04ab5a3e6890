"""What a checkpoint is, in one line — its path, step and last evaluation — as every command
that uses one prints it (``train eval|sample|export``, ``train run --resume``), and the
callback that stores a run's latest evaluation in the checkpoints written after it.

A checkpoint written at an evaluation carries that evaluation's figures; one written between
two (``checkpoint.save_steps``) carries the previous one's, shown with the step it was made
at; one written before any evaluation (or by an older version) shows its step alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from framework.serialization import CheckpointError
from framework.train.callbacks import Callback
from framework.train.checkpoint import CheckpointRead, read_checkpoint

STATE_KEY = "evaluation"


class EvaluationRecord(Callback):
    """Keeps the latest validation figures (``eval_*`` of ``run_context.metrics``) and the
    step they were made at, saved in every checkpoint (before ModelCheckpoint writes)."""

    phase = "monitor"  # after the metrics are gathered, before the epoch-end checkpoint
    state_key = STATE_KEY

    def __init__(self) -> None:
        self.latest: dict[str, Any] = {}

    def on_train_epoch_end(self, run_context: Any) -> None:
        figures = {k: float(v) for k, v in run_context.metrics.items() if k.startswith("eval_")}
        if figures:
            self.latest = {"step": run_context.global_step, "metrics": figures}

    def state_dict(self) -> dict[str, Any]:
        return dict(self.latest)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.latest = dict(state) if isinstance(state, dict) else {}


def describe(read: CheckpointRead, metric_prefix: str) -> str:
    """``checkpoints/.../x.ckpt (step 60, val/loss 3.2661)``: the file, its step and its
    run's latest evaluation (named as MLflow logs it, ``metric_prefix``: eval or val)."""
    from .terminal import named_metrics

    state = read.state
    text = f"{read.path} (step {state.global_step}"
    evaluation = state.callbacks.get(STATE_KEY) or {}
    figures = evaluation.get("metrics") if isinstance(evaluation, dict) else None
    named = named_metrics(dict(figures), metric_prefix) if isinstance(figures, dict) else []
    if named:
        name, value = named[0]
        step = evaluation.get("step")
        text += f", {name} {value}" + ("" if step == state.global_step else f" at step {step}")
    return text + ")"


def resolve(config: Any, checkpoint: str | Path | CheckpointRead) -> tuple[Path, CheckpointRead | None]:
    """The file ``checkpoint`` names (``last``/``best``: of this config's network and data,
    trainer/run_folders.py) and its training state; None for a file that holds weights only
    (a MindSpore or safetensors export: the command reads and reports it itself)."""
    from .run_folders import checkpoint_of

    if isinstance(checkpoint, CheckpointRead):
        return checkpoint.path, checkpoint
    if str(checkpoint) in ("last", "latest", "best"):
        read = checkpoint_of(config, checkpoint)
        return read.path, read
    try:
        return Path(checkpoint), read_checkpoint(checkpoint)
    except (CheckpointError, OSError):
        return Path(checkpoint), None


def used_line(path: Path, read: CheckpointRead | None, metric_prefix: str) -> str:
    """``checkpoint: <path> (step N, <metric>)``: what a command ran on."""
    return f"checkpoint: {describe(read, metric_prefix) if read is not None else path}"
