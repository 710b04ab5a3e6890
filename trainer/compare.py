"""``train compare``: the same experiment in several modes, side by side, with a verdict.

Each mode trains from the same seed as a nested MLflow run under one parent run. Then:

- **speed** (:func:`time_steps`): training steps of every mode timed in interleaved
  rounds after warm-up (compilation included in the warm-up), each step's wall-clock
  time from the end of the previous one (data loading included, as every speed figure of
  the trainer); reported as the median ± half the interquartile range, with N;
- **parity** (:func:`parity`): per-step training losses against the first mode; a step
  differs when ``|a - b| > atol + rtol * |a|``. The verdict is PASS when none of the
  first N steps differs; the first differing step over the whole run and the largest
  difference within the first N are reported with N and the tolerance;
- **final loss** is the test-set loss after training (with the test accuracy), per mode.

The parent run gets the verdict and per-mode figures as metrics (``parity/*``,
``<mode>/eval/accuracy``, ``<mode>/perf/ms_per_step``), the table as an MLflow table
(``compare_table.json``) and as text, and a figure (loss per step, loss difference with the
tolerance, step times, test accuracy) titled with the config.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from framework.train.loop import iterate

from .build import build_model_for
from .config import ExperimentConfig
from .distributed import Rank
from .executor import RunResult
from .experiment import run_experiment
from .tasks import task_of

RTOL, ATOL, PARITY_STEPS = 1e-3, 1e-5, 50


@dataclass
class Timing:
    mode: str
    seconds: list[float]

    @property
    def median_ms(self) -> float:
        return float(np.median(self.seconds)) * 1000

    @property
    def spread_ms(self) -> float:
        """Half the interquartile range."""
        q1, q3 = np.percentile(self.seconds, [25, 75])
        return float(q3 - q1) / 2 * 1000


@dataclass
class Parity:
    n: int  # steps the verdict covers (the first N shared steps)
    rtol: float
    atol: float
    max_abs: float  # largest |difference| within the first n steps
    max_abs_step: int | None
    first_diff_step: int | None  # first step over the tolerance, over all shared steps
    shared: int

    @property
    def passed(self) -> bool:
        return self.first_diff_step is None or self.first_diff_step > self.n

    def text(self, modes: list[str]) -> str:
        where = f" (step {self.max_abs_step})" if self.max_abs_step else ""
        first = (f"first step beyond it: {self.first_diff_step} of {self.shared}"
                 if self.first_diff_step else f"no step of {self.shared} beyond it")
        return (f"parity {' vs '.join(modes)}: {'PASS' if self.passed else 'FAIL'} - first N={self.n} "
                f"steps within |diff| <= {self.atol:g} + {self.rtol:g}*|loss|: largest |diff| "
                f"{self.max_abs:.3g}{where}; {first}")


def parity(results: list[RunResult], rtol: float = RTOL, atol: float = ATOL,
           n: int = PARITY_STEPS) -> Parity:
    """Per-step losses of every mode against the first one (steps they share)."""
    base = results[0]
    worst, worst_step, first, shared = 0.0, None, None, None
    for other in results[1:]:
        k = min(len(base.losses), len(other.losses))
        shared = k if shared is None else min(shared, k)
        a, b = np.asarray(base.losses[:k]), np.asarray(other.losses[:k])
        diff = np.abs(a - b)
        over = np.flatnonzero(~(diff <= atol + rtol * np.abs(a)))  # NaN counts as differing
        if over.size:
            step = base.steps[over[0]]
            first = step if first is None else min(first, step)
        head = diff[:n]
        if head.size and float(np.nanmax(head)) >= worst:
            worst, worst_step = float(np.nanmax(head)), base.steps[int(np.nanargmax(head))]
    shared = shared or 0
    return Parity(min(n, shared), rtol, atol, worst, worst_step, first, shared)


def time_steps(config: ExperimentConfig, modes: list[str], rounds: int = 5, steps: int = 20,
               warmup: int = 3, show: bool = True) -> dict[str, Timing]:
    """Wall-clock training-step times per mode, the modes interleaved round by round (the
    order alternating), after ``warmup`` steps each."""
    import framework as ms

    ms.set_context(save_graphs=False, device_target="GPU" if config.device == "cuda" else "CPU")
    data = task_of(config).data(config, Rank())
    runners = {}
    for mode in modes:
        model, _ = build_model_for(config, data)
        model.mode = mode
        step = model._step_for(model.train_network, mode)
        model.train_network.set_train(True)
        runners[mode] = (step, itertools.cycle(iterate(data.train)))  # a pipeline too
    out = {mode: Timing(mode, []) for mode in modes}
    total = len(modes) * (warmup + rounds * steps)
    with tqdm(total=total, desc="compare: timing steps", unit="step", leave=False, file=sys.stderr,
              dynamic_ncols=True, disable=None) as bar:
        for mode in modes:
            _run(runners[mode], warmup, None, bar)
        for r in range(rounds):
            for mode in (modes if r % 2 == 0 else modes[::-1]):
                _run(runners[mode], steps, out[mode].seconds, bar)
    return out


def _run(runner: tuple[Any, Any], steps: int, into: list[float] | None, bar: Any) -> None:
    step, batches = runner
    last = time.perf_counter()
    for _ in range(steps):
        x, y = next(batches)
        out, _ = step(x, y)
        float(out.asnumpy())
        now = time.perf_counter()
        if into is not None:
            into.append(now - last)
        last = now
        bar.update(1)


# the final figures a task is judged by: (RunResult.metrics key, table row, header)
FINAL = {"classification": (("loss", "test_loss", "test loss"), ("accuracy", "test_accuracy", "test acc")),
         "language_model": (("loss", "val_loss", "val loss"), ("perplexity", "val_perplexity", "val ppl"))}


def table(results: list[RunResult], timings: dict[str, Timing], batch_size: int,
          task: str = "classification") -> dict[str, list[Any]]:
    slowest = max(t.median_ms for t in timings.values())
    final = FINAL[task]
    rows: dict[str, list[Any]] = {k: [] for k in (
        "mode", "compile_s", "ms_per_step", "ms_per_step_spread", "timed_steps", "samples_per_second",
        final[0][1], final[1][1], "speed_up")}
    for r in results:
        t = timings[r.mode]
        for key, value in (("mode", r.mode), ("compile_s", r.compile_seconds),
                           ("ms_per_step", t.median_ms), ("ms_per_step_spread", t.spread_ms),
                           ("timed_steps", len(t.seconds)),
                           ("samples_per_second", batch_size / t.median_ms * 1000),
                           (final[0][1], r.metrics.get(final[0][0])),
                           (final[1][1], r.metrics.get(final[1][0])),
                           ("speed_up", slowest / t.median_ms)):
            rows[key].append(value)
    return rows


def text_table(rows: dict[str, list[Any]], task: str = "classification") -> str:
    (_, loss_row, loss_head), (_, other_row, other_head) = FINAL[task]
    lines = [f"{'mode':<9} {'compile s':>9} {'ms/step (median ± IQR/2)':>25} {'samples/s':>10} "
             f"{loss_head:>9} {other_head:>8} {'speed-up':>8}"]
    for i, mode in enumerate(rows["mode"]):
        compile_s = f"{rows['compile_s'][i]:.2f}" if rows["compile_s"][i] is not None else "-"
        speed = f"{rows['ms_per_step'][i]:.2f} ms ± {rows['ms_per_step_spread'][i]:.2f}"
        lines.append(f"{mode:<9} {compile_s:>9} {speed:>25} {rows['samples_per_second'][i]:>10.0f} "
                     f"{rows[loss_row][i]:>9.4f} {rows[other_row][i]:>8.4f} "
                     f"{rows['speed_up'][i]:>7.2f}x")
    n = rows["timed_steps"][0] if rows["timed_steps"] else 0
    after = ("the test set after training" if task == "classification"
             else "the validation text after training")
    lines.append(f"ms/step: wall clock of {n} training steps per mode after warm-up, modes interleaved; "
                 f"{loss_head}, {other_head}: {after}")
    return "\n".join(lines)


def figure(results: list[RunResult], timings: dict[str, Timing], check: Parity, title: str,
           path: Path, task: str = "classification") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax_loss, ax_diff, ax_time, ax_acc = axes.ravel()
    for r in results:
        ax_loss.plot(r.steps, r.losses, label=r.mode, linewidth=1)
        ax_time.plot(r.steps, np.asarray(r.step_seconds) * 1000, label=f"{r.mode} (training run)",
                     linewidth=0.8)
        t = timings[r.mode]
        ax_time.axhline(t.median_ms, linestyle="--", linewidth=1,
                        label=f"{r.mode} median {t.median_ms:.2f} ± {t.spread_ms:.2f} ms")
    base = results[0]
    for other in results[1:]:
        k = min(len(base.losses), len(other.losses))
        a, b = np.asarray(base.losses[:k]), np.asarray(other.losses[:k])
        ax_diff.plot(base.steps[:k], np.maximum(np.abs(a - b), 1e-12), linewidth=1,
                     label=f"|{base.mode} - {other.mode}|")
        ax_diff.plot(base.steps[:k], check.atol + check.rtol * np.abs(a), "k:", linewidth=1,
                     label=f"tolerance {check.atol:g} + {check.rtol:g}|loss|")
    if check.n:
        ax_diff.axvline(base.steps[check.n - 1], color="grey", linewidth=0.8, label=f"N={check.n}")
    ax_loss.set(xlabel="step", ylabel="training loss", title="training loss per step")
    ax_diff.set(xlabel="step", ylabel="|loss difference|", yscale="log",
                title=f"parity: {'PASS' if check.passed else 'FAIL'}")
    ax_time.set(xlabel="step", ylabel="ms", yscale="log", title="step time (wall clock, no compile)")
    modes = [r.mode for r in results]
    key = FINAL[task][1][0]
    finals = [r.metrics.get(key, float("nan")) for r in results]
    bars = ax_acc.bar(modes, finals, color=["C0", "C1", "C2"][:len(modes)])
    ax_acc.bar_label(bars, fmt="%.4f")
    label = "test accuracy" if task == "classification" else "validation perplexity"
    ax_acc.set(ylim=(0, 1.05) if task == "classification" else None, ylabel=label,
               title=f"{label} after training")
    for ax in (ax_loss, ax_diff, ax_time):
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def describe(config: ExperimentConfig) -> str:
    d, o = config.dataset, config.optimizer
    from .data import describe_source

    model = config.model.class_ or config.model.name
    if config.task == "language_model":
        return (f"{config.name}: {model} on {d.name} (block {d.block_size}), batch {d.batch_size}, "
                f"{o.name} lr {o.learning_rate:g}, {config.train.max_steps} steps, seed {config.seed}, "
                f"{config.device}")
    return (f"{config.name}: {model} on {describe_source(config)} (limit {d.limit or 'all'}), batch "
            f"{d.batch_size}, {o.name} lr {o.learning_rate:g}, {config.train.epochs} epoch(s), "
            f"seed {config.seed}, {config.device}")


def compare_modes(config: ExperimentConfig, modes: list[str], *, rounds: int = 5, steps: int = 20,
                  rtol: float = RTOL, atol: float = ATOL, parity_steps: int = PARITY_STEPS) -> str:
    from .mlflow_logger import MLflowRun, git_commit, tracking_uri, versions

    parent = MLflowRun(tracking_uri(config.mlflow.tracking_uri), config.mlflow.experiment,
                       config.mlflow.run_name or f"{config.name}-compare",
                       system_metrics=config.mlflow.system_metrics)
    parent.log_params(config.flat())
    parent.set_tags({"compare_modes": ",".join(modes), "git_commit": git_commit(),
                     "experiment": config.name, **versions()})
    results = []
    status = "FAILED"
    try:
        for i, mode in enumerate(modes):
            tqdm.write(f"compare: training {mode} ({i + 1}/{len(modes)})", file=sys.stderr)
            run_config = dataclasses.replace(config, mode=mode)
            results.append(run_experiment(
                run_config, quiet=True, progress=mode, parent_run_id=parent.run_id,
                run_name=f"{config.name}-{mode}",
                checkpoint_dir=str(Path(config.checkpoint_dir) / f"compare-{mode}")))
        tqdm.write(f"compare: timing {rounds} x {steps} steps per mode, interleaved", file=sys.stderr)
        timings = time_steps(config, modes, rounds, steps)
        rows = table(results, timings, config.dataset.batch_size, config.task)
        report = text_table(rows, config.task)
        check = parity(results, rtol, atol, parity_steps) if len(results) > 1 else None
        if check is not None:
            report += "\n" + check.text(modes)
        log_parent(parent, results, timings, check, rows, report, describe(config), config.task)
        status = "FINISHED"
    finally:
        parent.end(status)
    return report


def log_parent(parent: Any, results: list[RunResult], timings: dict[str, Timing], check: Parity | None,
               rows: dict[str, list[Any]], report: str, title: str, task: str = "classification") -> None:
    step = max((r.steps[-1] for r in results if r.steps), default=0)
    for r in results:
        t = timings[r.mode]
        valid = "eval" if task == "classification" else "val"
        (loss_key, _, _), (other_key, _, _) = FINAL[task]
        for key, value in ((f"{valid}/{other_key}", r.metrics.get(other_key)),
                           (f"{valid}/{loss_key}", r.metrics.get(loss_key)),
                           ("perf/ms_per_step", t.median_ms), ("perf/ms_per_step_spread", t.spread_ms),
                           ("perf/compile_s", r.compile_seconds)):
            if value is not None:
                parent.log_metric(f"{r.mode}/{key}", value, step)
    if check is not None:
        parent.log_metric("parity/max_abs_loss_diff", check.max_abs, step)
        parent.log_metric("parity/pass", float(check.passed), step)
        parent.log_metric("parity/steps_checked", check.n, step)
        if check.first_diff_step is not None:
            parent.log_metric("parity/first_diff_step", check.first_diff_step, step)
        parent.set_tags({"parity": "PASS" if check.passed else "FAIL",
                         "parity_tolerance": f"atol {check.atol:g} + rtol {check.rtol:g}",
                         "parity_steps": str(check.n)})
    parent.log_table(rows, "compare_table.json")
    with tempfile.TemporaryDirectory() as tmp:
        plot = Path(tmp) / "compare.png"
        figure(results, timings, check or Parity(0, RTOL, ATOL, 0.0, None, None, 0), title, plot, task)
        parent.log_artifact(plot)
    parent.log_text(report + "\n", "compare.txt")
