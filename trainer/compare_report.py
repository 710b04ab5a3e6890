"""What ``train compare`` reports: the table, the notes under it, the figure and the parent
MLflow run's record (trainer/compare.py measures; this module says it).

- the table fits 80 columns; its figures are named as MLflow names them (``eval/accuracy``,
  ``val/loss``), rounded;
- notes: timings whose spread (IQR/2) passes :data:`NOISY` of their median are called noisy
  (the machine was busy: the speed-up is not to be trusted); a parity PASS next to a gap
  in the final figures is explained (where the runs left the tolerance); the parent run's
  URL and the figure's path;
- the parent run gets per-mode figures (``<mode>/eval/accuracy``, ``<mode>/perf/ms_per_step``,
  ``<mode>/speed_up``), the parity verdict (``parity/*``) and the per-step loss difference
  as a series (``parity/abs_loss_diff``), the table, the text and ``compare.png``; after a
  parity bisect, its tags (``parity_bisect``: step, node, primitive, file:line;
  ``parity_bisect_location``, ``_step``, ``_node``, ``_cell``) and ``parity_bisect.json``.
"""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

NOISY = 0.2  # spread / median above which a mode's timings are called noisy
GAP = {"accuracy": 0.005, "loss": 0.01, "perplexity": 0.01}  # a final figure's gap worth a note

# the final figures a task is judged by: RunResult.metrics keys, first the headline one
FINAL = {"classification": ("accuracy", "loss"), "language_model": ("loss", "perplexity")}


WIDTH = 80  # the report's width: the table's, and every line wrapped to it


def _prefix(task: str) -> str:
    """The task's validation-metric prefix (``eval``, ``val``: trainer/tasks ``metric_prefix``)."""
    from .tasks import TASKS

    return TASKS[task].metric_prefix


def table(results: list[Any], timings: dict[str, Any], batch_size: int,
          task: str = "classification") -> dict[str, list[Any]]:
    slowest = max(t.median_ms for t in timings.values())
    names = [f"{_prefix(task)}/{key}" for key in FINAL[task]]
    rows: dict[str, list[Any]] = {k: [] for k in (
        "mode", "compile_s", "ms_per_step", "ms_per_step_spread", "timed_steps", "samples_per_second",
        *names, "speed_up")}
    for r in results:
        t = timings[r.mode]
        for key, value in (("mode", r.mode), ("compile_s", r.compile_seconds),
                           ("ms_per_step", t.median_ms), ("ms_per_step_spread", t.spread_ms),
                           ("timed_steps", len(t.seconds)),
                           ("samples_per_second", batch_size / t.median_ms * 1000),
                           *((name, r.metrics.get(key)) for name, key in zip(names, FINAL[task])),
                           ("speed_up", slowest / t.median_ms)):
            rows[key].append(value)
    return rows


def fit(lines: list[str], width: int = WIDTH) -> list[str]:
    """The report's lines wrapped to ``width`` columns (a wrapped line goes on indented two
    more); table rows, which fit already, and lines holding a URL are left whole."""
    out: list[str] = []
    for line in "\n".join(lines).splitlines():
        if len(line) <= width or "://" in line:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        out += textwrap.wrap(line.strip(), width, initial_indent=indent, subsequent_indent=indent + "  ",
                             break_long_words=False, break_on_hyphens=False)
    return out


def _number(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def text_table(rows: dict[str, list[Any]], task: str = "classification") -> str:
    """The table, at most 80 columns wide."""
    first, second = (f"{_prefix(task)}/{key}" for key in FINAL[task])
    w1, w2 = max(9, len(first)), max(9, len(second))
    lines = [f"{'mode':<8} {'compile':>7} {'ms/step ± IQR/2':>17} {'samples/s':>9} "
             f"{first:>{w1}} {second:>{w2}} {'speed-up':>8}"]
    for i, mode in enumerate(rows["mode"]):
        compile_s = f"{rows['compile_s'][i]:.1f} s" if rows["compile_s"][i] is not None else "-"
        speed = f"{rows['ms_per_step'][i]:.2f} ± {rows['ms_per_step_spread'][i]:.2f}"
        lines.append(f"{mode:<8} {compile_s:>7} {speed:>17} {rows['samples_per_second'][i]:>9,.0f} "
                     f"{_number(rows[first][i], '.4f'):>{w1}} {_number(rows[second][i], '.4f'):>{w2}} "
                     f"{rows['speed_up'][i]:>7.2f}x")
    n = rows["timed_steps"][0] if rows["timed_steps"] else 0
    after = "the test set" if task == "classification" else "the validation text"
    lines.append(f"ms/step: wall clock of {n} training steps per mode after warm-up, modes\n"
                 f"interleaved; {first}, {second}: {after} after training")
    return "\n".join(lines)


def notes(results: list[Any], timings: dict[str, Any], check: Any, task: str) -> list[str]:
    """Warnings under the table: noisy timings, a PASS next to a gap in the final figures."""
    out = []
    for mode, t in timings.items():
        if t.median_ms > 0 and t.spread_ms / t.median_ms > NOISY:
            out.append(f"warning: {mode} timings are noisy (IQR/2 is {t.spread_ms / t.median_ms:.0%} of "
                       "the median): the machine was busy, so the speed-up is uncertain; rerun on a "
                       "quiet machine or with more --rounds")
    if check is None or not check.passed or len(results) < 2:
        return out
    for key in FINAL[task]:
        values = [r.metrics.get(key) for r in results]
        if None in values:
            continue
        gap = max(values) - min(values)
        relative = key != "accuracy"
        if gap > GAP.get(key, 0.01) * (abs(values[0]) if relative else 1.0):
            left = (f"they leave it at step {check.first_diff_step} of {check.shared}"
                    if check.first_diff_step else "they stay within it to the end")
            shown = " vs ".join(f"{v:.4f}" for v in values)
            out.append(f"note: PASS, yet the final {_prefix(task)}/{key} differs ({shown}): the verdict "
                       f"covers the first {check.n} steps, and {left}; float rounding differs "
                       "between the modes' kernels and grows over a run (README: train compare)")
    return out


def time_panel(ax: Any, modes: list[str], timings: dict[str, Any]) -> None:
    """The timed steps of each mode (the rounds the speed figures come from, in the order they
    ran) and, dashed, their median: the line is the median of the series drawn beside it."""
    for i, mode in enumerate(modes):
        t = timings[mode]
        ms = np.asarray(t.seconds) * 1000
        ax.plot(np.arange(1, len(ms) + 1), ms, label=f"{mode} (timed steps)", linewidth=0.8,
                color=f"C{i}", alpha=0.6)
        ax.axhline(t.median_ms, linestyle="--", linewidth=1.2, color=f"C{i}",
                   label=f"{mode} median {t.median_ms:.2f} ± {t.spread_ms:.2f} ms")
    ax.set(xlabel="timed step (rounds of the modes interleaved)", ylabel="ms", yscale="log",
           title="step time (wall clock, no compile)")


def figure(results: list[Any], timings: dict[str, Any], check: Any, title: str, path: Path,
           task: str = "classification") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax_loss, ax_diff, ax_time, ax_final = axes.ravel()
    for i, r in enumerate(results):
        ax_loss.plot(r.steps, r.losses, label=r.mode, linewidth=1, color=f"C{i}")
    time_panel(ax_time, [r.mode for r in results], timings)
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
    key = FINAL[task][0]
    name = f"{_prefix(task)}/{key}"
    finals = [r.metrics.get(key, float("nan")) for r in results]
    bars = ax_final.bar([r.mode for r in results], finals, color=[f"C{i}" for i in range(len(results))])
    ax_final.bar_label(bars, fmt="%.4f")
    ax_final.set(ylim=(0, 1.05) if key == "accuracy" else None, ylabel=name, title=f"{name} after training")
    for ax in (ax_loss, ax_diff, ax_time):
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def log_parent(parent: Any, results: list[Any], timings: dict[str, Any], check: Any,
               rows: dict[str, list[Any]], report: str, title: str, task: str = "classification",
               bisect: Any = None) -> None:
    step = max((r.steps[-1] for r in results if r.steps), default=0)
    for i, r in enumerate(results):
        t = timings[r.mode]
        figures = [(f"{_prefix(task)}/{key}", r.metrics.get(key)) for key in FINAL[task]]
        for key, value in (*figures, ("perf/ms_per_step", t.median_ms),
                           ("perf/ms_per_step_spread", t.spread_ms), ("perf/compile_s", r.compile_seconds),
                           ("speed_up", rows["speed_up"][i])):
            if value is not None:
                parent.log_metric(f"{r.mode}/{key}", value, step)
    if check is not None:
        _log_parity(parent, results, check, step)
    if bisect is not None:  # trainer/parity_bisect.py
        parent.set_tags(bisect.tags())
        parent.log_text(json.dumps(bisect.as_dict(), indent=2, default=float) + "\n", "parity_bisect.json")
    parent.log_table(rows, "compare_table.json")
    with tempfile.TemporaryDirectory() as tmp:
        plot = Path(tmp) / "compare.png"
        figure(results, timings, check, title, plot, task)
        parent.log_artifact(plot)
    parent.log_text(report + "\n", "compare.txt")


def _log_parity(parent: Any, results: list[Any], check: Any, step: int) -> None:
    parent.log_metric("parity/max_abs_loss_diff", check.max_abs, step)
    parent.log_metric("parity/pass", float(check.passed), step)
    parent.log_metric("parity/steps_checked", check.n, step)
    if check.first_diff_step is not None:
        parent.log_metric("parity/first_diff_step", check.first_diff_step, step)
    parent.set_tags({"parity": "PASS" if check.passed else "FAIL",
                     "parity_tolerance": f"atol {check.atol:g} + rtol {check.rtol:g}",
                     "parity_steps": str(check.n)})
    base = results[0]
    for other in results[1:2]:  # the series: the first two modes' per-step difference
        k = min(len(base.losses), len(other.losses))
        for s, a, b in zip(base.steps[:k], base.losses[:k], other.losses[:k]):
            if np.isfinite(a) and np.isfinite(b):
                parent.log_metric("parity/abs_loss_diff", abs(a - b), s)
