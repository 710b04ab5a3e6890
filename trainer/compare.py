"""``train compare``: the same experiment in several modes, side by side.

Each mode runs from the same seed as a nested MLflow run under one parent run; the
parent gets a figure (loss vs step and step time per mode), the comparison table as an
artifact, and the parity check: the largest per-step loss difference between modes.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np

from .config import ExperimentConfig
from .experiment import RunResult, run_experiment


def parity(results: list[RunResult]) -> tuple[float, float]:
    """Largest absolute and relative per-step loss difference between the first mode and
    each other one, over the steps they share."""
    base = results[0]
    worst_abs = worst_rel = 0.0
    for other in results[1:]:
        n = min(len(base.losses), len(other.losses))
        a, b = np.asarray(base.losses[:n]), np.asarray(other.losses[:n])
        if n:
            diff = np.abs(a - b)
            worst_abs = max(worst_abs, float(diff.max()))
            worst_rel = max(worst_rel, float((diff / np.maximum(np.abs(a), 1e-12)).max()))
    return worst_abs, worst_rel


def table(results: list[RunResult]) -> str:
    slowest = max(r.ms_per_step for r in results)
    rows = [f"{'mode':<9} {'compile s':>9} {'ms/step':>8} {'samples/s':>10} {'final loss':>10} "
            f"{'accuracy':>8} {'speed-up':>8}"]
    for r in results:
        compile_s = f"{r.compile_seconds:.2f}" if r.compile_seconds is not None else "-"
        final = r.losses[-1] if r.losses else float("nan")
        rows.append(f"{r.mode:<9} {compile_s:>9} {r.ms_per_step:>8.2f} {r.samples_per_second:>10.0f} "
                    f"{final:>10.4f} {r.metrics.get('accuracy', float('nan')):>8.4f} "
                    f"{slowest / r.ms_per_step:>7.2f}x")
    return "\n".join(rows)


def figure(results: list[RunResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_time) = plt.subplots(1, 2, figsize=(11, 4))
    for r in results:
        ax_loss.plot(r.steps, r.losses, label=r.mode, linewidth=1)
        ax_time.plot(r.steps, np.asarray(r.step_seconds) * 1000, label=r.mode, linewidth=1)
    ax_loss.set(xlabel="step", ylabel="training loss", title="loss per step")
    ax_time.set(xlabel="step", ylabel="ms", title="step time (compilation excluded)", yscale="log")
    for ax in (ax_loss, ax_time):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def compare_modes(config: ExperimentConfig, modes: list[str]) -> str:
    from .mlflow_logger import MLflowRun, git_commit, tracking_uri, versions

    parent = MLflowRun(tracking_uri(config.mlflow.tracking_uri), config.mlflow.experiment,
                       config.mlflow.run_name or f"{config.name}-compare")
    parent.log_params(config.flat())
    parent.set_tags({"compare_modes": ",".join(modes), "git_commit": git_commit(),
                     "experiment": config.name, **versions()})
    results = []
    status = "FAILED"
    try:
        for mode in modes:
            run_config = dataclasses.replace(config, mode=mode)
            results.append(run_experiment(
                run_config, quiet=True, parent_run_id=parent.run_id, run_name=f"{config.name}-{mode}",
                checkpoint_dir=str(Path(config.checkpoint_dir) / f"compare-{mode}")))
        worst_abs, worst_rel = parity(results)
        report = table(results) + (f"\nparity: largest per-step loss difference "
                                   f"{worst_abs:.3g} (relative {worst_rel:.3g})" if len(results) > 1 else "")
        step = max((r.steps[-1] for r in results if r.steps), default=0)
        parent.log_metric("parity_max_abs_loss_diff", worst_abs, step)
        parent.log_metric("parity_max_rel_loss_diff", worst_rel, step)
        for r in results:
            parent.log_metric(f"{r.mode}_ms_per_step", r.ms_per_step, step)
        with tempfile.TemporaryDirectory() as tmp:
            plot = Path(tmp) / "compare.png"
            figure(results, plot)
            parent.log_artifact(plot)
        parent.log_text(report + "\n", "compare.txt")
        status = "FINISHED"
    finally:
        parent.end(status)
    return report
