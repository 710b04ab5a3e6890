"""The lines a finished ``train run`` ends with: the task's results, then where everything is."""

from __future__ import annotations

from typing import Any


def run_label(config: Any, mode: str) -> str:
    """``lenet-mnist [graph]``, with the precision when it is not float32:
    ``lenet-mnist [graph, bf16]``."""
    precision = getattr(config, "precision", "fp32")
    return f"{config.name} [{mode}{'' if precision == 'fp32' else ', ' + precision}]"


def summary(config: Any, result: Any) -> str:
    """The lines a finished run ends with: results (the task's figures), then where
    everything is."""
    from .tasks import task_of

    task = task_of(config)
    compile_s = f", compile {result.compile_seconds:.1f} s" if result.compile_seconds else ""
    lines = [f"{run_label(config, result.mode)}: {task.result_line(config, result)}",
             f"  speed:      {task.speed_line(config, result)}{compile_s}",
             f"  checkpoint: {result.checkpoint}"]
    if result.best_checkpoint:
        score = f" ({result.best_score})" if result.best_score else ""
        lines.append(f"  best:       {result.best_checkpoint}{score}")
    if result.ir_dir:
        lines.append(f"  IR:         {result.ir_dir}")
    if result.run_url:
        lines.append(f"  MLflow:     {result.run_url}{_ui_hint(config)}")
    else:
        lines.append(f"  MLflow:     logged offline to {result.offline_log} "
                     "(import with `train sync-offline`)")
    if result.runs_url:  # MLflow keeps the runs table's columns per browser
        lines.append(f"  runs:       {result.runs_url}  (metrics as columns)")
    if result.model_uri:
        lines.append(f"  model:      {result.model_uri}")
    if getattr(result, "profile", None):
        lines.append(result.profile)
    return "\n".join(lines)


def _ui_hint(config: Any) -> str:
    """How to open the run's page: nothing when its UI is up (a ``train ui`` of this store
    running, or a tracking server), else the command that starts it."""
    from .mlflow_logger import tracking_uri
    from .ui import running_port

    uri = tracking_uri(config.mlflow.tracking_uri)
    if uri.startswith(("http://", "https://")) or running_port(uri):
        return ""
    return "  (to open it, start the UI: train ui)"
